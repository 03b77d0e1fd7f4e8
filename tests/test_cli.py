"""End to end through the real CLI with the real embedding model, offline.

Most tests call `vaultmem.interfaces.cli.main` in-process (the same code path as the
console script, with the model loaded once per test session); a few run a real
subprocess where process boundaries matter (imports, exit codes, stdout).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from vaultmem.interfaces.cli import main
from vaultmem.schema import SCHEMA

from .conftest import FIXTURES, ROOT

pytestmark = pytest.mark.integration
QUERIES = json.loads((ROOT / "tests" / "data" / "fixture_queries.json").read_text())


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def cli_json(capsys, *args: str):
    code, out, err = cli(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> Path:
    """fixtures_vault copied and indexed once for the read-only tests of this module."""
    vault = tmp_path_factory.mktemp("fx") / "vault"
    shutil.copytree(FIXTURES, vault, symlinks=True)
    assert main(["index", str(vault), "--json"]) == 0
    return vault


def test_index_reports_every_note_and_the_broken_yaml(indexed, capsys):
    doc = cli_json(capsys, "status", "--vault", indexed)
    md_files = [p for p in FIXTURES.rglob("*.md") if not any(
        part.startswith(".") for part in p.relative_to(FIXTURES).parts)]
    assert doc["counts"]["notes"] == len(md_files)
    assert doc["counts"]["vectors"] >= doc["counts"]["notes"]
    assert any("YAML" in w["message"] for w in doc["warnings"])
    assert doc["counts"]["unresolved_links"] >= 3
    assert doc["config"]["weight"] == 0.3


@pytest.mark.parametrize("case", QUERIES, ids=[q["expected"] for q in QUERIES])
def test_known_item_query_returns_expected_note_first(indexed, capsys, case):
    # On 2026-08-01 (the vault's first day) no ledger entry fires yet: this is retrieval alone.
    doc = cli_json(capsys, "query", case["query"], "--vault", indexed, "-k", "5",
                   "--now", "2026-08-01")
    assert doc["results"][0]["path"] == case["expected"], [r["path"] for r in doc["results"]]


def test_query_json_shape(indexed, capsys):
    doc = cli_json(capsys, "query", "renovation budget", "--vault", indexed, "-k", "3",
                   "--now", "2026-08-15")
    assert doc["query"] == "renovation budget"
    assert doc["now"] == "2026-08-15T00:00:00"
    assert doc["weight"] == 0.3
    assert [r["rank"] for r in doc["results"]] == [1, 2, 3]
    required = {"rank", "path", "title", "score", "cosine", "salience", "firing", "pinned",
                "commitments", "snippet"}
    for row in doc["results"]:
        assert required <= set(row)
        assert (indexed / row["path"]).is_file()
        assert "\\" not in row["path"]
    scores = [r["score"] for r in doc["results"]]
    assert scores == sorted(scores, reverse=True)


def test_query_in_prefix_filters_structurally(indexed, capsys):
    doc = cli_json(capsys, "query", "notes", "--vault", indexed, "--in", "people", "-k", "50")
    assert doc["results"]
    assert all(r["path"].startswith("people/") for r in doc["results"])


@pytest.mark.parametrize("written", ["People", "./PEOPLE/", "people\\"])
def test_query_in_matches_the_folder_regardless_of_case_and_spelling(indexed, capsys, written):
    doc = cli_json(capsys, "query", "notes", "--vault", indexed, "--in", written, "-k", "50")
    assert doc["results"]
    assert all(r["path"].startswith("people/") for r in doc["results"])


def test_query_in_a_folder_with_no_notes_names_the_folders_that_exist(indexed, capsys):
    code, out, err = cli(capsys, "query", "notes", "--vault", indexed, "--in", "nowhere")
    assert code == 2 and not out
    assert "--in 'nowhere': no indexed note is under it" in err
    assert "people/" in err and "Traceback" not in err


def test_edit_rename_delete_are_logged_and_vectors_reused(tmp_path, capsys):
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "a.md").write_text(
        "---\ntitle: Alpha\n---\n# Alpha\n\nThe boiler needs a service before the winter, and "
        "the radiator in the hall stays cold at the top.\n\n## Later\n\nCall the heating "
        "engineer about [[b]] and ask whether the pressure valve should be replaced too.\n")
    (vault / "b.md").write_text("# Bravo\n\nBread recipe with rye flour.\n")
    (vault / "c.md").write_text("# Charlie\n\nNotes about the garden fence.\n")
    first = cli_json(capsys, "index", vault)
    assert first["new"] == 3 and first["embedded"] >= 4

    text = (vault / "a.md").read_text().replace("heating engineer", "gas fitter")
    (vault / "a.md").write_text(text)
    edit = cli_json(capsys, "index", vault)
    assert (edit["modified"], edit["embedded"]) == (1, 1)  # only the changed section

    (vault / "a.md").rename(vault / "sub" / "a-renamed.md")  # title from front matter
    move = cli_json(capsys, "index", vault)
    assert (move["moved"], move["new"], move["deleted"], move["embedded"]) == (1, 0, 0, 0)

    (vault / "c.md").unlink()
    gone = cli_json(capsys, "index", vault)
    assert gone["deleted"] == 1

    noop = cli_json(capsys, "index", vault)
    assert (noop["unchanged"], noop["embedded"], noop["new"], noop["modified"]) == (2, 0, 0, 0)

    db = sqlite3.connect(vault / ".vaultmem" / "vaultmem.db")
    ops = [r[0] for r in db.execute("SELECT op FROM ops WHERE op != 'linked' "
                                    "AND op NOT LIKE 'candidate-%' ORDER BY id")]  # notes' ops
    assert ops == ["created"] * 3 + ["modified", "moved", "deleted"]
    deleted = db.execute("SELECT deleted FROM notes WHERE path = 'c.md'").fetchone()
    assert deleted == (1,)  # marked, never purged
    results = cli_json(capsys, "query", "garden fence", "--vault", vault)["results"]
    assert "c.md" not in [r["path"] for r in results]


def test_bad_inputs_warn_once_each_and_good_notes_are_indexed(tmp_path, capsys, monkeypatch):
    vault = tmp_path / "vault"
    outside = tmp_path / "outside"
    vault.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nnever read me\n")
    good = {"good1.md": "# Good one\n\nA fine note about tomatoes.\n",
            "good2.md": "# Good two\n\nLinks to [out](../outside/secret.md) and [[good1]].\n"}
    for name, body in good.items():
        (vault / name).write_text(body)
    (vault / "yaml.md").write_text("---\ntitle: [unclosed\n---\n# Body\n\nStill searchable.\n")
    (vault / "latin1.md").write_bytes("# Caf\xe9\n\nCr\xe8me br\xfbl\xe9e.\n".encode("latin-1"))
    (vault / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    (vault / "empty.md").write_bytes(b"")
    (vault / "huge.md").write_text("# Huge\n\n" + "word " * 5000)
    (vault / "loop").symlink_to(vault)
    (vault / "escape.md").symlink_to(outside / "secret.md")
    monkeypatch.setenv("VAULTMEM_MAX_FILE_BYTES", "20000")
    report = cli_json(capsys, "index", vault)
    by_path: dict[str, list[str]] = {}
    for w in report["warnings"]:
        by_path.setdefault(w["path"], []).append(w["message"])
    expected = {"yaml.md", "latin1.md", "binary.md", "empty.md", "huge.md", "loop",
                "escape.md", "good2.md"}
    assert set(by_path) == expected
    assert all(len(msgs) == 1 for msgs in by_path.values()), by_path
    assert "leaves the vault" in by_path["good2.md"][0]
    status = cli_json(capsys, "status", "--vault", vault)
    paths = {w["path"] for w in status["warnings"]}
    assert paths == expected
    hits = cli_json(capsys, "query", "tomatoes", "--vault", vault, "-k", "20")["results"]
    found = {r["path"] for r in hits}
    assert {"good1.md", "good2.md", "yaml.md", "latin1.md"} <= found
    assert "escape.md" not in found


# -- real subprocesses --------------------------------------------------------

def run(*args: str, env=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vaultmem", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, cwd=cwd, timeout=300)


def test_subprocess_query_prints_only_json(indexed):
    proc = run("query", "half marathon training", "--vault", str(indexed), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["results"]


def test_missing_index_is_one_line_exit_1(tmp_path):
    proc = run("query", "anything", "--vault", str(tmp_path))
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0
    assert "no index at" in proc.stderr and "run `vaultmem index" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_debug_before_or_after_the_command_raises_the_failure(tmp_path, monkeypatch):
    """One `--debug`, the root's: written before the command or after it, a failure is
    raised (a traceback) instead of one line; after `--` it is the command's text."""
    from vaultmem.errors import NoIndexError

    monkeypatch.delenv("VAULTMEM_DEBUG", raising=False)
    for argv in (["--debug", "status"], ["status", "--debug"], ["ledger", "--debug"]):
        with pytest.raises(NoIndexError):
            main([*argv, "--vault", str(tmp_path)])
    assert main(["query", "--vault", str(tmp_path), "--", "--debug"]) == 1
    assert main(["status", "--vault", str(tmp_path)]) == 1


def test_mcp_hears_the_one_debug(tmp_path, monkeypatch):
    from vaultmem.interfaces import cli, mcp_server

    heard = []
    monkeypatch.setattr(cli, "_stop_at_once", lambda doing: None)  # no signal handlers here
    monkeypatch.setattr(mcp_server, "serve", lambda *a, debug, **kw: heard.append(debug))
    assert main(["mcp", "--vault", str(tmp_path), "--debug"]) == 0
    assert main(["mcp", "--vault", str(tmp_path)]) == 0
    assert heard == [True, False]


def test_bad_usage_exits_2(tmp_path):
    assert run("query", "--vault", str(tmp_path), "-k", "zero").returncode == 2
    assert run("no-such-command").returncode == 2
    assert run("query", "x", "--vault", str(tmp_path), "--now", "someday").returncode == 2


def test_help_and_status_do_not_import_onnxruntime(indexed):
    probe = ("import sys; from vaultmem.interfaces.cli import main; code = main(sys.argv[1:]); "
             "print('HEAVY' if 'onnxruntime' in sys.modules or 'fastembed' in sys.modules "
             "else 'LIGHT', file=sys.stderr)")
    for args in (["--help"], ["status", "--vault", str(indexed)]):
        proc = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                              text=True, timeout=120)
        assert proc.stderr.strip().endswith("LIGHT"), (args, proc.stderr)


def test_local_model_folder_switch_reembeds_and_queries(tmp_path, capsys, monkeypatch):
    from vaultmem.embed import bundled_model_dir

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "soup.md").write_text("# Soup\n\nRed lentils, cumin and smoked paprika.\n")
    (vault / "bike.md").write_text("# Bike\n\nThe rear tyre keeps going flat.\n")
    first = cli_json(capsys, "index", vault)
    assert first["embedded"] == 2
    monkeypatch.setenv("VAULTMEM_MODEL_PATH", str(bundled_model_dir()))  # a local folder
    switched = cli_json(capsys, "index", vault)
    assert (switched["unchanged"], switched["embedded"]) == (2, 2)
    assert cli_json(capsys, "index", vault)["embedded"] == 0
    top = cli_json(capsys, "query", "puncture on my bicycle", "--vault", vault)["results"][0]
    assert top["path"] == "bike.md"


# -- the library behind the CLI (issue: agents) -------------------------------------------

def test_every_json_document_is_the_librarys_as_dict(indexed, make_vault, capsys):
    now = ["--now", "2026-08-16"]
    v = make_vault(root=indexed)  # the real model: this test is marked integration
    expected = {
        "due": v.due(now=datetime(2026, 8, 16)).as_dict(),
        "ledger": v.ledger().as_dict(),
        "items": v.items().as_dict(),
        "get": v.get("Home.md").as_dict(),
        "status": v.status().as_dict(),
    }
    query = v.query("bathroom tiles", now=datetime(2026, 8, 16), log=False).as_dict()
    v.close()
    assert cli_json(capsys, "due", "--vault", indexed, *now) == expected["due"]
    assert cli_json(capsys, "ledger", "--vault", indexed) == expected["ledger"]
    assert cli_json(capsys, "ledger", "--prospective", "--vault", indexed) == expected["items"]
    assert cli_json(capsys, "get", "Home.md", "--vault", indexed) == expected["get"]
    assert cli_json(capsys, "status", "--vault", indexed) == expected["status"]
    got = cli_json(capsys, "query", "bathroom tiles", "--vault", indexed, "--no-log", *now)
    assert {k: v for k, v in got.items() if k != "seconds"} == {
        k: v for k, v in query.items() if k != "seconds"}
    for doc in (*expected.values(), got):
        assert doc["schema"] == SCHEMA


def test_due_twice_gives_the_same_document(indexed, capsys):
    args = ("due", "--vault", indexed, "--now", "2026-08-16", "--context",
            "family are coming over to stay for the weekend")
    assert cli_json(capsys, *args) == cli_json(capsys, *args)


def test_query_no_log_writes_nothing(indexed, capsys):
    db = indexed / ".vaultmem" / "vaultmem.db"

    def ops() -> int:
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT count(*) FROM ops").fetchone()[0]

    before = ops()
    cli_json(capsys, "query", "paint colours", "--vault", indexed, "--no-log")
    assert ops() == before
    cli_json(capsys, "query", "paint colours", "--vault", indexed)
    assert ops() > before


def test_get_prints_a_note_by_name(indexed, capsys):
    code, out, err = cli(capsys, "get", "Bathroom", "--vault", indexed)
    assert code == 0, err
    assert "projects/house/Bathroom.md" in out and "c-valve" in out
    code, _, err = cli(capsys, "get", "No such note", "--vault", indexed)
    assert code == 1 and "no note 'No such note'" in err


def test_ledger_add_makes_it_an_entry_at_once(fixture_vault, capsys):
    assert main(["index", str(fixture_vault), "--json"]) == 0
    capsys.readouterr()
    before = (fixture_vault / "Ledger.md").read_text(encoding="utf-8")
    added = cli_json(capsys, "ledger", "add", "Sand the hall skirting", "--due", "2026-09-01",
                     "--link", "Bathroom", "--project", "house", "--vault", fixture_vault)
    assert added["id"] == "c-sand-hall-skirting" and added["indexed"] is True
    after = (fixture_vault / "Ledger.md").read_text(encoding="utf-8")
    assert after.startswith(before) and after[len(before):].count("\n") == 1
    entries = cli_json(capsys, "ledger", "--vault", fixture_vault)["results"]
    new = next(e for e in entries if e["id"] == added["id"])
    assert (new["due"], new["notes"], new["project"]) == (
        "2026-09-01", ["projects/house/Bathroom.md"], "house")
    code, _, err = cli(capsys, "ledger", "add", "Sand it", "--due", "soonish",
                       "--vault", fixture_vault)
    assert code == 2 and "--due 'soonish' is not a date" in err


def test_version_short_help_and_empty_query(indexed, capsys):
    from vaultmem import __version__

    code, out, _ = cli(capsys, "--version")
    assert (code, out.strip()) == (0, f"vaultmem {__version__}")
    code, out, _ = cli(capsys, "-h")
    assert code == 0 and "Usage" in out
    code, out, _ = cli(capsys, "query", "-h")
    assert code == 0 and "--no-log" in out
    code, _, err = cli(capsys, "query", "", "--vault", indexed)
    assert code == 2 and "empty" in err


def test_feedback_arguments_are_checked(indexed, capsys):
    for args, message in ((("snooze", "--for", "-2h"), "positive"),
                          (("snooze", "--for", "1e400h"), "positive"),
                          (("accept", "--for", "2h"), "snooze only"),
                          (("maybe",), "accept, dismiss or snooze")):
        code, _, err = cli(capsys, "feedback", "c-valve", *args, "--vault", indexed)
        assert code == 2 and message in err, (args, err)
    code, out, _ = cli(capsys, "feedback", "-h")
    usage = out.split("Usage:")[1].splitlines()[0]
    assert "ANSWER" in usage and "|" not in usage  # typer marks required arguments {…}


def test_cron_refuses_a_missing_vault(tmp_path, capsys):
    code, out, err = cli(capsys, "cron", "--vault", tmp_path / "nowhere")
    assert code == 1 and out == "" and "is not a folder" in err


def test_commands_run_inside_a_subfolder_use_the_vault_root(indexed):
    proc = run("status", "--json", cwd=str(indexed / "projects" / "house"),
               env={"VAULTMEM_VAULT": ""})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["vault"] == str(indexed.resolve())
def test_a_paint_question_keeps_the_paint_note_first_while_commitments_are_due(indexed,
                                                                              capsys):
    # On 2026-08-20 four dated commitments are in their window (one overdue, one due
    # today); none is about paint, so none may take the first rank.
    for args in ((), ("--floor",)):
        doc = cli_json(capsys, "query", "which paint colours did we pick for the walls?",
                       "--vault", indexed, "-k", "5", "--now", "2026-08-20", *args)
        assert len(doc["firing"]) >= 4 and not any(f["grounded"] for f in doc["firing"])
        assert doc["results"][0]["path"] == "reference/Paint colours.md", args


def test_the_moment_of_a_commitment_puts_its_note_first_and_says_why(indexed, capsys):
    doc = cli_json(capsys, "query", "family are coming over to stay for the weekend",
                   "--vault", indexed, "-k", "5", "--now", "2026-08-16", "--explain")
    [valve] = [f for f in doc["firing"] if f["id"] == "c-valve"]
    assert valve["grounded"] and valve["notes"] == ["projects/house/Bathroom.md"]
    assert valve["confidence"] == "strong"
    assert valve["why"].startswith("trigger matched (strong cue): by meaning: the context ~ "
                                   "condition")
    assert all(not f["grounded"] for f in doc["firing"] if f["id"] != "c-valve")
    top = doc["results"][0]
    assert top["path"] == "projects/house/Bathroom.md"
    assert top["explain"]["fires"][0]["grounded"] is True
    assert top["explain"]["fires"][0]["view"] == "condition"
    code, out, _ = cli(capsys, "query", "family are coming over to stay for the weekend",
                       "--vault", indexed, "-k", "3", "--now", "2026-08-16")
    assert code == 0
    assert "↑ c-valve Replace the shower valve — fires on the query" in " ".join(out.split())
