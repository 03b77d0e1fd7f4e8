"""Prospective items (SPEC 7) on temp vaults: what counts as an item, the lifecycle
(open → referenced → closed or stale, and back) as ops in the log, the query and
list filters for closed and stale items, and salience that never decays with age."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta

import pytest

from vaultmem import api
from vaultmem.prospective import KINDS, item_list, list_items, refresh_lifecycle
from vaultmem.salience import run_salience

from .conftest import write_files


class Vault:
    """The shared harness's vault (conftest `make_vault`) with this file's helpers; files
    get an mtime at noon of the given August day."""

    def __init__(self, vault: api.Vault):
        self.vault = vault
        self.root, self.settings, self.store = vault.settings.vault, vault.settings, vault.store
        self.embedder = vault.embedder

    def write(self, rel: str, text: str, day: int = 1) -> None:
        write_files(self.root, {rel: text}, datetime(2026, 8, day, 12))

    def remove(self, rel: str) -> None:
        (self.root / rel).unlink()

    def index(self, day: int | datetime) -> None:
        self.vault.index(now=day if isinstance(day, datetime) else datetime(2026, 8, day))

    def items(self) -> dict[str, tuple]:
        """{id: (kind, level, text, status, closed, present)}"""
        return {r[0]: r[1:] for r in self.store.execute(
            "SELECT id, kind, level, text, status, closed, present FROM prospective")}

    def status(self, item_id: str) -> str:
        return self.store.execute("SELECT status FROM prospective WHERE id = ?",
                                  [item_id]).fetchone()[0]

    def item_ops(self) -> list[tuple]:
        """(ts, op, item id, detail) of every item op, in order."""
        return [(ts, op, item, json.loads(detail)) for ts, op, item, detail in self.store.execute(
            "SELECT ts, op, entry_id, detail FROM ops WHERE op LIKE 'item-%' ORDER BY id")]

    def paths(self, text: str, include_closed: bool, day: int = 20) -> set[str]:
        result = self.vault.query(text, now=datetime(2026, 8, day), limit=50,
                                  include_closed=include_closed, log=False)
        return {hit.path for hit in result.results}


@pytest.fixture
def vault(make_vault):
    return Vault(make_vault())


def fm(**keys: str) -> str:
    return "---\n" + "".join(f"{k}: {v}\n" for k, v in keys.items()) + "---\n"


D1 = "2026-08-01T00:00:00"


# -- what is an item -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_note_with_a_prospective_type_is_a_note_level_item(vault, kind):
    vault.write("Road trip.md", fm(type=kind) + "# Road trip\nDrive north.\n")
    vault.write("Plain.md", fm(type="reference") + "# Plain\nNothing planned.\n")
    vault.index(1)
    assert vault.items() == {"p-road-trip": (kind, "note", "Road trip", "open", 0, 1)}
    assert vault.item_ops() == [(D1, "item-created", "p-road-trip",
                                 {"kind": kind, "text": "Road trip"})]


def test_the_type_is_read_case_insensitively(vault):
    vault.write("Choice.md", fm(type="Decision") + "# Choice\n")
    vault.index(1)
    assert vault.items() == {"p-choice": ("decision", "note", "Choice", "open", 0, 1)}


def test_a_note_items_created_comes_from_front_matter_then_the_index_run(vault):
    vault.write("A.md", fm(type="plan", created="2026-07-01", date="2026-07-05") + "# A\n")
    vault.write("B.md", fm(type="plan", date="2026-07-05") + "# B\n")
    vault.write("C.md", fm(type="plan") + "# C\n")
    vault.index(1)
    created = dict(vault.store.execute("SELECT id, created FROM prospective"))
    assert created == {"p-a": "2026-07-01", "p-b": "2026-07-05", "p-c": D1}


IDEAS = """\
# Ideas
- Solar roof #idea ^solar
- Move the shed #plan
* Pick a paint colour #decision
1. Why is the basement damp? #question
- [ ] Batteries age faster when hot #insight
- [x] Buy a ladder #idea
- [-] Dropped plan #plan
- Not an item: #ideas and #idea/sub are other tags
A paragraph with #idea is not a list item.

```
- Fenced list item #idea
```

~~~python
- Tilde fenced #plan
~~~
- After the fences #question
"""


def test_tagged_list_items_are_list_level_items_outside_code_fences(vault):
    vault.write("Ideas.md", IDEAS)
    vault.index(1)
    assert vault.items() == {
        "p-solar": ("idea", "list", "Solar roof", "open", 0, 1),
        "p-move-the-shed": ("plan", "list", "Move the shed", "open", 0, 1),
        "p-pick-a-paint-colour": ("decision", "list", "Pick a paint colour", "open", 0, 1),
        "p-why-is-the-basement-damp": ("question", "list", "Why is the basement damp?",
                                       "open", 0, 1),
        "p-batteries-age-faster-when-hot": ("insight", "list", "Batteries age faster when hot",
                                            "open", 0, 1),
        "p-buy-a-ladder": ("idea", "list", "Buy a ladder", "closed", 1, 1),
        "p-dropped-plan": ("plan", "list", "Dropped plan", "closed", 1, 1),
        "p-after-the-fences": ("question", "list", "After the fences", "open", 0, 1),
    }
    lines = dict(vault.store.execute("SELECT id, line FROM prospective"))
    assert lines["p-solar"] == 2 and lines["p-after-the-fences"] == 19


def test_list_item_lines_count_the_front_matter(vault):
    vault.write("Plan.md", fm(project="house") + "# Plan\n\n- Fix the gate #plan\n")
    vault.index(1)
    assert vault.store.execute("SELECT line FROM prospective").fetchall() == [(6,)]


def test_a_typed_note_can_also_hold_tagged_list_items(vault):
    vault.write("Trip.md", fm(type="plan") + "# Trip\n- Rent a van #idea\n")
    vault.index(1)
    assert vault.items() == {"p-trip": ("plan", "note", "Trip", "open", 0, 1),
                             "p-rent-a-van": ("idea", "list", "Rent a van", "open", 0, 1)}


def test_a_longer_fence_is_not_closed_by_a_shorter_one():
    text = "````\n```\n- Inside the fence #idea\n```\n````\n- Outside #idea\n"
    assert [d.text for d in list_items(text)] == ["Outside"]


def test_a_tag_inside_inline_code_does_not_make_an_item():
    assert list_items("- Document the `see #idea here` syntax\n") == []


# -- lifecycle: open -> referenced ------------------------------------------------------------

PLAN = fm(type="plan", created="2026-08-01") + "# Road trip\nDrive north.\n"


def test_a_later_note_linking_to_it_makes_it_referenced(vault):
    vault.write("Road trip.md", PLAN)
    vault.index(1)
    vault.write("Diary.md", fm(date="2026-08-05") + "# Diary\nBooked for [[Road trip]].\n", 5)
    vault.index(5)
    assert vault.status("p-road-trip") == "referenced"
    assert vault.item_ops()[-1] == ("2026-08-05T00:00:00", "item-status", "p-road-trip",
                                    {"from": "open", "to": "referenced"})
    assert vault.store.execute("SELECT last_referenced FROM prospective").fetchone() == \
        ("2026-08-05",)


def test_a_later_note_naming_its_title_makes_it_referenced(vault):
    vault.write("Road trip.md", PLAN)
    vault.index(1)
    vault.write("Diary.md", fm(created="2026-08-06") + "# Diary\nThe road trip is on.\n", 6)
    vault.index(6)
    assert vault.status("p-road-trip") == "referenced"
    assert vault.item_ops()[-1][1:] == ("item-status", "p-road-trip",
                                        {"from": "open", "to": "referenced"})


def test_an_earlier_note_does_not_reference_it(vault):
    vault.write("Road trip.md", PLAN)
    vault.write("Old.md", fm(date="2026-07-20") + "# Old\nSee [[Road trip]]; road trip.\n")
    vault.index(1)
    vault.write("Same day.md", fm(date="2026-08-01") + "# Same day\n[[Road trip]]\n", 2)
    vault.index(2)
    assert vault.status("p-road-trip") == "open"
    assert [op for _, op, _, _ in vault.item_ops()] == ["item-created"]


def test_an_undated_note_counts_from_the_run_that_indexed_it(vault):
    vault.write("Road trip.md", fm(type="plan") + "# Road trip\n")  # created = this run
    vault.write("Same run.md", "# Same run\n[[Road trip]]\n")
    vault.index(1)
    assert vault.status("p-road-trip") == "open"
    vault.write("Next run.md", "# Next run\n[[Road trip]]\n", 3)
    vault.index(3)
    assert vault.status("p-road-trip") == "referenced"


def test_a_list_item_is_referenced_through_a_block_link(vault):
    vault.write("Ideas.md", "# Ideas\n- Solar roof #idea ^solar\n- Heat pump #idea ^pump\n")
    vault.index(1)
    vault.write("Whole note.md", fm(date="2026-08-04") + "# Whole note\nSee [[Ideas]].\n", 4)
    vault.index(4)
    assert (vault.status("p-solar"), vault.status("p-pump")) == ("open", "open")
    vault.write("Quote.md", fm(date="2026-08-06") + "# Quote\nAsked about [[Ideas#^solar]].\n",
                6)
    vault.index(6)
    assert (vault.status("p-solar"), vault.status("p-pump")) == ("referenced", "open")
    assert vault.item_ops()[-1] == ("2026-08-06T00:00:00", "item-status", "p-solar",
                                    {"from": "open", "to": "referenced"})


def test_a_list_item_without_a_block_id_is_never_referenced(vault):
    vault.write("Ideas.md", "# Ideas\n- Heat pump #idea\n")
    vault.index(1)
    vault.write("Later.md", fm(date="2026-08-06") + "# Later\n[[Ideas]] heat pump\n", 6)
    vault.index(6)
    assert vault.status("p-heat-pump") == "open"


# -- lifecycle: closed, reopened, removed -------------------------------------------------------


@pytest.mark.parametrize("word", ["done", "closed"])
def test_front_matter_status_closes_a_note_item(vault, word):
    vault.write("Road trip.md", PLAN)
    vault.index(1)
    vault.write("Road trip.md", PLAN.replace("created:", f"status: {word}\ncreated:"), 3)
    vault.index(3)
    assert vault.items()["p-road-trip"] == ("plan", "note", "Road trip", "closed", 1, 1)
    assert vault.item_ops()[-1] == ("2026-08-03T00:00:00", "item-status", "p-road-trip",
                                    {"from": "open", "to": "closed"})


def test_a_note_created_closed_has_no_status_op(vault):
    vault.write("Road trip.md", PLAN.replace("created:", "status: done\ncreated:"))
    vault.index(1)
    assert vault.status("p-road-trip") == "closed"
    assert [op for _, op, _, _ in vault.item_ops()] == ["item-created"]


def test_removing_the_status_reopens_a_note_item(vault):
    vault.write("Road trip.md", PLAN.replace("created:", "status: closed\ncreated:"))
    vault.index(1)
    vault.write("Road trip.md", PLAN, 3)
    vault.index(3)
    assert vault.items()["p-road-trip"] == ("plan", "note", "Road trip", "open", 0, 1)
    assert vault.item_ops()[-1] == ("2026-08-03T00:00:00", "item-status", "p-road-trip",
                                    {"from": "closed", "to": "open"})


def test_a_referenced_item_closes_and_reopens_to_referenced(vault):
    vault.write("Road trip.md", PLAN)
    vault.write("Diary.md", fm(date="2026-08-02") + "# Diary\n[[Road trip]]\n")
    vault.index(2)
    assert vault.status("p-road-trip") == "referenced"
    vault.write("Road trip.md", PLAN.replace("created:", "status: done\ncreated:"), 3)
    vault.index(3)
    vault.write("Road trip.md", PLAN, 4)
    vault.index(4)
    assert [(ts[:10], d) for ts, op, _, d in vault.item_ops() if op == "item-status"] == [
        ("2026-08-02", {"from": "open", "to": "referenced"}),
        ("2026-08-03", {"from": "referenced", "to": "closed"}),
        ("2026-08-04", {"from": "closed", "to": "open"}),
        ("2026-08-04", {"from": "open", "to": "referenced"}),
    ]
    assert vault.status("p-road-trip") == "referenced"


def test_checking_and_unchecking_a_task_closes_and_reopens_a_list_item(vault):
    vault.write("Ideas.md", "# Ideas\n- [ ] Heat pump #idea\n")
    vault.index(1)
    vault.write("Ideas.md", "# Ideas\n- [x] Heat pump #idea\n", 2)
    vault.index(2)
    assert vault.items()["p-heat-pump"] == ("idea", "list", "Heat pump", "closed", 1, 1)
    vault.write("Ideas.md", "# Ideas\n- [ ] Heat pump #idea\n", 3)
    vault.index(3)
    assert vault.items()["p-heat-pump"] == ("idea", "list", "Heat pump", "open", 0, 1)
    assert vault.item_ops() == [
        (D1, "item-created", "p-heat-pump", {"kind": "idea", "text": "Heat pump"}),
        ("2026-08-02T00:00:00", "item-status", "p-heat-pump", {"from": "open", "to": "closed"}),
        ("2026-08-03T00:00:00", "item-status", "p-heat-pump", {"from": "closed", "to": "open"}),
    ]


def test_an_item_that_leaves_its_note_is_removed_not_deleted(vault):
    vault.write("Road trip.md", PLAN)
    vault.write("Ideas.md", "# Ideas\n- Solar roof #idea\n- Heat pump #idea\n")
    vault.index(1)
    vault.write("Road trip.md", PLAN.replace("type: plan", "type: log"), 2)
    vault.write("Ideas.md", "# Ideas\n- Heat pump #idea\n", 2)
    vault.index(2)
    items = vault.items()
    assert items["p-road-trip"][-1] == 0 and items["p-solar-roof"][-1] == 0
    assert items["p-heat-pump"][-1] == 1
    removed = [(ts, item) for ts, op, item, _ in vault.item_ops() if op == "item-removed"]
    assert sorted(removed) == [("2026-08-02T00:00:00", "p-road-trip"),
                               ("2026-08-02T00:00:00", "p-solar-roof")]
    assert {r["id"] for r in item_list(vault.store, include_closed=True).results} == \
        {"p-heat-pump"}


def test_deleting_the_note_removes_its_items(vault):
    vault.write("Road trip.md", PLAN + "- Rent a van #idea\n")
    vault.write("Other.md", "# Other\n")
    vault.index(1)
    vault.remove("Road trip.md")
    vault.index(2)
    assert item_list(vault.store, include_closed=True).results == []
    removed = {item for _, op, item, _ in vault.item_ops() if op == "item-removed"}
    assert removed == {"p-road-trip", "p-rent-a-van"}


# -- lifecycle: stale ----------------------------------------------------------------------------


def test_an_item_goes_stale_after_stale_days_without_reference(vault):
    vault.write("Road trip.md", PLAN)  # created 2026-08-01
    vault.index(1)
    assert vault.settings.stale_days == 90
    assert refresh_lifecycle(vault.store, vault.settings, datetime(2026, 10, 30)) == 0  # 90 d
    assert vault.status("p-road-trip") == "open"
    assert refresh_lifecycle(vault.store, vault.settings, datetime(2026, 10, 31)) == 1  # 91 d
    assert vault.items()["p-road-trip"] == ("plan", "note", "Road trip", "stale", 0, 1)
    assert vault.item_ops()[-1] == ("2026-10-31T00:00:00", "item-status", "p-road-trip",
                                    {"from": "open", "to": "stale"})
    assert refresh_lifecycle(vault.store, vault.settings, datetime(2026, 11, 5)) == 0


def test_staleness_counts_from_the_last_reference(vault):
    vault.write("Road trip.md", PLAN)
    vault.write("Diary.md", fm(date="2026-08-10") + "# Diary\n[[Road trip]]\n")
    vault.index(1)
    assert vault.status("p-road-trip") == "referenced"
    refresh_lifecycle(vault.store, vault.settings, datetime(2026, 11, 5))  # 96 d after created
    assert vault.status("p-road-trip") == "referenced"  # but only 87 after the reference
    refresh_lifecycle(vault.store, vault.settings, datetime(2026, 11, 9))  # 91 days after
    assert vault.item_ops()[-1][1:] == ("item-status", "p-road-trip",
                                        {"from": "referenced", "to": "stale"})


def test_a_stale_item_referenced_again_comes_back(vault):
    vault.write("Road trip.md", PLAN)
    vault.index(1)
    refresh_lifecycle(vault.store, vault.settings, datetime(2026, 11, 20))
    assert vault.status("p-road-trip") == "stale"
    vault.write("Diary.md", fm(date="2026-11-30") + "# Diary\n[[Road trip]]\n", 2)
    vault.index(datetime(2026, 11, 30))
    assert vault.items()["p-road-trip"] == ("plan", "note", "Road trip", "referenced", 0, 1)
    assert vault.item_ops()[-1] == ("2026-11-30T00:00:00", "item-status", "p-road-trip",
                                    {"from": "stale", "to": "referenced"})


def test_a_closed_item_never_goes_stale(vault):
    vault.write("Road trip.md", PLAN.replace("created:", "status: done\ncreated:"))
    vault.index(1)
    assert refresh_lifecycle(vault.store, vault.settings, datetime(2027, 8, 1)) == 0
    assert vault.status("p-road-trip") == "closed"


def test_stale_days_comes_from_config(make_vault):
    v = Vault(make_vault(config_toml="stale_days = 10\n"))
    v.write("Road trip.md", PLAN)
    v.write("Ideas.md", "# Ideas\n- Heat pump #idea\n")  # created by the run of Aug 1
    v.index(1)
    assert v.settings.stale_days == 10
    assert refresh_lifecycle(v.store, v.settings, datetime(2026, 8, 11)) == 0
    assert refresh_lifecycle(v.store, v.settings, datetime(2026, 8, 11, 1)) == 2
    assert (v.status("p-road-trip"), v.status("p-heat-pump")) == ("stale", "stale")


def test_an_index_run_refreshes_the_lifecycle(make_vault):
    v = Vault(make_vault(config_toml="stale_days = 10\n"))
    v.write("Road trip.md", PLAN)
    v.index(1)
    v.write("Unrelated.md", "# Unrelated\n", 20)
    v.index(20)
    assert v.status("p-road-trip") == "stale"


def test_the_salience_job_refreshes_the_lifecycle(vault):
    vault.write("Road trip.md", PLAN)
    vault.index(1)
    run_salience(vault.store, vault.settings, datetime(2026, 10, 30))
    assert vault.status("p-road-trip") == "open"
    run_salience(vault.store, vault.settings, datetime(2026, 11, 15))
    assert vault.status("p-road-trip") == "stale"
    assert vault.item_ops()[-1] == ("2026-11-15T00:00:00", "item-status", "p-road-trip",
                                    {"from": "open", "to": "stale"})
    # Archived, never deleted: the note keeps its salience row.
    assert vault.store.execute("SELECT count(*) FROM salience s JOIN notes n ON n.id = s.note_id "
                               "WHERE n.path = 'Road trip.md'").fetchone() == (1,)


# -- filters -------------------------------------------------------------------------------------

GARDEN = {
    "Open plan.md": fm(type="plan", created="2026-08-01") + "# Open plan\nGarden beds.\n",
    "Done plan.md": fm(type="plan", created="2026-08-01", status="done") +
    "# Done plan\nGarden fence.\n",
    "Stale idea.md": fm(type="idea", created="2026-01-01") + "# Stale idea\nGarden pond.\n",
    "Journal.md": "# Journal\nGarden notes.\n- [x] Old garden shed #idea\n",
    "Reference.md": fm(type="reference") + "# Reference\nGarden soil.\n",
}


@pytest.fixture
def garden(vault):
    for rel, text in GARDEN.items():
        vault.write(rel, text)
    vault.index(1)
    refresh_lifecycle(vault.store, vault.settings, datetime(2026, 8, 20))
    return vault


def test_closed_and_stale_note_items_are_left_out_of_queries(garden):
    assert (garden.status("p-done-plan"), garden.status("p-stale-idea")) == ("closed", "stale")
    assert garden.paths("garden", include_closed=False) == \
        {"Open plan.md", "Journal.md", "Reference.md"}


def test_include_closed_brings_them_back(garden):
    assert garden.paths("garden", include_closed=True) == set(GARDEN)


def test_a_closed_list_item_does_not_hide_its_note(garden):
    assert garden.status("p-old-garden-shed") == "closed"
    assert "Journal.md" in garden.paths("garden shed", include_closed=False)


def test_the_filter_follows_the_lifecycle(garden):
    garden.write("Done plan.md", GARDEN["Done plan.md"].replace("status: done\n", ""), 21)
    garden.index(21)
    assert "Done plan.md" in garden.paths("garden", include_closed=False)


def test_item_list_filters_closed_and_stale(garden):
    shown = item_list(garden.store, include_closed=False).results
    assert [(r["id"], r["status"], r["path"]) for r in shown] == [("p-open-plan", "open",
                                                                   "Open plan.md")]
    everything = item_list(garden.store, include_closed=True).results
    assert {(r["id"], r["kind"], r["status"]) for r in everything} == {
        ("p-open-plan", "plan", "open"), ("p-done-plan", "plan", "closed"),
        ("p-stale-idea", "idea", "stale"), ("p-old-garden-shed", "idea", "closed")}
    assert set(everything[0].as_dict()) == {"id", "kind", "status", "text", "path", "line",
                                            "created", "last_referenced"}


# -- no demotion for age -------------------------------------------------------------------------


def test_a_prospective_items_salience_does_not_decay_with_file_age(vault):
    now = datetime(2026, 8, 20)
    ages = {"Plan new.md": 1, "Plan old.md": 400, "Note new.md": 1, "Note old.md": 400}
    for rel, age in ages.items():
        head = fm(type="plan") if rel.startswith("Plan") else ""
        path = vault.root / rel
        path.write_text(head + f"# {rel[:-3]}\nSome text.\n", encoding="utf-8")
        stamp = (now - timedelta(days=age)).timestamp()
        os.utime(path, (stamp, stamp))
    vault.index(19)
    run_salience(vault.store, vault.settings, now)
    score = dict(vault.store.execute(
        "SELECT n.path, s.score FROM salience s JOIN notes n ON n.id = s.note_id"))
    assert score["Plan new.md"] == pytest.approx(score["Plan old.md"], abs=1e-12)
    assert score["Note new.md"] > score["Note old.md"]
    # Items keep the timeless components only, re-weighted: (0.30·1 + 0.20·1 + 0.15·0) / 0.65
    assert score["Plan new.md"] == pytest.approx(0.5 / 0.65)
