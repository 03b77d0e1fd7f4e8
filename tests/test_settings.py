"""Every setting, from every source, checked for type and range once, at load.

A bad value is one line on stderr naming the key, the value, where it came from and what
is allowed, and exit status 1 — never "internal error", never a silent default.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from vaultmem import config
from vaultmem.errors import ConfigError
from vaultmem.interfaces.cli import main

ENV_CASES = [
    ("QUIET_HOURS", "late", "hour ranges"),
    ("QUIET_HOURS", "25:00-07:00", "hour ranges"),
    ("MODE", "foo", "hybrid, dense or lexical"),
    ("FUSION", "max", "score or rrf"),
    ("WEIGHT", "nan", "a number from 0 to 10"),
    ("WEIGHT", "-1e308", "a number from 0 to 10"),
    ("WEIGHT", "inf", "a number from 0 to 10"),
    ("FIRE_WEIGHT", "lots", "a number from 0 to 10"),
    ("MAX_CHUNK_CHARS", "-5", "a whole number from 100 to 1,000,000"),
    ("BATCH_SIZE", "0", "a whole number from 1 to 4,096"),
    ("BATCH_SIZE", "3.5", "a whole number"),
    ("SALIENCE", "5", "a table of importance"),
    ("SALIENCE", "recency=2", "a table of importance"),
    ("SALIENCE", "fame=0.5", "a table of importance"),
    ("LEXICAL_WEIGHT", "1.5", "a number from 0 to 1"),
    ("SEMANTIC_THRESHOLD", "2", "a number from -1 to 1"),
    ("STALE_DAYS", "0", "a whole number from 1"),
    ("DAILY_CAP", "-1", "a whole number from 0"),
    ("NUDGE_OSCILLATION", "maybe", "true or false"),
    ("LEDGER_NOTES", "Ledger.txt", "ending in .md"),
    ("MODEL", " ", "a fastembed model name"),
]


@pytest.mark.parametrize(("key", "value", "allowed"), ENV_CASES,
                         ids=[f"{k}={v}" for k, v, _ in ENV_CASES])
def test_a_bad_environment_value_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys, key,
                                                        value, allowed):
    monkeypatch.setenv(f"VAULTMEM_{key}", value)
    assert main(["cron", "--vault", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "internal error" not in err
    assert f"setting {key.lower()} = {value!r} (from VAULTMEM_{key})" in err
    assert allowed in err


FILE_CASES = [
    ("salience = 5", "salience = 5", "a table of importance"),
    ("weight = nan", "weight = nan", "a number from 0 to 10"),
    ("max_chunk_chars = -5", "max_chunk_chars = -5", "a whole number from 100"),
    ("batch_size = 0", "batch_size = 0", "a whole number from 1"),
    ("batch_size = 32.0", "batch_size = 32.0", "a whole number"),
    ("quiet_hours = 22", "quiet_hours = 22", "hour ranges"),
    ("nudge_oscillation = \"yes\"", "nudge_oscillation = 'yes'", None),
    ("ledger_notes = 5", "ledger_notes = 5", "ending in .md"),
    ("weight = true", "weight = True", "a number from 0 to 10"),
]


@pytest.mark.parametrize(("line", "shown", "allowed"), FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_a_bad_config_file_value_is_one_line_and_exit_1(tmp_path, capsys, line, shown, allowed):
    (tmp_path / ".vaultmem").mkdir()
    (tmp_path / ".vaultmem" / "config.toml").write_text(line + "\n")
    code = main(["cron", "--vault", str(tmp_path)])
    out, err = capsys.readouterr()
    if allowed is None:  # a string "yes" is a fine boolean
        assert code == 0, err
        return
    assert code == 1 and out == "" and err.count("\n") == 1
    assert f"setting {shown} (from {tmp_path / '.vaultmem' / 'config.toml'})" in err
    assert allowed in err


def test_a_bad_value_given_in_code_is_refused_the_same_way(tmp_path):
    with pytest.raises(ConfigError, match=r"setting weight = nan \(from `weight`\)"):
        config.load(tmp_path, weight=float("nan"))
    with pytest.raises(ConfigError, match=r"from `mode`\) is not allowed: use hybrid"):
        config.load(tmp_path, mode="foo")


def test_a_library_caller_is_told_in_its_own_terms(tmp_path):
    """`Vault.open(weight=-1)` names the argument, not a CLI flag it does not have."""
    from vaultmem import Vault

    with pytest.raises(ConfigError) as refused:
        Vault.open(tmp_path, create=True, weight=-1)
    assert str(refused.value) == ("setting weight = -1 (from `weight`) is not allowed: use a "
                                  "number from 0 to 10")


@pytest.mark.parametrize("options, message", [
    ({"weight": -1}, "setting weight = -1 (from `weight`) is not allowed: use a number from "
                     "0 to 10"),
    ({"weight": 50}, "setting weight = 50 (from `weight`) is not allowed"),
    ({"mode": "foo"}, "setting mode = 'foo' (from `mode`) is not allowed: use hybrid, dense "
                      "or lexical"),
    ({"fire_slot": 0}, "setting fire_slot = 0 (from `fire_slot`) is not allowed"),
    ({"speed": 3}, "unknown query option(s) ['speed']"),
])
def test_query_options_take_the_settings_route(make_vault, options, message):
    from vaultmem.errors import UsageError

    v = make_vault({"a.md": "# A\nThe shower valve.\n"}, index_at=datetime(2026, 8, 1))
    with pytest.raises(UsageError) as refused:
        v.query("shower valve", log=False, **options)
    assert str(refused.value).startswith(message)


@pytest.mark.usefixtures("fake_model")
def test_the_cli_says_a_setting_by_its_flag(tmp_path, capsys):
    (tmp_path / "a.md").write_text("# A\nThe shower valve.\n")
    assert main(["index", str(tmp_path), "--now", "2026-08-01"]) == 0
    capsys.readouterr()
    code = main(["query", "shower valve", "--weight", "50", "--vault", str(tmp_path)])
    assert (code, capsys.readouterr().err) == (
        2, "vaultmem: setting weight = 50.0 (from --weight) is not allowed: use a number "
           "from 0 to 10\n")


def test_good_values_from_each_source_are_taken(tmp_path, monkeypatch):
    (tmp_path / ".vaultmem").mkdir()
    (tmp_path / ".vaultmem" / "config.toml").write_text(
        "salience = {recency = 0.2}\nquiet_hours = \"23:30-06:00\"\nbatch_size = 8\n"
        "ledger_notes = [\"Ledger.md\", \"Work/Tasks.md\"]\n")
    monkeypatch.setenv("VAULTMEM_WEIGHT", " 0.5 ")
    monkeypatch.setenv("VAULTMEM_NUDGE_OSCILLATION", "off")
    settings = config.load(tmp_path, mode="dense")
    assert settings.salience["recency"] == 0.2 and settings.salience["importance"] == 0.30
    assert (settings.quiet_hours, settings.batch_size, settings.weight) == (
        "23:30-06:00", 8, 0.5)
    assert settings.ledger_notes == ("Ledger.md", "Work/Tasks.md")
    assert settings.nudge_oscillation is False and settings.mode == "dense"


def test_every_setting_has_a_rule_and_every_default_passes_it():
    assert set(config.RULES) == {f for f in config.Settings.__dataclass_fields__
                                 if f not in ("vault", "db")}
    for name, rule in config.RULES.items():
        value = getattr(config.DEFAULTS, name)
        assert rule.check(rule.convert(value if not isinstance(value, tuple) else list(value)))
