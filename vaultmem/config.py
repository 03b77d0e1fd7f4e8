"""One frozen settings object. Precedence: flag > VAULTMEM_* env > config file > default.

Every default lives in DEFAULTS below and nowhere else; `vaultmem status --json`
prints the effective values.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Callable
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
    fusion: str = "score"  # score | rrf: how hybrid mode fuses the two legs (docs/how-it-works.md)
    rrf_k: int = 60  # reciprocal-rank fusion constant (Cormack et al. 2009)
    lexical_weight: float = 0.5  # the BM25 share in score fusion
    # A note's lexical term is weighted by (share of the query's words its best chunk
    # holds) ** this, so a question that shares only everyday words with a note does not
    # lift it; 0 lets every BM25 hit count in full. Chosen on the four retrieval golden
    # sets (docs/evaluation.md).
    lexical_coverage: float = 3.0
    # ... for queries of up to this many words; the exponent fades to 0 at twice as many.
    # A long context (a trigger note, a paragraph) carries several concerns at once: no
    # note holds a large share of its words, and the words it does share are the
    # evidence (the prospective evaluation's triggers: 8-32 words; golden queries 1-14).
    coverage_words: int = 8
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
    # chosen from scripts/eval_prospective.py's sweeps, see docs/evaluation.md
    semantic_threshold: float = 0.22  # a condition's views vs the context or a sentence
    about_threshold: float = 0.18  # a dated entry's own text vs the context: "about it"
    context_units: str = "clauses"  # whole | sentences | clauses: how a context is split
    clause_offset: float = 0.05  # what a single clause needs on top of either threshold
    match_margin: float = 0.25  # meaning alone: its lead over every other entry's cosine
    support_margin: float = 0.05  # words or an event: the lead meaning must not deny them
    note_ratio: float = 0.5  # a view needs this share of the best cosine to another note
    subject_margin: float = 0.15  # meaning: how much closer than to the condition's names
    note_margin: float = 0.05  # an event: how much closer to its notes than to others' notes
    unnamed_margin: float = 0.10  # …when the context names no one: the event told is the cue
    # One kind of evidence alone (meaning, words, an event) fires only where the whole
    # context carries it ("whole", see cue.LONE_UNITS), or wherever it is ("anywhere").
    # Chosen on the thirteen tuning weeks (docs/evaluation.md, round 7).
    lone_evidence: str = "whole"
    fire_slot: int = 1  # notes of a grounded firing entry rank no lower than this
    # An ambient note is lifted only if its relevance is at least this share of the
    # query's best; below it, it is there from nowhere (rank.py `_from_nowhere`). Chosen
    # on the prospective evaluation's tuning blueprints (docs/evaluation.md).
    ambient_band: float = 0.25
    # ledger, prospective items, nudges (SPEC 3, 7, 8)
    ledger_notes: tuple = ("Ledger.md",)
    stale_days: int = 90
    quiet_hours: str = "22:00-07:00"
    daily_cap: int = 5
    nudge_oscillation: bool = True  # the revival term of D(t); off only for ablations
    # Form (`ledger suggest`): candidates offered at or above this confidence; chosen on
    # the dev set (scripts/eval_form.py --sweep), see docs/evaluation.md
    form_confidence: float = 0.5

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready view (paths as strings that UTF-8 can hold)."""
        from .text.folder import printable

        out = asdict(self)
        out["vault"], out["db"] = printable(str(self.vault)), printable(str(self.db))
        out["ledger_notes"] = list(self.ledger_notes)
        return out


DEFAULTS = Settings()
# The trigger matcher's cosine thresholds are MiniLM's. A model that spreads its cosines
# otherwise gets its own, unless they are set: multilingual-e5-small puts any two texts
# at a cosine of about 0.7-0.9, and 0.815 lets through the same share of other entries'
# (trigger, view) pairs as MiniLM's 0.22 and 0.18 do (scripts/calibrate_matcher.py: 21%
# and 19%, against 22% and 20%); the clause offset scales with the spread of its cosines.
MODEL_DEFAULTS: dict[str, dict[str, Any]] = {
    name: {"semantic_threshold": 0.815, "about_threshold": 0.815, "clause_offset": 0.014}
    for name in ("multilingual-e5-small", "intfloat/multilingual-e5-small")
}
_TUNABLE = {f.name: f for f in fields(Settings) if f.name not in ("vault", "db")}


def load(vault: str | Path | None = None, db: str | Path | None = None, **flags: Any) -> Settings:
    """Resolve settings for a vault: defaults < config.toml < VAULTMEM_* env < flags."""
    vault_path = Path(vault or os.environ.get("VAULTMEM_VAULT") or ".").expanduser().resolve()
    db_raw = db or os.environ.get("VAULTMEM_DB")
    default_db = vault_path / STORE_DIR / "vaultmem.db"
    db_path = Path(db_raw).expanduser().resolve() if db_raw else default_db
    values: dict[str, tuple[Any, str]] = {}
    values.update(_from_file(vault_path / STORE_DIR / "config.toml"))
    values.update(_from_env())
    values.update(_given(flags))
    unknown = sorted(set(values) - set(_TUNABLE))
    if unknown:
        sources = ", ".join(sorted({values[k][1] for k in unknown}))
        raise ConfigError(f"unknown setting(s) {unknown} (from {sources}): every setting is "
                          "listed by `status()`")
    chosen = _coerce(values)
    for key, value in MODEL_DEFAULTS.get(chosen.get("model", DEFAULTS.model), {}).items():
        chosen.setdefault(key, value)
    return replace(DEFAULTS, vault=vault_path, db=db_path, **chosen)


def _from_file(path: Path) -> dict[str, tuple[Any, str]]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}: fix the file or delete it") from None
    return {key: (value, str(path)) for key, value in data.items()}


def _from_env() -> dict[str, tuple[Any, str]]:
    out = {}
    for name in _TUNABLE:
        raw = os.environ.get(f"VAULTMEM_{name.upper()}")
        if raw is not None:
            out[name] = (raw, f"VAULTMEM_{name.upper()}")
    return out


def check(values: dict[str, Any], error: type[Exception] = ConfigError) -> dict[str, Any]:
    """Settings given in code (`Vault.open(weight=0.5)`, `Vault.query(weight=0.5)`, a
    flag or an MCP argument passed on) checked and converted by their rules, the one
    route every source takes; None is "not given". A refusal raises `error` naming the
    value as the library does (`weight`), for each face to say in its own terms."""
    return _coerce(_given(values), error)


def _given(values: dict[str, Any]) -> dict[str, tuple[Any, str]]:
    return {k: (v, f"`{k}`") for k, v in values.items() if v is not None}


def _coerce(values: dict[str, tuple[Any, str]],
            error: type[Exception] = ConfigError) -> dict[str, Any]:
    """Every value, from whichever source, checked for type and range once, here."""
    out = {}
    for name, (raw, source) in values.items():
        rule = RULES[name]
        try:
            value = rule.convert(raw)
            ok = rule.check(value)
        except (TypeError, ValueError, AttributeError, OverflowError):
            ok = False
        if not ok:
            raise error(f"setting {name} = {_shown(raw)} (from {source}) is not allowed: "
                        f"use {rule.allowed}")
        out[name] = value
    return out


def _shown(raw: Any) -> str:
    text = repr(raw) if isinstance(raw, str) else str(raw)
    return text if len(text) <= 60 else text[:57] + "..."


# -- what each setting may be -------------------------------------------------------


def _whole(raw: Any) -> int:
    """An int from TOML (not a bool, not 3.5) or from text ("32")."""
    if isinstance(raw, bool) or isinstance(raw, float):
        raise TypeError(raw)
    return int(raw.strip()) if isinstance(raw, str) else int(raw)


def _number(raw: Any) -> float:
    if isinstance(raw, bool):
        raise TypeError(raw)
    value = float(raw.strip()) if isinstance(raw, str) else float(raw)
    if not math.isfinite(value):
        raise ValueError(raw)
    return value


def _text(raw: Any) -> str:
    if not isinstance(raw, str):
        raise TypeError(raw)
    return raw.strip()


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _flag(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in _TRUE + _FALSE:
        return raw.strip().lower() in _TRUE
    raise ValueError(raw)


def _names(raw: Any) -> tuple[str, ...]:
    items = raw.split(",") if isinstance(raw, str) else raw
    if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
        raise TypeError(raw)
    return tuple(item.strip() for item in items)


def _weights(raw: Any) -> dict[str, float]:
    if isinstance(raw, str):
        raw = dict(part.split("=", 1) for part in raw.split(",") if part.strip())
    if isinstance(raw, dict):
        raw = {str(key).strip(): value for key, value in raw.items()}
    if not isinstance(raw, dict) or not set(raw) <= set(DEFAULTS.salience):
        raise TypeError(raw)
    merged = dict(DEFAULTS.salience)
    merged.update({key: _number(value) for key, value in raw.items()})
    return merged


_HOURS = re.compile(r"\s*(\d{1,2})(?::(\d{2}))?\s*-\s*(\d{1,2})(?::(\d{2}))?\s*")


def _hours_ok(spec: str) -> bool:
    """"" (none) or ranges like "22:00-07:00" or "9-12,14-18"; 24:00 is the day's end."""
    for part in filter(str.strip, spec.split(",")):
        match = _HOURS.fullmatch(part)
        if not match:
            return False
        h1, m1, h2, m2 = (int(g or 0) for g in match.groups())
        if not all(h <= 24 and m < 60 and (h < 24 or m == 0) for h, m in ((h1, m1), (h2, m2))):
            return False
    return True


@dataclass(frozen=True)
class Rule:
    convert: Callable[[Any], Any]
    check: Callable[[Any], bool]
    allowed: str


def _between(low: float, high: float, convert=_number) -> Rule:
    whole = convert is _whole
    kind = "a whole number" if whole else "a number"
    return Rule(convert, lambda v: low <= v <= high, f"{kind} from {_num(low)} to {_num(high)}")


def _num(x: float) -> str:
    return f"{int(x):,}" if x == int(x) else f"{x:g}"


def _one_of(*choices: str) -> Rule:
    return Rule(_text, lambda v: v in choices, ", ".join(choices[:-1]) + " or " + choices[-1])


RULES: dict[str, Rule] = {
    "model": Rule(_text, bool, "a fastembed model name"),
    "model_path": Rule(_text, lambda v: True, "a folder, or \"\" for the bundled model"),
    "batch_size": _between(1, 4096, _whole),
    "max_chunk_chars": _between(100, 1_000_000, _whole),
    "max_file_bytes": _between(1, 10**12, _whole),
    "mode": _one_of("hybrid", "dense", "lexical"),
    "fusion": _one_of("score", "rrf"),
    "rrf_k": _between(1, 100_000, _whole),
    "lexical_weight": _between(0, 1),
    "lexical_coverage": _between(0, 10),
    "coverage_words": _between(1, 1000, _whole),
    "weight": _between(0, 10),
    "fire_weight": _between(0, 10),
    "salience": Rule(_weights, lambda v: all(0 <= x <= 1 for x in v.values()) and any(
        v.values()), "a table of " + ", ".join(DEFAULTS.salience) + ": each a number from "
        "0 to 1, not all 0 (in the environment: importance=0.3,recency=0.1)"),
    "query_mentions": _between(0, 1000, _whole),
    "keyword_threshold": _between(0, 1),
    "semantic_threshold": _between(-1, 1),
    "about_threshold": _between(-1, 1),
    "context_units": _one_of("whole", "sentences", "clauses"),
    "clause_offset": _between(0, 1),
    "match_margin": _between(-2, 2),
    "note_ratio": _between(0, 1),
    "support_margin": _between(-2, 2),
    "subject_margin": _between(-2, 2),
    "note_margin": _between(-2, 2),
    "unnamed_margin": _between(-2, 2),
    "lone_evidence": _one_of("whole", "anywhere"),
    "fire_slot": _between(1, 1000, _whole),
    "ambient_band": _between(0, 1),
    "ledger_notes": Rule(_names, lambda v: all(n.lower().endswith(".md") for n in v),
                         "vault-relative note paths ending in .md (comma-separated in the "
                         "environment)"),
    "stale_days": _between(1, 36_500, _whole),
    "quiet_hours": Rule(_text, _hours_ok, "hour ranges such as \"22:00-07:00\" or "
                        "\"9-12,14-18\", or \"\" for none"),
    "daily_cap": _between(0, 1000, _whole),
    "nudge_oscillation": Rule(_flag, lambda v: True, "true or false"),
    "form_confidence": _between(0, 1),
}
