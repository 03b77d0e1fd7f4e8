"""The terminal views, through the real CLI on a store built with the fake embedder.

Commands that never embed (ledger, ledger show, nudge, get, status) run here without
the model; widths are fixed with COLUMNS so wrapping is what a user at 80 columns sees.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from vaultmem import Vault
from vaultmem.interfaces import render
from vaultmem.interfaces.cli import main

from .conftest import FakeEmbedder

LEDGER = """\
# Ledger

- [ ] Pay the plumber invoice for the shower valve and the extra call-out 📅 2026-08-15 [[Plumber]]
- [ ] Reconcile the vendor quote against the June estimate [when:: vendor quote arrives] [[Plumber]]
"""  # noqa: E501


@pytest.fixture
def root(make_vault, monkeypatch):
    vault = make_vault({"Plumber.md": "# Plumber\nTomasz, the valve.\n"}, ledger=LEDGER,
                       index_at=datetime(2026, 8, 1))
    root = vault.settings.vault
    (root / "Ledger.md").write_text(LEDGER.replace("2026-08-15", "2026-08-20"), encoding="utf-8")
    vault.index(now=datetime(2026, 8, 2))
    vault.close()
    monkeypatch.setattr(render, "_out_console", None)
    monkeypatch.setattr(render, "_err_console", None)
    return root


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("columns", ["80", "120"])
def test_ledger_ids_never_wrap(root, capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    code, out, _ = run(capsys, "ledger", "--vault", root)
    assert code == 0
    assert "c-pay-plumber-invoice-shower" in out  # whole, on one line
    assert "c-reconcile-vendor-quote-against" in out


@pytest.mark.parametrize("columns", ["80", "120"])
def test_ledger_view_never_splits_a_word_and_names_notes_as_obsidian_does(
        root, capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    code, out, _ = run(capsys, "ledger", "--vault", root)
    assert code == 0
    words = set(out.split())
    assert {"Reconcile", "vendor", "quote", "against", "estimate", "call-out"} <= words
    assert "Plumber" in words and "Plumber.md" not in out


def test_ledger_show_reads_as_sentences_not_json(root, capsys):
    code, out, _ = run(capsys, "ledger", "show", "c-pay-plumber-invoice-shower", "--vault", root)
    assert code == 0
    assert "rescheduled" in out and "2026-08-15 → 2026-08-20" in out
    assert "{" not in out


def test_nudge_verbose_says_why_it_is_silent(root, capsys):
    code, out, err = run(capsys, "nudge", "--vault", root, "--now", "2026-08-03T23:30")
    assert (code, out, err) == (0, "", "")
    code, out, err = run(capsys, "nudge", "--vault", root, "--now", "2026-08-03T23:45",
                         "--verbose")
    assert code == 0 and out == ""
    assert err.startswith("silent: quiet hours")


def test_get_shows_the_note_its_links_and_its_commitments(root, capsys):
    code, out, _ = run(capsys, "get", "Plumber", "--vault", root)
    assert code == 0
    assert out.splitlines()[0].startswith("Plumber  Plumber.md (indexed)")
    assert "commitment c-pay-plumber-invoice-shower (open)" in out
    assert "linked from ← Ledger.md" in out
    assert out.endswith("# Plumber\nTomasz, the valve.\n")


def test_explain_reads_as_a_worked_sum(root, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    with Vault.open(root, embedder=FakeEmbedder()) as v:
        v.salience(now=datetime(2026, 8, 20))
        result = v.query("plumber valve", now=datetime(2026, 8, 20), explain=True, log=False)
    render.query_result(result, as_json=False, explain=True)
    out = capsys.readouterr().out
    assert "relevance" in out and "= meaning" in out and "+ words" in out
    assert "higher is better" in out
    assert "score" in out and "× (1 + 0.3 × salience" in out
    assert "salience" in out and "importance" in out
    assert "fires c-pay-plumber-invoice-shower (ambient): overdue since 2026-08-20" not in out
    assert "dense_rank=" not in out and "components=" not in out  # no raw dicts
    top = result.results[0].explain
    total = top["dense_term"] + top["lexical_term"]
    assert total == pytest.approx(top["relevance"], abs=2e-4)


def test_ledger_names_notes_by_path_where_two_share_a_name(tmp_path, capsys, monkeypatch):
    root = tmp_path / "v"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    (root / "a" / "Plan.md").write_text("# Plan\n")
    (root / "b" / "Plan.md").write_text("# Plan\n")
    (root / "Ledger.md").write_text("- [ ] One [[a/Plan]] 📅 2026-08-01\n"
                                    "- [ ] Two [[b/Plan]] 📅 2026-08-02\n")
    with Vault.open(root, create=True, embedder=FakeEmbedder()) as v:
        v.index(now=datetime(2026, 7, 1))
    monkeypatch.setattr(render, "_out_console", None)
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, "ledger", "--vault", root)
    assert code == 0 and "a/Plan.md" in out and "b/Plan.md" in out


def test_ledger_show_names_the_date_a_move_changed(make_vault, capsys, monkeypatch):
    v = make_vault(ledger="- [ ] Start the taper 🛫 2026-09-20 📅 2026-10-04\n",
                   index_at=datetime(2026, 9, 1))
    v.reschedule_commitment("c-start-taper", "2026-10-11", now=datetime(2026, 9, 2))
    monkeypatch.setattr(render, "_out_console", None)
    code, out, _ = run(capsys, "ledger", "show", "c-start-taper", "--vault", v.settings.vault)
    assert code == 0
    assert "rescheduled  due 2026-10-04 → 2026-10-11" in out
    assert "2026-09-20 → 2026-09-20" not in out


def test_ledger_views_show_control_characters_instead_of_sending_them(make_vault, capsys,
                                                                       monkeypatch, fake_model):
    line = "- [ ] Pay \x1b[2J\x1b]0;owned\x07 the \u202eplumber\x9b 📅 2026-08-20 [[Plumber]]\n"
    v = make_vault({"Plumber.md": "# Plumber\n"}, ledger=line, index_at=datetime(2026, 8, 1))
    ident = v.ledger().results[0].id
    monkeypatch.setattr(render, "_out_console", None)
    for columns in ("80", "120"):
        monkeypatch.setenv("COLUMNS", columns)
        for args in (["ledger"], ["ledger", "show", ident]):
            code, out, _ = run(capsys, *args, "--vault", v.settings.vault)
            assert code == 0
            assert not {"\x1b", "\x07", "\x9b", "\u202e"} & set(out), out
            assert "\\x1b" in out  # shown, not sent
    code, out, err = run(capsys, "ledger", "done", ident, "--vault", v.settings.vault,
                         "--now", "2026-08-02")
    assert code == 0 and "\\x1b[2J" in err
    assert not {"\x1b", "\x07", "\x9b", "\u202e"} & set(out + err)


def test_ledger_show_of_an_undated_occurrence_says_undated(make_vault, capsys, monkeypatch):
    v = make_vault(ledger="- [ ] Meditate 🔁 every day\n", index_at=datetime(2026, 8, 14))
    v.complete_commitment("c-meditate", now=datetime(2026, 8, 16))
    monkeypatch.setattr(render, "_out_console", None)
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "ledger", "show", "c-meditate", "--vault", v.settings.vault)
    assert code == 0
    assert ("occurrence-done  done on 2026-08-16; next undated (🔁 every day); kept as "
            "c-meditate-2026-08-16") in out
    assert "None" not in out


def test_the_narrow_ledger_view_keeps_a_note_name_with_a_comma_whole(capsys, monkeypatch):
    """At 80 columns an entry's notes follow its action, a line breaking between two notes
    and never inside one. Before: the names were joined with ", " and split again at
    ", ", so "Smith, John" was two items and a line could end at "Smith,"."""
    from types import SimpleNamespace

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr(render, "_out_console", None)
    for length in range(50, 76):  # wherever the action ends, the name moves as one
        row = {"id": "c-call", "status": "open", "due": None, "fires_from": None,
               "condition": None, "recurrence": None, "revisions": 1, "unresolved": [],
               "action": ("Call about the boiler " * 4)[:length].strip(),
               "notes": ["People/Smith, John.md", "Boiler.md"]}
        capsys.readouterr()
        render.ledger_list(SimpleNamespace(results=[row], lost=[]), as_json=False)
        out = capsys.readouterr().out
        assert "Smith, John," in out, (length, out)
        assert not [line for line in out.splitlines() if line.rstrip().endswith("Smith,")], \
            (length, out)
