"""What real vaults hold that hand-made fixtures do not: odd file names, a
store inside the vault, Windows paths, and link counts that must agree everywhere.

Through the real CLI, with the fake embedder standing in for the model.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath, PureWindowsPath

import pytest

from vaultmem.interfaces.cli import main
from vaultmem.text import folder as vault_mod
from vaultmem.text.parse import Link
from vaultmem.text.resolve import Resolver

pytestmark = pytest.mark.usefixtures("fake_model")  # CLI runs here embed with the fake


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args) -> dict:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


# -- 1. a file name that is not UTF-8 ------------------------------------------------


def test_a_file_name_that_is_not_utf8_is_one_warning_and_the_rest_indexes(tmp_path, capsys):
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "A.md").write_text("# A\n\n[[B]]\n")
    (vault / "B.md").write_text("# B\n")
    open(os.fsencode(vault) + b"/bad\xffname.md", "wb").write(b"# x\n")
    os.mkdir(os.fsencode(vault) + b"/dir\xfe")
    open(os.fsencode(vault) + b"/dir\xfe/C.md", "wb").write(b"# C\n")
    for _ in range(2):  # and on every later run
        report = run_json(capsys, "index", vault)
        assert report["new"] + report["unchanged"] == 2
        messages = [(w["path"], w["message"]) for w in report["warnings"]]
        assert messages == [
            ("bad\\xffname.md", "file name is not valid UTF-8: skipped (rename it to index it)"),
            ("dir\\xfe", "folder name is not valid UTF-8: skipped (rename it to index it)")]
    doc = run_json(capsys, "status", "--vault", vault)
    assert doc["counts"]["notes"] == 2
    assert [w["path"] for w in doc["warnings"]] == ["bad\\xffname.md", "dir\\xfe"]
    code, out, err = run(capsys, "status", "--vault", vault)  # the human view prints it too
    assert code == 0 and "bad\\xffname.md" in out


def test_a_vault_whose_own_path_is_not_utf8_still_prints_json(tmp_path, capsys):
    vault = Path(os.fsdecode(os.fsencode(tmp_path) + b"/v\xff"))
    vault.mkdir()
    (vault / "A.md").write_text("# A\n")
    run_json(capsys, "index", vault)
    doc = run_json(capsys, "status", "--vault", vault)
    assert doc["vault"].endswith("v\\xff") and doc["counts"]["notes"] == 1


# -- 2. the store inside the vault ----------------------------------------------------


def test_a_store_inside_the_vault_skips_only_its_own_files(tmp_path, capsys):
    vault = tmp_path / "v"
    (vault / "sub").mkdir(parents=True)
    (vault / "A.md").write_text("# A\n\n[[B]]\n")
    (vault / "sub" / "B.md").write_text("# B\n")
    (vault / "C.md").write_text("# C\n")
    (vault / "D.md").write_text("# D\n")
    db = vault / "sub" / "store.md"  # a store named like a note is still the store
    report = run_json(capsys, "index", vault, "--db", db)
    assert report["new"] == 4 and report["warnings"] == []
    assert report["links_unresolved"] == 0
    doc = run_json(capsys, "status", "--vault", vault, "--db", db)
    assert doc["counts"]["notes"] == 4


# -- 5. links: counted one way, aliases named, comments ignored -------------------------


def test_index_and_status_count_unresolved_links_the_same_named_way(tmp_path, capsys):
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "A.md").write_text(
        "---\naliases: [Ann]\n---\n# A\n\n[[Gone]] [[gone]] [[Other]] ![[photo.png]] [[Ann]]\n"
        "%% [[Hidden]] %%\n")
    (vault / "B.md").write_text("# B\n\n[[Gone]] [[A]]\n")
    report = run_json(capsys, "index", vault)
    again = run_json(capsys, "index", vault)  # nothing changed: the same figures
    doc = run_json(capsys, "status", "--vault", vault)
    counts = doc["counts"]
    assert (report["links_unresolved"], report["unresolved_targets"]) == (5, 3)
    assert (again["links_unresolved"], again["unresolved_targets"]) == (5, 3)
    assert (counts["unresolved_links"], counts["unresolved_targets"]) == (5, 3)
    assert report["attachment_links"] == counts["attachment_links"] == 1
    assert counts["links"] == 7 and report["links_resolved"] == counts["resolved_links"] == 1
    ann = [u for u in doc["unresolved_links"] if u["target"] == "Ann"]
    assert ann[0]["alias_of"] == ["A.md"]
    code, out, err = run(capsys, "status", "--vault", vault)
    assert "5 unresolved links to 3 notes" in " ".join(out.split())
    assert "an alias of A.md" in out


def test_query_in_takes_the_folder_however_it_is_written(tmp_path, capsys):
    vault = tmp_path / "v"
    (vault / "projects").mkdir(parents=True)
    (vault / "projects" / "Kitchen.md").write_text("# Kitchen\n\nThe kitchen valve leaks.\n")
    (vault / "Other.md").write_text("# Other\n\nThe kitchen valve in another note.\n")
    run_json(capsys, "index", vault)
    for prefix in ("projects", "./projects", "projects/", ".\\projects\\", "/projects"):
        doc = run_json(capsys, "query", "kitchen valve", "--vault", vault, "--in", prefix)
        assert [r["path"] for r in doc["results"]] == ["projects/Kitchen.md"], prefix


# -- portability: Windows paths ----------------------------------------------------------


@pytest.mark.parametrize(("root", "path", "inside", "relative"), [
    (PureWindowsPath("C:/Vault"), PureWindowsPath(r"c:\vault\Sub\Note.md"), True, "Sub/Note.md"),
    (PureWindowsPath(r"C:\Vault"), PureWindowsPath(r"C:\Vault"), True, None),
    (PureWindowsPath(r"C:\Vault"), PureWindowsPath(r"C:\Vault2\Note.md"), False, None),
    (PureWindowsPath(r"C:\Vault"), PureWindowsPath(r"D:\Vault\Note.md"), False, None),
    (PureWindowsPath(r"\\server\share\Vault"), PureWindowsPath(r"\\SERVER\share\vault\a\b.md"),
     True, "a/b.md"),
    (PurePosixPath("/home/me/Vault"), PurePosixPath("/home/me/vault/Note.md"), False, None),
    (PurePosixPath("/home/me/Vault"), PurePosixPath("/home/me/Vault/a b/Note.md"), True,
     "a b/Note.md"),
])
def test_vault_walk_paths_follow_their_platform(root, path, inside, relative):
    assert vault_mod.within(root, path) is inside
    if relative:
        assert path.relative_to(root).as_posix() == relative


def test_note_paths_from_a_windows_vault_resolve_links_written_either_way():
    root = PureWindowsPath(r"C:\Users\me\Vault")
    files = [r"C:\Users\me\Vault\Projects\Kitchen.md", r"C:\Users\me\Vault\Projects\Plan.md",
             r"C:\Users\me\Vault\Archive\Plan.md", r"c:\users\me\vault\Home.md"]
    notes = {PureWindowsPath(f).relative_to(root).as_posix(): [] for f in files}
    assert set(notes) == {"Projects/Kitchen.md", "Projects/Plan.md", "Archive/Plan.md",
                          "Home.md"}
    resolver = Resolver(notes)

    def wiki(target):
        return Link(target, "wiki", None, None, None, 1)

    def md(target):
        return Link(target, "markdown", None, None, None, 1)

    assert resolver.resolve(wiki(r"Projects\Kitchen"), "Home.md") == "Projects/Kitchen.md"
    assert resolver.resolve(wiki("Plan"), "Projects/Kitchen.md") == "Projects/Plan.md"
    assert resolver.resolve(wiki("Plan"), "Archive/Index.md") == "Archive/Plan.md"
    assert resolver.resolve(md(r"..\Archive\Plan.md"), "Projects/Kitchen.md") == \
        "Archive/Plan.md"
    assert resolver.resolve(md(r"..\..\Home.md"), "Projects/Kitchen.md") is None
    assert resolver.resolve(md(r"C:\Users\me\Vault\Home.md"), "Projects/Kitchen.md") is None


@pytest.mark.parametrize(("written", "prefix"), [
    (r".\Projects\Kitchen", "Projects/Kitchen/"), (r"Projects\\", "Projects/"),
    ("./Projects", "Projects/"), ("", ""), (".", ""), ("Projects//a/./b/", "Projects/a/b/"),
])
def test_a_folder_prefix_written_with_either_separator(written, prefix):
    assert vault_mod.normalize_prefix(written) == prefix
