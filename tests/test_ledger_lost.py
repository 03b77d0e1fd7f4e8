"""Lines `ledger add` appended that an editor saved over (it held an older copy of the
ledger): noticed, named by `status` and `ledger`, offered back, never re-added silently."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from vaultmem import appended
from vaultmem.interfaces.cli import main
from vaultmem.schema import SCHEMA

NOW = datetime(2026, 8, 15, 9, 0)
LEDGER = "# Ledger\n\n- [ ] Pay the plumber 📅 2026-08-15\n- [ ] Call mum ^mum\n"


def _vault(make_vault):
    return make_vault({"Home.md": "# Home\n"}, ledger=LEDGER, index_at=NOW)


def _ledger_path(vault):
    return vault.settings.vault / "Ledger.md"


def _index(vault, step: int):
    return vault.index(now=NOW + timedelta(minutes=step))


def _lost(vault) -> list[str]:
    return [x["id"] for x in vault.ledger().as_dict()["lost"]]


def test_a_line_saved_over_by_a_stale_editor_is_named_and_offered_back(make_vault, capsys):
    """Before: the acknowledged line was simply gone (the probe lost 6 of 20 in a race),
    with no word anywhere."""
    vault = _vault(make_vault)
    path = _ledger_path(vault)
    editor_copy = path.read_text()  # the editor opened the ledger before the add
    added = vault.add_commitment("Book the tiler")
    _index(vault, 1)
    assert _lost(vault) == []
    path.write_text(editor_copy.replace("- [ ] Call mum", "- [x] Call mum"))  # saved over
    report = _index(vault, 2)
    messages = [m for p, _, m in report.warnings if p == "Ledger.md"]
    assert any(m.startswith(f"appended {added.id} on ") and "gone on" in m
               and f"`vaultmem ledger restore {added.id}`" in m for m in messages), messages
    assert _lost(vault) == [added.id]
    lost = vault.ledger().as_dict()["lost"][0]
    assert (lost["ledger"], lost["text"]) == ("Ledger.md", added.text)
    assert any(w["path"] == "Ledger.md" and f"ledger restore {added.id}" in w["message"]
               for w in vault.status().as_dict()["warnings"])
    assert added.text not in path.read_text()  # never re-added silently

    assert main(["ledger", "restore", added.id, "--vault", str(vault.settings.vault)]) == 0
    assert capsys.readouterr().out.strip() == added.id
    assert path.read_text().endswith(added.text + "\n")
    _index(vault, 3)
    assert _lost(vault) == []
    kinds = [r["kind"] for r in vault.history(added.id).as_dict()["revisions"]]
    assert kinds == ["created", "removed", "reopened"]
    assert not any("restore" in w["message"] for w in vault.status().as_dict()["warnings"])


def test_a_line_never_indexed_before_the_editor_saved_is_lost_too(make_vault):
    vault = _vault(make_vault)
    path = _ledger_path(vault)
    editor_copy = path.read_text()
    added = vault.add_commitment("Book the tiler")
    path.write_text(editor_copy + "- [ ] Typed in the editor\n")
    _index(vault, 1)
    assert _lost(vault) == [added.id]
    restored = vault.restore(added.id)
    assert restored.as_dict() == {"schema": SCHEMA, "id": added.id, "action": "restored",
                                  "ledger": "Ledger.md", "line": 6, "text": added.text}
    _index(vault, 2)
    assert _lost(vault) == [] and added.id in {e["id"] for e in vault.ledger().as_dict()["results"]}


def test_drop_forgets_a_line_removed_on_purpose(make_vault, capsys):
    vault = _vault(make_vault)
    path = _ledger_path(vault)
    added = vault.add_commitment("Book the tiler")
    _index(vault, 1)
    path.write_text(LEDGER)  # deleted by hand, on purpose
    _index(vault, 2)
    assert _lost(vault) == [added.id]
    root = str(vault.settings.vault)
    assert main(["ledger", "restore", added.id, "--drop", "--json", "--vault", root]) == 0
    assert '"action": "dropped"' in capsys.readouterr().out
    assert _lost(vault) == [] and path.read_text() == LEDGER
    assert main(["ledger", "restore", added.id, "--vault", root]) == 1
    assert "is not lost (it is dropped)" in capsys.readouterr().err
    assert main(["ledger", "restore", "c-nothing", "--vault", root]) == 1
    assert "no line appended by vaultmem has the id 'c-nothing'" in capsys.readouterr().err


def test_a_line_the_user_made_their_own_is_no_longer_watched(make_vault):
    """Checked off (or reworded) by the user, the line is theirs: deleting it later is
    their business, not a loss."""
    vault = _vault(make_vault)
    path = _ledger_path(vault)
    added = vault.add_commitment("Book the tiler")
    _index(vault, 1)
    path.write_text(path.read_text().replace("- [ ] Book the tiler", "- [x] Book the tiler"))
    _index(vault, 2)
    path.write_text(LEDGER)
    _index(vault, 3)
    assert _lost(vault) == []
    state = vault.store.execute("SELECT state FROM appended WHERE id = ?", [added.id])
    assert state.fetchone() == ("kept",)


def test_a_read_from_before_the_append_does_not_judge_it(make_vault):
    """A run that read the ledger just before the line was appended (`watch` indexing
    while `ledger add` writes) must not call it lost."""
    from vaultmem.ledger_append import add

    vault = _vault(make_vault)
    added = add(vault.settings.vault, "Ledger.md", "Book the tiler")  # not indexed yet
    appended.remember(vault.store, added, "2026-08-15T09:00:30")
    at = vault.store.execute("SELECT mtime_ns FROM appended WHERE id = ?",
                             [added.id]).fetchone()[0]
    with vault.store.atomic():
        found = appended.check(vault.store, "Ledger.md", [], (at - 1, "other"),
                               "2026-08-15T09:01:00")
    assert found == []
    assert vault.store.execute("SELECT state FROM appended").fetchone() == ("waiting",)


def test_a_race_of_adds_and_stale_saves_loses_nothing_unseen(make_vault):
    """Twenty adds; an editor that now and then saves the copy it opened a while ago
    (with an edit of its own). Every line the ledger lost is named, and put back."""
    vault = _vault(make_vault)
    path = _ledger_path(vault)
    rng = random.Random(20)
    editor_copy = path.read_text()
    ids = []
    for step in range(20):
        if rng.random() < 0.3:
            editor_copy = path.read_text()  # the editor reloads
        ids.append(vault.add_commitment(f"Task number {step} to do").id)
        if rng.random() < 0.3:
            path.write_text(editor_copy + f"- [ ] Editor note {step}\n")  # a stale save
            editor_copy = path.read_text()
        if rng.random() < 0.5:
            _index(vault, step + 1)
    _index(vault, 30)
    text = path.read_text()
    missing = [i for i in ids if f"^{i}" not in text]
    assert missing, "the race lost nothing: pick another seed"
    assert sorted(_lost(vault)) == sorted(missing)
    for entry_id in missing:
        vault.restore(entry_id)
    _index(vault, 31)
    assert _lost(vault) == []
    present = {e["id"] for e in vault.ledger().as_dict()["results"]}
    assert set(ids) <= present


def test_a_save_in_the_same_clock_tick_as_the_append_is_still_judged(make_vault):
    """File times are coarse: an editor's save right after the append can carry the very
    same modification time. Other bytes than the append wrote are a later save."""
    import os

    vault = _vault(make_vault)
    path = _ledger_path(vault)
    added = vault.add_commitment("Book the tiler")
    at = vault.store.execute("SELECT mtime_ns FROM appended WHERE id = ?",
                             [added.id]).fetchone()[0]
    path.write_text(LEDGER + "- [ ] Typed in the editor\n")
    os.utime(path, ns=(at, at))
    _index(vault, 1)
    assert _lost(vault) == [added.id]
