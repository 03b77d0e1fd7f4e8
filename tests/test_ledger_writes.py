"""Writing to the ledger (`ledger add`, `add_commitment`, `ledger_append.safe_write`):
nothing outside the vault, no byte that hides the ledger, no line that can never be read,
no entry lost.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import anyio
import pytest
from mcp import Client

from vaultmem import ledger_append
from vaultmem.errors import UsageError, VaultmemError
from vaultmem.interfaces.cli import main
from vaultmem.interfaces.mcp_server import Service, build
from vaultmem.ledger import parse_ledger
from vaultmem.ledger_reconcile import MAX_ID_CHARS

from .conftest import FakeEmbedder

NOW = datetime(2026, 8, 15, 9, 0)
LEDGER = ("# Ledger\n\n- [ ] Pay the plumber 📅 2026-08-15 [[Plumber]]\n"
          "- [ ] Call mum ^mum\n")
FILES = {"Plumber.md": "# Plumber\n\nTomasz.\n"}

# One of each kind of C0 control character (tab aside), DEL and a C1 control.
CONTROLS = ["\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\n", "\r", "\x1b", "\x1f",
            "\x7f", "\x85"]


def _vault(make_vault, ledger: str = LEDGER):
    return make_vault(FILES, ledger=ledger, index_at=NOW)


def _cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# -- 2. control characters, and a ledger where a new line could never be read -------------

@pytest.mark.parametrize("char", CONTROLS)
@pytest.mark.parametrize("field", ["text", "--when", "--link", "--project"])
def test_ledger_add_refuses_a_control_character_in_every_field(make_vault, capsys, field,
                                                               char):
    """Before: a NUL in the text was written; the next index took Ledger.md for a binary
    file and marked every commitment removed."""
    vault = _vault(make_vault)
    root = vault.settings.vault
    before = (root / "Ledger.md").read_bytes()
    bad = f"bad{char}value"
    args = ["ledger", "add", "--vault", root]
    args += [bad] if field == "text" else ["Fine text", field, bad]
    code, _, err = _cli(capsys, *args)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1
    assert ("control character" in err and f"U+{ord(char):04X}" in err) or (
        field != "text" and char in "\n\r" and "without brackets" in err), err
    assert (root / "Ledger.md").read_bytes() == before
    vault.index(now=NOW)
    assert {e["id"] for e in vault.ledger().as_dict()["results"]} == {"c-pay-plumber", "mum"}


def test_add_commitment_over_mcp_refuses_a_nul(make_vault):
    vault = _vault(make_vault)
    root = vault.settings.vault
    service = Service(root, None, watch=False, embedder=FakeEmbedder())

    async def run():
        async with Client(build(service)) as client:
            return await client.call_tool("add_commitment", {"text": "Evil\x00 NUL",
                                                             "links": ["Plumber"]})

    try:
        result = anyio.run(run)
    finally:
        assert service.close(timeout=30)
    assert result.is_error and "control character (U+0000" in result.content[0].text
    assert b"\x00" not in (root / "Ledger.md").read_bytes()


def test_a_ledger_with_a_nul_keeps_its_entries(make_vault):
    """A NUL written by hand (or by an older vaultmem): the index cannot read the ledger,
    so it knows nothing new about its entries and removes none."""
    vault = _vault(make_vault)
    root = vault.settings.vault
    with open(root / "Ledger.md", "ab") as fh:
        fh.write(b"- [ ] Evil\x00 NUL\n")
    report = vault.index(now=NOW)
    assert any("kept as they were" in m for p, _, m in report.warnings if p == "Ledger.md")
    results = vault.ledger().as_dict()["results"]
    assert {(e["id"], e["status"]) for e in results} == {("c-pay-plumber", "open"),
                                                         ("mum", "open")}
    removed = vault.store.execute("SELECT count(*) FROM ops WHERE op = 'removed'").fetchone()
    assert removed[0] == 0
    with pytest.raises(VaultmemError, match="NUL byte"):
        vault.add_commitment("Another one")


@pytest.mark.parametrize("tail", ["```\nsome code\n", "~~~python\ncode\n", "<!--\na comment\n",
                                  "%%\nhidden\n", "Some text %% an open comment\n",
                                  "<div>\nraw html without a blank line after\n"])
def test_ledger_add_refuses_a_ledger_that_ends_inside_an_unclosed_block(
        make_vault, capsys, tail):
    """Before: "added to Ledger.md:8" for a line inside an unclosed fence or comment,
    which the index can never read."""
    vault = _vault(make_vault, LEDGER + tail)
    root = vault.settings.vault
    before = (root / "Ledger.md").read_bytes()
    code, _, err = _cli(capsys, "ledger", "add", "Book the tiler", "--vault", root)
    assert code == 1, err
    assert "would not be read as a ledger entry" in err and "nothing written" in err
    assert (root / "Ledger.md").read_bytes() == before
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


def test_safe_write_refuses_a_write_that_loses_an_entry(make_vault):
    """The one safe write refuses any new text that would drop or change an entry not
    named as replaced (a line rewrite such as `ledger done` goes through it too)."""
    vault = _vault(make_vault)
    root = vault.settings.vault
    ledger = ledger_append.read_ledger(root, "Ledger.md")
    dropped = ledger.before.replace(b"- [ ] Call mum ^mum\n", b"")
    with pytest.raises(VaultmemError, match="would change or hide 1 entry"):
        ledger_append.safe_write(ledger, dropped)
    hidden = ledger.before.replace(b"- [ ] Call mum", b"<!--\n- [ ] Call mum") + b"-->\n"
    with pytest.raises(VaultmemError, match="would change or hide"):
        ledger_append.safe_write(ledger, hidden)
    extra = ledger.before + b"- [ ] Sneaked in\n"
    with pytest.raises(VaultmemError, match="nobody asked for"):
        ledger_append.safe_write(ledger, extra)
    assert (root / "Ledger.md").read_bytes() == ledger.before
    line = "- [x] Call mum ✅ 2026-08-15 ^mum"
    done = ledger.before.replace(b"- [ ] Call mum ^mum", line.encode())
    ledger_append.safe_write(ledger, done, replaced={4}, added=[line])
    assert (root / "Ledger.md").read_bytes() == done


@pytest.mark.parametrize("above", ["", "Form\x0cfeed, line\u2028separator\n"])
def test_ledger_done_keeps_the_control_characters_the_line_held(make_vault, capsys, above):
    """The lines safe_write looks in are the reader's (\\n, \\r\\n, \\r). Before: it split
    the text as str.splitlines does, which also breaks at NEL (U+0085), form feed and
    U+2028: `ledger done` on a line holding NEL, or below a line holding a form feed,
    was refused for a control character the line itself held."""
    vault = _vault(make_vault, f"# Ledger\n\n{above}- [ ] Call \x85mum\x1b[0m ^mum\n")
    root = vault.settings.vault
    code, _, err = _cli(capsys, "ledger", "done", "mum", "--vault", root,
                        "--now", "2026-08-15")
    assert code == 0, err
    assert "- [x] Call \x85mum\x1b[0m ✅ 2026-08-15 ^mum" in (
        root / "Ledger.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("steps", [
    [("done", "mum"), ("done", "mum")],
    [("move", "mum", "--due", "2026-08-20"), ("done", "mum")],
    [("move", "rent", "--due", "2026-09-05"), ("done", "rent"), ("done", "rent")],
])
def test_rewrites_one_after_another_never_multiply_a_held_control_character(
        make_vault, capsys, steps):
    """A rewrite may keep the control characters its own line held (the check lets any
    number of each through): one rewrite after another, each from its own line as
    written, must neither multiply them nor add one. A recurring entry, checked off,
    becomes two lines: each keeps the one its line held."""
    vault = _vault(make_vault, "# Ledger\n\n- [ ] Call \x85mum\x1b[0m ^mum\n"
                               "- [ ] Pay \x1b[1mrent 🔁 every month 📅 2026-09-01 ^rent\n")
    root = vault.settings.vault
    for step in steps:
        code, _, err = _cli(capsys, "ledger", *step, "--vault", root, "--now", "2026-08-15")
        assert code in (0, 1), err  # the second `done` of one occurrence may be refused
        assert "control character" not in err, err
    lines = (root / "Ledger.md").read_text(encoding="utf-8").split("\n")
    mum = [line for line in lines if "mum" in line]
    rent = [line for line in lines if "rent" in line]
    assert len(mum) == 1 and mum[0].count("\x85") == 1 and mum[0].count("\x1b") == 1
    assert all(line.count("\x1b") == 1 and "\x85" not in line for line in rent)
    assert len(rent) == 1 + sum(step[0] == "done" for step in steps if step[1] == "rent")


def test_a_rewrite_takes_no_control_character_from_another_line(make_vault):
    """What a rewrite may keep is what its own line held. Before: a U+2028 above shifted
    str.splitlines' count by one, so the ESC of the paragraph above was let into the
    rewritten entry."""
    vault = _vault(make_vault, "# Ledger\n\nSee\u2028this \x1b[2J\n- [ ] Call mum ^mum\n")
    root = vault.settings.vault
    ledger = ledger_append.read_ledger(root, "Ledger.md")
    line = "- [x] Call \x1b[2Jmum ✅ 2026-08-15 ^mum"
    data = ledger.before.replace(b"- [ ] Call mum ^mum", line.encode())
    with pytest.raises(UsageError, match="control character"):
        ledger_append.safe_write(ledger, data, replaced={4}, added=[line])
    assert (root / "Ledger.md").read_bytes() == ledger.before


# -- 4. a planted temporary symlink, a ledger that is a symlink --------------------------

def test_ledger_add_does_not_write_through_a_planted_temp_symlink(make_vault, tmp_path):
    """Before: the temp name `.Ledger.md.<pid>.tmp` was predictable (an MCP server's pid
    never changes); a symlink planted there was followed, the outside file overwritten
    and Ledger.md became a link to it."""
    vault = _vault(make_vault)
    root = vault.settings.vault
    target = tmp_path / "outside.txt"
    target.write_text("precious outside data\n")
    planted = [root / f".Ledger.md.{os.getpid()}.tmp"] + [
        root / f".Ledger.md.{pid}.tmp" for pid in range(1, 200)]
    for link in planted:
        if not os.path.lexists(link):
            os.symlink(target, link)
    added = vault.add_commitment("Book the tiler")
    assert target.read_text() == "precious outside data\n"
    assert not (root / "Ledger.md").is_symlink()
    assert (root / "Ledger.md").read_text().endswith(added.text + "\n")
    assert all(os.path.islink(link) for link in planted)  # left alone


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_a_ledger_that_is_a_symlink_out_of_the_vault_is_refused(make_vault, tmp_path, kind):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Ledger.md").write_text("# Outside\n")
    if kind == "file":
        vault = make_vault(FILES, index_at=NOW)
        os.symlink(outside / "Ledger.md", vault.settings.vault / "Ledger.md")
    else:
        vault = make_vault(FILES, index_at=NOW, ledger_notes=["work/Ledger.md"])
        os.symlink(outside, vault.settings.vault / "work")
    with pytest.raises(VaultmemError, match="outside the vault"):
        vault.add_commitment("Book the tiler")
    assert (outside / "Ledger.md").read_text() == "# Outside\n"


def test_a_ledger_symlinked_inside_the_vault_is_written_where_it_really_is(make_vault):
    vault = make_vault({**FILES, "real/Ledger.md": LEDGER}, index_at=NOW)
    root = vault.settings.vault
    os.symlink(root / "real" / "Ledger.md", root / "Ledger.md")
    added = vault.add_commitment("Book the tiler")
    assert (root / "Ledger.md").is_symlink()
    assert (root / "real" / "Ledger.md").read_text() == LEDGER + added.text + "\n"


# -- 11. length limits ------------------------------------------------------------------

def test_add_commitment_caps_the_text(make_vault, capsys):
    """Before: a 1 MB text was appended and became a 1,000,002-character id."""
    vault = _vault(make_vault)
    root = vault.settings.vault
    with pytest.raises(UsageError, match="1,000,000 characters long; the most a ledger line "
                                         "takes is 1,000"):
        vault.add_commitment("a" * 1_000_000)
    code, _, err = _cli(capsys, "ledger", "add", "Fine", "--when", "x" * 5000, "--vault", root)
    assert code == 2 and "--when is 5,000 characters long" in err
    added = vault.add_commitment("word" * 240)  # 960 characters: taken
    assert len(added.id) <= MAX_ID_CHARS


def test_an_id_is_capped_for_hand_written_lines_too(make_vault):
    long_word = "x" * 10_000
    vault = _vault(make_vault, LEDGER + f"- [ ] {long_word}\n- [ ] Pay it ^{'b' * 500}\n")
    ids = [e["id"] for e in vault.ledger().as_dict()["results"]]
    assert len(ids) == 4 and max(len(i) for i in ids) <= MAX_ID_CHARS
    entries, _ = parse_ledger((vault.settings.vault / "Ledger.md").read_text())
    assert entries[-1].block_id == "b" * 500  # still matched by it, just not the id
    vault.index(now=NOW, full=True)
    assert [e["id"] for e in vault.ledger().as_dict()["results"]] == ids


def test_json_of_a_refused_add_is_one_line_on_stderr(make_vault, capsys):
    vault = _vault(make_vault)
    code, out, err = _cli(capsys, "ledger", "add", "x\x00", "--json", "--vault",
                          vault.settings.vault)
    assert code == 2 and out == "" and err.count("\n") == 1
    with pytest.raises(json.JSONDecodeError):
        json.loads(err)
    assert Path(vault.settings.vault / "Ledger.md").read_bytes().count(b"\x00") == 0
