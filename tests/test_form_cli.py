"""Form end to end through the real CLI with the real model: a commitment written in
passing, suggested, accepted, indexed, fires exactly like the same line written by hand."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from vaultmem.interfaces.cli import main
from vaultmem.schema import SCHEMA

from .conftest import write_files

pytestmark = pytest.mark.integration

NOTES = {
    "daily/2026-03-04.md": (
        "# Wednesday\n\nTomasz came to look at the bathroom. The mixer valve behind the "
        "tiles is corroded. He can fit a new one on the 24th, but only if I confirm and "
        "transfer the £180 parts deposit by the 20th.\n\nLunch with Priya, great ramen.\n"),
    "daily/2026-03-05.md": "# Thursday\n\nRhubarb crumble, too sweet. Less sugar next time.\n",
    "daily/2026-03-06.md": "# Friday\n\n5k along the canal, legs heavy.\n",
    "Tomasz.md": "# Tomasz\n\nPlumber. Polish, very tidy work.\n",
}
HAND_WRITTEN = ("# Ledger\n\n- [ ] Confirm and transfer the £180 parts deposit [[2026-03-04]] "
                "📅 2026-03-20 ^c-confirm-transfer-180-parts\n")
QUERY = "brown stain on the living room ceiling under the shower, what should I deal with?"


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def cli_json(capsys, *args):
    code, out, err = cli(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def make(root: Path, ledger: str | None) -> Path:
    write_files(root, NOTES, datetime(2026, 3, 6, 12))
    return write_files(root, {"Ledger.md": ledger} if ledger is not None else {})


def firing_view(capsys, vault: Path) -> dict:
    """What fires on 21 March and the whole ranking it gives, minus the entry's id."""
    now = ("--now", "2026-03-21")
    due = cli_json(capsys, "due", "--vault", vault, *now)["results"]
    query = cli_json(capsys, "query", QUERY, "--vault", vault, "--no-log", "-k", "10", *now)
    return {
        "due": [(d["action"], d["group"], d["why"], d["notes"]) for d in due],
        "ranking": [(r["rank"], r["path"], r["score"], r["firing"],
                     [(c["action"], c["why"]) for c in r["commitments"]])
                    for r in query["results"]],
    }


def test_an_accepted_suggestion_fires_like_a_hand_written_entry(tmp_path, capsys):
    found = make(tmp_path / "found", None)
    cli_json(capsys, "index", found, "--now", "2026-03-06T10:00")
    suggested = cli_json(capsys, "ledger", "suggest", "--vault", found)["results"]
    assert [s["proposed"] for s in suggested] == [
        "- [ ] Confirm and transfer the £180 parts deposit [[2026-03-04]] 📅 2026-03-20 "
        "^c-confirm-transfer-180-parts"]
    assert not (found / "Ledger.md").exists()  # suggesting wrote nothing
    accepted = cli_json(capsys, "ledger", "accept", suggested[0]["id"], "--vault", found,
                        "--now", "2026-03-06T10:05")
    assert accepted["results"][0]["text"] == suggested[0]["proposed"]
    assert cli_json(capsys, "ledger", "suggest", "--vault", found)["results"] == []

    hand = make(tmp_path / "hand", HAND_WRITTEN)
    cli_json(capsys, "index", hand, "--now", "2026-03-06T10:00")

    assert (found / "Ledger.md").read_text(encoding="utf-8") == HAND_WRITTEN
    accepted_view, hand_view = firing_view(capsys, found), firing_view(capsys, hand)
    assert accepted_view == hand_view
    assert accepted_view["due"][0][1] == "overdue"
    source = next(r for r in accepted_view["ranking"] if r[1] == "daily/2026-03-04.md")
    assert source[3] is True and source[4] == [
        ("Confirm and transfer the £180 parts deposit", "overdue since 2026-03-20")]


def test_suggest_accept_reject_speak_to_people_on_the_terminal(tmp_path, capsys):
    vault = make(tmp_path / "v", None)
    (vault / "daily/2026-03-05.md").write_text(
        "Need to renew the passport before [[Lisbon]].\n\nTODO: book the dentist\n",
        encoding="utf-8")
    cli_json(capsys, "index", vault, "--now", "2026-03-06T10:00")
    code, out, err = cli(capsys, "ledger", "suggest", "--vault", vault)
    assert code == 0
    assert "- [ ] Renew the passport [when:: before Lisbon] [[2026-03-05]] [[Lisbon]] " \
           "^c-renew-passport" in out
    assert "3 suggestion(s)" in err
    code, out, err = cli(capsys, "ledger", "reject", "f-book-dentist", "--vault", vault)
    assert (code, out) == (0, "") and "f-book-dentist rejected" in err
    code, out, err = cli(capsys, "ledger", "accept", "f-renew-passport", "--vault", vault,
                         "--edit", "Renew my passport")
    assert (code, out) == (0, "c-renew-passport\n") and "Ledger.md:3" in err
    code, _, err = cli(capsys, "ledger", "accept", "f-nope", "--vault", vault)
    assert code == 1 and err == ("vaultmem: no candidate 'f-nope': `vaultmem ledger suggest` "
                                 "lists them\n")
    code, _, err = cli(capsys, "ledger", "suggest", "--since", "March", "--vault", vault)
    assert code == 2 and "--since" in err


def test_suggest_json_is_the_librarys_as_dict(tmp_path, capsys):
    from vaultmem import Vault

    vault = make(tmp_path / "v", None)
    cli_json(capsys, "index", vault, "--now", "2026-03-06T10:00")
    with Vault.open(vault) as v:
        expected = v.suggestions().as_dict()
    assert cli_json(capsys, "ledger", "suggest", "--vault", vault) == expected
    assert expected["schema"] == SCHEMA and len(expected["results"]) == 1
