"""One rule for time: naive local time; aware input is converted to
local time first. Applied to --now, front matter dates, file mtimes and stored stamps.
"""

from __future__ import annotations

import json
import time
import warnings
from datetime import datetime, timedelta, timezone

import pytest

from vaultmem import clock
from vaultmem.interfaces.cli import main
from vaultmem.salience import run_salience
from vaultmem.store import Store


@pytest.fixture
def kolkata(monkeypatch):
    """The machine's local zone set to UTC+05:30 for one test."""
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


pytestmark = pytest.mark.usefixtures("fake_model")  # CLI runs here embed with the fake


def test_aware_moments_become_naive_local_time(kolkata):
    aware = datetime(2026, 8, 16, 9, 0, tzinfo=timezone(timedelta(hours=5)))
    assert clock.local_naive(aware) == datetime(2026, 8, 16, 9, 30)
    assert clock.local_naive(datetime(2026, 8, 16, 9, 0)) == datetime(2026, 8, 16, 9, 0)
    assert clock.parse_now("2026-08-16T09:00+05:00") == datetime(2026, 8, 16, 9, 30)
    assert clock.parse_now("2026-08-16T03:30Z") == datetime(2026, 8, 16, 9, 0)
    assert clock.parse_now("2026-08-16") == datetime(2026, 8, 16)
    assert clock.moment("2026-08-01T10:00:00-02:00") == datetime(2026, 8, 1, 17, 30)
    assert clock.moment("2026-08-01 and more") == datetime(2026, 8, 1)
    assert clock.moment("soon") is None
    assert clock.naive_stamp("2026-08-16T09:00:00+05:00") == "2026-08-16T09:30:00"
    assert clock.naive_stamp("2026-08-16T09:00:00") == "2026-08-16T09:00:00"


@pytest.mark.parametrize("text", ["", "  ", "tomorrow", "2026-13-01"])
def test_a_bad_or_empty_now_is_an_error_not_the_clock(text):
    with pytest.raises(ValueError, match="ISO date or datetime"):
        clock.parse_now(text)


def _vault(tmp_path):
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Plumber.md").write_text("# Plumber\n\nThe plumber fixes the valve.\n")
    (vault / "Idea.md").write_text(
        "---\ntype: idea\ncreated: 2026-08-01T10:00:00+02:00\n---\n# Idea\n\nA pond.\n")
    (vault / "Ledger.md").write_text("- [ ] Pay the plumber invoice 📅 2026-08-16 [[Plumber]]\n")
    assert main(["index", str(vault), "--now", "2026-08-10T09:00", "--json"]) == 0
    return vault


def test_nudge_and_query_take_an_aware_now_and_store_local_stamps(tmp_path, capsys, kolkata):
    vault = _vault(tmp_path)
    capsys.readouterr()
    for args in (["nudge", "--now", "2026-08-16T09:00+05:00"],
                 ["query", "plumber", "--now", "2026-08-16T09:00+05:00"],
                 ["due", "--now", "2026-08-16T09:00+05:00"],
                 ["salience", "--now", "2026-08-16T09:00+05:00"]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # numpy warns on aware datetime64 strings
            code = main([*args, "--vault", str(vault), "--json"])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert json.loads(out) is not None
    store = Store.open(vault / ".vaultmem" / "vaultmem.db")
    stamps = [r[0] for r in store.execute("SELECT ts FROM ops UNION SELECT updated_at "
                                          "FROM nudge_state UNION SELECT started FROM runs")]
    assert "2026-08-16T09:30:00" in stamps
    assert all(len(s) == 19 for s in stamps), stamps
    created = store.execute("SELECT created FROM prospective").fetchone()[0]
    assert created == "2026-08-01T13:30:00"


def test_stamps_stored_with_an_offset_are_read_as_local_time(make_vault, kolkata):
    vault = make_vault({"A.md": "# A\n"}, index_at=datetime(2026, 8, 1))
    settings, store = vault.settings, vault.store
    note = store.path_ids()["A.md"]
    with store.atomic():  # what an earlier version wrote for an aware --now
        store.add_op("2026-08-16T09:00:00+05:00", "retrieved", note)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = run_salience(store, settings, datetime(2026, 8, 16, 9, 30))
    assert report.notes == 1


def test_feedback_with_an_overlong_snooze_is_a_usage_error(tmp_path, capsys):
    vault = _vault(tmp_path)
    capsys.readouterr()
    code = main(["feedback", "c-pay-plumber-invoice", "snooze", "--for", "1e400h",
                 "--vault", str(vault)])
    out, err = capsys.readouterr()
    assert code == 2 and "internal error" not in err and "1e400h" in err


def test_an_empty_now_is_a_usage_error(tmp_path, capsys):
    vault = _vault(tmp_path)
    capsys.readouterr()
    assert main(["due", "--now", "", "--vault", str(vault)]) == 2
    assert "--now is empty" in capsys.readouterr().err
