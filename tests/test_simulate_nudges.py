"""The bookkeeping of scripts/simulate_nudges.py: reading a scenario, the vault the
scripted user keeps, the baseline and the metrics (the replays themselves run the real
model through the CLI and take minutes: they are the script's job)."""

from __future__ import annotations

import sys
import types
from datetime import datetime

import pytest

from tests.test_hardening import SCRIPTS


def load_script(name: str) -> types.ModuleType:
    """Import scripts/NAME.py by hand (no __pycache__ in scripts/), registered in
    sys.modules while it runs: its dataclasses look their module up there."""
    path = SCRIPTS / f"{name}.py"
    module = types.ModuleType(f"_vaultmem_{name}")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
    return module


sim = load_script("simulate_nudges")

DOC = {
    "id": "scn-t", "start": "2027-03-01T07:00", "days": 2, "quiet_hours": "22:00-07:00",
    "notes": [{"path": "ideas/Pond.md", "written": "2027-02-01T10:00",
               "text": "---\ntype: idea\n---\n# Pond\nA pond by the fence."}],
    "ledger": [
        {"id": "n-vat", "written": "2027-01-10T09:00",
         "line": "- [ ] File the VAT return ⏫ 📅 2027-03-01 ^n-vat"},
        {"id": "n-dentist", "written": "2027-02-01T19:30", "done_on_accept": False,
         "line": "- [ ] Dentist 📅 2027-03-02 [nudge_hours:: 7-9] ^n-dentist"},
        {"id": "n-done", "written": "2027-02-01T19:30",
         "line": "- [x] Old thing 📅 2027-03-01 ✅ 2027-02-20 ^n-done"}],
    "contexts": [{"from": "2027-03-01T17:30", "to": "2027-03-01T18:15", "text": "At the shop."}],
    "oracle": [
        {"item": "n-vat", "from": "2027-03-01T08:00", "to": "2027-03-01T10:00"},
        {"item": "n-dentist", "from": "2027-03-01T19:00", "to": "2027-03-01T21:00"},
        {"item": "n-dentist", "from": "2027-03-02T07:00", "to": "2027-03-02T09:00"},
        {"item": "ideas/Pond.md", "from": "2027-03-02T18:00", "to": "2027-03-02T20:00"}],
}


def t(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_a_scenario_reads_into_items_in_written_order_windows_and_contexts():
    s = sim.parse_scenario(DOC, "label")
    assert [i.key for i in s.items] == ["n-vat", "ideas/Pond.md", "n-dentist", "n-done"]
    assert [(i.ledger, i.done_on_accept) for i in s.items] == \
        [(True, True), (False, False), (True, False), (True, True)]
    assert s.end == t("2027-03-03T07:00")
    assert s.context_at(t("2027-03-01T17:45")) == "At the shop."
    assert s.context_at(t("2027-03-01T18:15")) is None  # [from, to)
    assert s.oracle[1].holds(t("2027-03-01T19:00")) and not s.oracle[1].holds(t("2027-03-01T21:00"))


def test_a_window_with_hours_counts_only_inside_them():
    w = sim.Window("x", t("2027-03-01T12:00"), t("2027-03-02T17:00"), "09-12,14-18")
    assert w.holds(t("2027-03-01T14:00")) and not w.holds(t("2027-03-01T20:00"))


def test_the_world_writes_what_was_written_and_checks_a_line_off_as_tasks_would(tmp_path):
    world = sim.World(tmp_path, sim.parse_scenario(DOC))
    assert world.write_due(t("2027-02-15T00:00"))
    assert (tmp_path / "ideas" / "Pond.md").exists()
    ledger = (tmp_path / "Ledger.md").read_text()
    assert ledger == ("# Ledger\n\n- [ ] File the VAT return ⏫ 📅 2027-03-01 ^n-vat\n"
                      "- [ ] Dentist 📅 2027-03-02 [nudge_hours:: 7-9] ^n-dentist\n"
                      "- [x] Old thing 📅 2027-03-01 ✅ 2027-02-20 ^n-done\n")
    assert (tmp_path / "Ledger.md").stat().st_mtime == t("2027-02-01T19:30").timestamp()
    assert not world.write_due(t("2027-02-16T00:00"))
    world.complete("n-vat", t("2027-03-01T08:15"))
    assert "- [x] File the VAT return ⏫ 📅 2027-03-01 ✅ 2027-03-01 ^n-vat\n" in \
        (tmp_path / "Ledger.md").read_text()
    world.complete("ideas/Pond.md", t("2027-03-02T18:00"))
    assert (tmp_path / "ideas" / "Pond.md").read_text().startswith("---\nstatus: done\ntype:")
    assert world.identify({"id": "p-pond", "notes": ["ideas/Pond.md"]}) == "ideas/Pond.md"
    assert world.identify({"id": "n-dentist"}) == "n-dentist"


def test_the_baseline_nudges_open_dated_entries_at_nine_on_their_day():
    run = sim.baseline(sim.parse_scenario(DOC))
    assert [(e.t, e.item, e.useful) for e in run.emits] == [
        (t("2027-03-01T09:00"), "n-vat", True),       # inside 08:00-10:00
        (t("2027-03-02T09:00"), "n-dentist", False)]  # the window closed at 09:00


def emit(when: str, item: str, useful: bool) -> object:
    return sim.Emit(t(when), item, useful, sim.in_hours("22:00-07:00", t(when)))


def test_the_metrics_are_counted_as_defined():
    s = sim.parse_scenario(DOC)
    run = sim.Run(s, [emit("2027-03-01T08:30", "n-vat", True),
                      emit("2027-03-01T12:00", "n-dentist", False),
                      emit("2027-03-02T07:45", "n-dentist", True),
                      emit("2027-03-02T07:50", "n-dentist", True),
                      emit("2027-03-02T23:00", "n-dentist", False)])
    got = sim.score([run])
    assert (got["emits"], got["useful"], got["windows"], got["hit"]) == (5, 3, 4, 2)
    assert got["precision"] == pytest.approx(3 / 5)
    assert got["recall"] == pytest.approx(2 / 4)
    assert (got["items"], got["items_hit"]) == (3, 2)
    assert got["per_day"] == pytest.approx(5 / 2) and got["max_per_day"] == 3
    assert got["quiet"] == 1
    assert got["ttu"] == pytest.approx((0.5 + 0.75) / 2)  # window start → first useful


def test_recall_is_also_counted_over_the_windows_still_open_when_they_came():
    """A window that starts after its item was done (accepted earlier, checked off) cannot
    be served: `recall_open` leaves it out; `recall` (SPEC 9's) counts every window."""
    doc = {**DOC, "oracle": [*DOC["oracle"], {"item": "n-vat", "from": "2027-03-02T08:00",
                                               "to": "2027-03-02T10:00"}]}
    s = sim.parse_scenario(doc)
    run = sim.Run(s, [emit("2027-03-01T08:30", "n-vat", True),       # done on accept
                      emit("2027-03-01T19:30", "n-dentist", True),   # not done on accept
                      emit("2027-03-02T07:15", "n-dentist", True)])
    assert sim.done_at(run) == {"n-vat": t("2027-03-01T08:30")}
    got = sim.score([run])
    assert (got["hit"], got["windows"]) == (3, 5)
    assert (got["open_hit"], got["open_windows"]) == (3, 4)  # n-vat's second: done before
    assert got["recall_open"] == pytest.approx(3 / 4)
    assert "| 0.60 (3/5) | 0.75 (3/4) |" in sim.row("x", "vaultmem", got)


def test_the_ceiling_serves_every_window_it_can_and_an_item_done_on_accept_once():
    s = sim.parse_scenario(DOC)
    assert sim.ceiling(s) == (4, 4)  # the dentist is not done on accept: both its windows
    doc = {**DOC, "ledger": [dict(e, done_on_accept=True) for e in DOC["ledger"]]}
    assert sim.ceiling(sim.parse_scenario(doc)) == (4, 3)
    night = {**DOC, "oracle": [{"item": "n-vat", "from": "2027-03-01T22:00",
                                "to": "2027-03-02T07:00"}]}
    assert sim.ceiling(sim.parse_scenario(night)) == (0, 0)  # quiet hours all through


def test_why_names_the_rule_nearest_to_letting_a_missed_window_fire():
    at = t("2027-03-01T08:00")
    below = sim.Standing(at, "below θ by 0.40", 0.6, {"urgency": 0.0, "cue": 0.0, "hours": 0.6})
    lost = sim.Standing(at, "n-x won this tick", 1.2, {"urgency": 0.65})
    assert sim.cause([below, lost]) == "lost the tick to another item"
    assert sim.cause([below]) == "below θ: no urgency or cue (gap ≥ 0.25)"
    short = sim.Standing(at, "below θ by 0.10", 0.9, {"urgency": 0.65, "hours": 0.0})
    assert sim.cause([below, short]) == "below θ: outside its hours (gap < 0.25)"
    assert sim.cause([]) == "no tick inside it"


def test_why_says_what_won_a_wasted_nudge_and_where_its_windows_lie():
    run = sim.Run(sim.parse_scenario(DOC), [])
    early = sim.Emit(t("2027-03-01T12:30"), "n-dentist", False, False, why="tomorrow",
                     terms={"urgency": 0.4})
    assert sim.waste(early, run) == "heads-up (day before); its window later"
    late = sim.Emit(t("2027-03-02T12:30"), "n-vat", False, False,
                    why="overdue since 2027-03-01", terms={"urgency": 0.25})
    assert sim.waste(late, run) == "overdue; its window earlier"
    cue = sim.Emit(t("2027-03-01T12:30"), "ideas/Pond.md", False, False, why="at the shop",
                   terms={"cue": 0.8})
    assert sim.waste(cue, run) == "cue; its window later"
    assert sim.kind_of(run, "n-vat") == "dated" and sim.kind_of(run, "ideas/Pond.md") == "note"
