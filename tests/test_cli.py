"""End to end through the real CLI with the real embedding model, offline.

Most tests call `vaultmem.cli.main` in-process (the same code path as the
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
from pathlib import Path

import pytest

from vaultmem.cli import main

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
    ops = [r[0] for r in db.execute("SELECT op FROM ops WHERE op != 'linked' ORDER BY id")]
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


def test_bad_usage_exits_2(tmp_path):
    assert run("query", "--vault", str(tmp_path), "-k", "zero").returncode == 2
    assert run("no-such-command").returncode == 2
    assert run("query", "x", "--vault", str(tmp_path), "--now", "someday").returncode == 2


def test_help_and_status_do_not_import_onnxruntime(indexed):
    probe = ("import sys; from vaultmem.cli import main; code = main(sys.argv[1:]); "
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
