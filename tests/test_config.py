"""Where settings come from (SPEC 11): default < config.toml < VAULTMEM_* env < flag;
environment text coerced to each setting's type; unknown keys refused; a broken file is
one error naming it. Every setting in `config.RULES` takes a good and refuses a bad
value from the environment. (Value checks from the file and flags: test_settings.py.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vaultmem import config
from vaultmem.errors import ConfigError
from vaultmem.interfaces.cli import main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    """No VAULTMEM_* variable from the shell running the tests leaks into a case."""
    for name in [n for n in os.environ if n.startswith("VAULTMEM_")]:
        monkeypatch.delenv(name)


def config_file(vault: Path, text: str) -> Path:
    path = vault / ".vaultmem" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# -- precedence ------------------------------------------------------------------------


def test_each_source_overrides_the_one_below_it(tmp_path, monkeypatch):
    assert config.load(tmp_path).weight == config.DEFAULTS.weight == 0.3
    config_file(tmp_path, "weight = 0.4\n")
    assert config.load(tmp_path).weight == 0.4
    monkeypatch.setenv("VAULTMEM_WEIGHT", "0.6")
    assert config.load(tmp_path).weight == 0.6
    assert config.load(tmp_path, weight=0.8).weight == 0.8


def test_an_unset_flag_falls_through_to_the_environment(tmp_path, monkeypatch):
    """The CLI passes None for every option not given: None is "not set", never a value."""
    config_file(tmp_path, "mode = \"lexical\"\n")
    monkeypatch.setenv("VAULTMEM_MODE", "dense")
    assert config.load(tmp_path, mode=None).mode == "dense"
    monkeypatch.delenv("VAULTMEM_MODE")
    assert config.load(tmp_path, mode=None).mode == "lexical"


def test_sources_override_per_setting_not_wholesale(tmp_path, monkeypatch):
    config_file(tmp_path, "weight = 0.4\nstale_days = 30\ndaily_cap = 2\n")
    monkeypatch.setenv("VAULTMEM_STALE_DAYS", "60")
    settings = config.load(tmp_path, daily_cap=3)
    assert (settings.weight, settings.stale_days, settings.daily_cap) == (0.4, 60, 3)
    assert settings.fire_weight == config.DEFAULTS.fire_weight


@pytest.mark.usefixtures("fake_model")
def test_the_cli_flag_beats_the_environment_and_the_file(tmp_path, monkeypatch, capsys):
    """End to end: the query document states the weight it ranked with."""
    import json

    (tmp_path / "a.md").write_text("# A\nThe boiler.\n")
    config_file(tmp_path, "weight = 0.4\n")
    assert main(["index", str(tmp_path), "--json", "--now", "2026-08-01"]) == 0

    def weight(*flags: str) -> float:
        capsys.readouterr()
        assert main(["query", "boiler", "--vault", str(tmp_path), "--json", "--no-log",
                     *flags]) == 0
        return json.loads(capsys.readouterr().out)["weight"]

    assert weight() == 0.4
    monkeypatch.setenv("VAULTMEM_WEIGHT", "0.6")
    assert weight() == 0.6
    assert weight("--weight", "0.8") == 0.8


def test_vault_and_db_come_from_the_argument_else_the_environment(tmp_path, monkeypatch):
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    monkeypatch.setenv("VAULTMEM_VAULT", str(there))
    assert config.load().vault == there.resolve()
    assert config.load(here).vault == here.resolve()
    assert config.load(here).db == here.resolve() / ".vaultmem" / "vaultmem.db"
    monkeypatch.setenv("VAULTMEM_DB", str(tmp_path / "elsewhere.db"))
    assert config.load(here).db == (tmp_path / "elsewhere.db").resolve()
    assert config.load(here, tmp_path / "flag.db").db == (tmp_path / "flag.db").resolve()


def test_the_config_file_is_the_vaults_own(tmp_path, monkeypatch):
    """config.toml is read from the vault's .vaultmem/, never from the current folder."""
    vault, cwd = tmp_path / "vault", tmp_path / "cwd"
    vault.mkdir()
    config_file(cwd, "weight = 0.9\n")
    monkeypatch.chdir(cwd)
    assert config.load(vault).weight == config.DEFAULTS.weight


# -- coercion from environment text ----------------------------------------------------

COERCED = [
    ("BATCH_SIZE", " 32 ", "batch_size", 32),
    ("WEIGHT", "1e-1", "weight", 0.1),
    ("SEMANTIC_THRESHOLD", "-0.5", "semantic_threshold", -0.5),
    ("NUDGE_OSCILLATION", "No", "nudge_oscillation", False),
    ("NUDGE_OSCILLATION", " ON ", "nudge_oscillation", True),
    ("NUDGE_OSCILLATION", "0", "nudge_oscillation", False),
    ("LEDGER_NOTES", "Ledger.md, Work/Tasks.md", "ledger_notes", ("Ledger.md", "Work/Tasks.md")),
    ("MODE", " dense ", "mode", "dense"),
    ("QUIET_HOURS", "", "quiet_hours", ""),
    ("MODEL_PATH", " /models/mini ", "model_path", "/models/mini"),
]


@pytest.mark.parametrize(("env", "raw", "name", "value"), COERCED,
                         ids=[f"{e}={r!r}" for e, r, _, _ in COERCED])
def test_environment_text_becomes_the_settings_type(tmp_path, monkeypatch, env, raw, name,
                                                    value):
    monkeypatch.setenv(f"VAULTMEM_{env}", raw)
    got = getattr(config.load(tmp_path), name)
    assert got == value and type(got) is type(value)


def test_salience_from_the_environment_merges_into_the_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTMEM_SALIENCE", "importance=0.5,recency= 0.05,")
    salience = config.load(tmp_path).salience
    assert salience == {**config.DEFAULTS.salience, "importance": 0.5, "recency": 0.05}
    assert all(type(v) is float for v in salience.values())


def test_a_config_file_table_and_list_take_their_toml_types(tmp_path):
    config_file(tmp_path, "ledger_notes = [\"A.md\"]\nbatch_size = 8\n[salience]\n"
                          "centrality = 0\n")
    settings = config.load(tmp_path)
    assert settings.ledger_notes == ("A.md",) and settings.batch_size == 8
    assert settings.salience["centrality"] == 0.0 and type(settings.salience["centrality"]) is float


# -- unknown keys ----------------------------------------------------------------------


def test_an_unknown_key_in_the_file_is_refused_by_name(tmp_path, capsys):
    config_file(tmp_path, "weight = 0.4\nwieght = 0.5\n")
    with pytest.raises(ConfigError, match=r"unknown setting\(s\) \['wieght'\] \(from "
                       r".*config\.toml\)"):
        config.load(tmp_path)
    assert main(["cron", "--vault", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "wieght" in err
    assert "Traceback" not in err and "internal error" not in err
    assert err.endswith("every setting is listed by `vaultmem status --json`\n")


def test_an_unknown_setting_is_named_to_a_library_caller_in_its_terms(tmp_path):
    with pytest.raises(ConfigError, match=r"\(from `fame`\): every setting is listed by "
                       r"`status\(\)`"):
        config.load(tmp_path, fame=1)


def test_an_unknown_flag_is_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown setting\(s\) \['fame', 'glory'\] \(from "
                       r"`fame`, `glory`\)"):
        config.load(tmp_path, fame=1, glory=2)


def test_salience_weights_from_the_environment_may_carry_spaces(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULTMEM_SALIENCE", "importance = 0.4, recency=0.2")
    weights = config.load(tmp_path).salience
    assert (weights["importance"], weights["recency"]) == (0.4, 0.2)


def test_vault_and_db_are_not_settings_a_file_may_hold(tmp_path):
    config_file(tmp_path, "db = \"/elsewhere.db\"\n")
    with pytest.raises(ConfigError, match=r"\['db'\]"):
        config.load(tmp_path)


def test_an_unknown_environment_variable_is_not_read(tmp_path, monkeypatch):
    """Only VAULTMEM_<SETTING> names are read; other VAULTMEM_* variables are left alone."""
    monkeypatch.setenv("VAULTMEM_FAME", "1")
    assert config.load(tmp_path) == config.load(tmp_path, weight=config.DEFAULTS.weight)


# -- a broken file ---------------------------------------------------------------------

BROKEN = [
    ("not toml", b"weight = \n"),
    ("unclosed table", b"[salience\nrecency = 0.1\n"),
    ("duplicate key", b"weight = 0.4\nweight = 0.5\n"),
    ("not utf-8", b"model = \"caf\xe9\"\n"),
]


@pytest.mark.parametrize("data", [d for _, d in BROKEN], ids=[n for n, _ in BROKEN])
def test_a_broken_config_file_is_one_error_naming_it(tmp_path, capsys, data):
    path = config_file(tmp_path, "")
    path.write_bytes(data)
    with pytest.raises(ConfigError) as caught:
        config.load(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and message.endswith("fix the file or delete it")
    assert main(["cron", "--vault", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and str(path) in err
    assert "Traceback" not in err and "internal error" not in err


def test_an_empty_config_file_is_all_defaults(tmp_path):
    config_file(tmp_path, "# nothing set yet\n")
    assert config.load(tmp_path) == config.load(tmp_path, weight=config.DEFAULTS.weight)


# -- every setting, from the environment -----------------------------------------------

# One good and one bad value as environment text for every setting in config.RULES;
# a new setting without a case here fails test_every_rule_has_an_environment_case.
ENV_VALUES: dict[str, tuple[str, str | None]] = {
    "model": ("BAAI/bge-small-en-v1.5", " "),
    "model_path": ("/models/mini", None),  # any text names a folder; "" the bundled model
    "batch_size": ("64", "5000"),
    "max_chunk_chars": ("800", "99"),
    "max_file_bytes": ("1000000", "0"),
    "mode": ("lexical", "sparse"),
    "fusion": ("rrf", "sum"),
    "rrf_k": ("10", "0"),
    "lexical_weight": ("0.7", "-0.1"),
    "lexical_coverage": ("0", "11"),
    "coverage_words": ("12", "0"),
    "weight": ("0", "10.5"),
    "fire_weight": ("2.5", "-1"),
    "salience": ("activation=0.5", "importance=0,activation=0,centrality=0,prospective=0,"
                 "recency=0"),
    "query_mentions": ("0", "1001"),
    "keyword_threshold": ("1", "1.01"),
    "semantic_threshold": ("-1", "-1.5"),
    "about_threshold": ("0.3", "abc"),
    "context_units": ("sentences", "words"),
    "clause_offset": ("0.1", "2"),
    "match_margin": ("-0.5", "2.5"),
    "support_margin": ("0.1", "-3"),
    "subject_margin": ("0", "nan"),
    "note_margin": ("0.1", "3"),
    "unnamed_margin": ("0.2", "-3"),
    "note_ratio": ("0.75", "1.5"),
    "lone_evidence": ("anywhere", "nowhere"),
    "fire_slot": ("3", "0"),
    "ambient_band": ("0.5", "1.5"),
    "ledger_notes": ("Tasks.md,Work/Ledger.md", "Tasks.md,notes.txt"),
    "stale_days": ("36500", "36501"),
    "quiet_hours": ("9-12,14-18", "22:00-07:60"),
    "daily_cap": ("0", "1.5"),
    "nudge_oscillation": ("false", "2"),
    "form_confidence": ("0.9", "1.1"),
}


def test_every_rule_has_an_environment_case():
    assert set(ENV_VALUES) == set(config.RULES)
    assert [k for k, (_, bad) in ENV_VALUES.items() if bad is None] == ["model_path"]


@pytest.mark.parametrize("name", sorted(ENV_VALUES))
def test_a_good_environment_value_is_taken(tmp_path, monkeypatch, name):
    good, _ = ENV_VALUES[name]
    monkeypatch.setenv(f"VAULTMEM_{name.upper()}", good)
    value = getattr(config.load(tmp_path), name)
    assert value != getattr(config.DEFAULTS, name)  # the case really changes something
    assert value == config.RULES[name].convert(good)


@pytest.mark.parametrize("name", sorted(k for k, (_, bad) in ENV_VALUES.items() if bad))
def test_a_bad_environment_value_is_refused_naming_key_source_and_rule(tmp_path, monkeypatch,
                                                                       name):
    _, bad = ENV_VALUES[name]
    monkeypatch.setenv(f"VAULTMEM_{name.upper()}", bad)
    with pytest.raises(ConfigError) as caught:
        config.load(tmp_path)
    assert str(caught.value) == (f"setting {name} = {config._shown(bad)} (from VAULTMEM_"
                                 f"{name.upper()}) is not allowed: use "
                                 f"{config.RULES[name].allowed}")
