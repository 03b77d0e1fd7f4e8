"""One frozen settings object. Precedence: flag > VAULTMEM_* env > config file > default.

Every default lives in DEFAULTS below and nowhere else; `vaultmem status --json`
prints the effective values.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .errors import ConfigError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
STORE_DIR = ".vaultmem"


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, resolved once."""

    vault: Path = Path(".")
    db: Path = Path(STORE_DIR) / "vaultmem.db"
    model: str = DEFAULT_MODEL
    model_path: str = ""  # a local fastembed-loadable folder; "" = the bundled recipe
    batch_size: int = 16  # texts per model run: the fastest on 2 cores (embed.py, THREADS)
    max_chunk_chars: int = 1200
    max_file_bytes: int = 5_000_000
    # ranking (SPEC 5)
    mode: str = "hybrid"  # hybrid | dense | lexical
    fusion: str = "score"  # score | rrf: how hybrid mode fuses the two legs (see README)
    rrf_k: int = 60  # reciprocal-rank fusion constant (Cormack et al. 2009)
    lexical_weight: float = 0.5  # the BM25 share in score fusion
    weight: float = 0.3
    fire_weight: float = 1.0
    # salience component weights (SPEC 4)
    salience: dict = field(
        default_factory=lambda: {
            "importance": 0.30,
            "activation": 0.25,
            "centrality": 0.20,
            "prospective": 0.15,
            "recency": 0.10,
        }
    )
    query_mentions: int = 5  # top-N query results logged as ACT-R mentions
    # trigger matcher (SPEC 5)
    keyword_threshold: float = 0.5
    semantic_threshold: float = 0.28  # chosen from scripts/eval_prospective.py, see README
    # ledger, prospective items, nudges (SPEC 3, 7, 8)
    ledger_notes: tuple = ("Ledger.md",)
    stale_days: int = 90
    quiet_hours: str = "22:00-07:00"
    daily_cap: int = 5
    nudge_oscillation: bool = True  # the revival term of D(t); off only for ablations
    # Form (`ledger suggest`): candidates offered at or above this confidence; chosen on
    # the dev set (scripts/eval_form.py --sweep), see README
    form_confidence: float = 0.5

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready view (paths as strings that UTF-8 can hold)."""
        from .vault import printable

        out = asdict(self)
        out["vault"], out["db"] = printable(str(self.vault)), printable(str(self.db))
        out["ledger_notes"] = list(self.ledger_notes)
        return out


DEFAULTS = Settings()
_TUNABLE = {f.name: f for f in fields(Settings) if f.name not in ("vault", "db")}


def load(vault: str | Path | None = None, db: str | Path | None = None, **flags: Any) -> Settings:
    """Resolve settings for a vault: defaults < config.toml < VAULTMEM_* env < flags."""
    vault_path = Path(vault or os.environ.get("VAULTMEM_VAULT") or ".").expanduser().resolve()
    db_raw = db or os.environ.get("VAULTMEM_DB")
    default_db = vault_path / STORE_DIR / "vaultmem.db"
    db_path = Path(db_raw).expanduser().resolve() if db_raw else default_db
    values: dict[str, Any] = {}
    values.update(_from_file(vault_path / STORE_DIR / "config.toml"))
    values.update(_from_env())
    values.update({k: v for k, v in flags.items() if v is not None})
    unknown = set(values) - set(_TUNABLE)
    if unknown:
        raise ConfigError(f"unknown setting(s) {sorted(unknown)}: see `vaultmem status --json`")
    return replace(DEFAULTS, vault=vault_path, db=db_path, **_coerce(values))


def _from_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}: fix the file or delete it") from None
    return data


def _from_env() -> dict[str, Any]:
    out = {}
    for name in _TUNABLE:
        raw = os.environ.get(f"VAULTMEM_{name.upper()}")
        if raw is not None:
            out[name] = raw
    return out


def _coerce(values: dict[str, Any]) -> dict[str, Any]:
    """Turn env strings and TOML values into each field's type, with a clear error."""
    out = {}
    for name, raw in values.items():
        kind = type(getattr(DEFAULTS, name))
        try:
            out[name] = _convert(kind, raw, getattr(DEFAULTS, name))
        except (TypeError, ValueError):
            raise ConfigError(f"setting {name}={raw!r} is not a valid {kind.__name__}") from None
    return out


def _convert(kind: type, raw: Any, default: Any) -> Any:
    if kind is dict:
        if isinstance(raw, str):
            raw = dict(part.split("=", 1) for part in raw.split(","))
        merged = dict(default)
        for key, value in raw.items():
            if key not in default:
                raise ValueError(key)
            merged[key] = float(value)
        return merged
    if kind is tuple:
        return tuple(raw.split(",")) if isinstance(raw, str) else tuple(raw)
    if kind is bool and isinstance(raw, str):
        return raw.lower() in ("1", "true", "yes", "on")
    return kind(raw)
