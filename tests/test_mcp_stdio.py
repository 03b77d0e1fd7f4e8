"""`vaultmem mcp` as a real subprocess, driven by the MCP SDK's own stdio client, with the
real model, offline: what an agent's client does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from vaultmem.schema import SCHEMA

from .conftest import FIXTURES

pytestmark = pytest.mark.integration


def vaultmem(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vaultmem", *args], capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="module")
def vault(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mcp") / "vault"
    shutil.copytree(FIXTURES, root, symlinks=True)
    proc = vaultmem("index", str(root), "--json")
    assert proc.returncode == 0, proc.stderr
    return root


def drive(root: Path, calls, *extra: str):
    """Start `vaultmem mcp --vault root` and run `calls(session)` against it."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "vaultmem", "mcp", "--vault", str(root), *extra],
                                   env=dict(os.environ))

    async def main():
        with open(root.parent / "server.log", "a") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                return await calls(session)

    return anyio.run(main)


def doc(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def test_an_agent_session_over_stdio(vault):
    soup = vault / "notes" / "Red lentil soup.md"
    query = "when the guests come, what needs doing in the bathroom"

    async def calls(session):
        tools = [t.name for t in (await session.list_tools()).tools]
        found = doc(await session.call_tool("search", {"text": query, "limit": 5,
                                                       "now": "2026-08-15", "log": False}))
        note = doc(await session.call_tool("get_note", {"path": found["results"][0]["path"]}))
        added = doc(await session.call_tool("add_commitment", {
            "text": "Book the tiler", "due": "2026-08-20", "links": ["Bathroom"]}))
        due = doc(await session.call_tool("due", {"now": "2026-08-20", "horizon": 0}))
        before = doc(await session.call_tool("search", {
            "text": "the stonemason delivers the quartzite slab", "limit": 3, "log": False}))
        soup.write_text("# Red lentil soup\n\nThe stonemason delivers the Zanzibar quartzite "
                        "slab on Thursday.\n", encoding="utf-8")
        edited = doc(await session.call_tool("search", {
            "text": "the stonemason delivers the quartzite slab", "limit": 3, "log": False}))
        bad = await session.call_tool("get_note", {"path": "No such note"})
        return tools, found, note, added, due, before, edited, bad

    tools, found, note, added, due, before, edited, bad = drive(vault, calls)
    assert tools == ["search", "get_note", "due", "ledger", "ledger_history",
                     "add_commitment", "status", "nudge"]
    assert found["schema"] == SCHEMA and found["results"][0]["path"] == "projects/house/Bathroom.md"
    assert note["path"] == "projects/house/Bathroom.md" and note["text"].startswith("---")
    assert added["id"] == "c-book-tiler" and added["ledger"] == "Ledger.md"
    assert "c-book-tiler" in [r["id"] for r in due["results"]]
    assert "notes/Red lentil soup.md" not in [r["path"] for r in before["results"]]
    assert edited["results"][0]["path"] == "notes/Red lentil soup.md"
    assert "Zanzibar quartzite slab" in edited["results"][0]["snippet"]
    assert bad.is_error and bad.content[0].text.startswith("no note 'No such note'")
    log = (vault.parent / "server.log").read_text()
    assert "Traceback" not in log and "vaultmem mcp: serving" in log


def test_search_is_the_cli_query_document(vault):
    args = ["query", "renovation budget", "--vault", str(vault), "-k", "4", "--now",
            "2026-08-15", "--no-log", "--explain", "--json"]
    proc = vaultmem(*args)
    assert proc.returncode == 0, proc.stderr

    async def calls(session):
        return doc(await session.call_tool("search", {
            "text": "renovation budget", "limit": 4, "now": "2026-08-15", "log": False,
            "explain": True}))

    got, want = drive(vault, calls, "--no-watch"), json.loads(proc.stdout)
    got.pop("seconds"), want.pop("seconds")
    assert got == want


def test_without_an_index_the_server_says_so_and_exits_1(tmp_path):
    proc = vaultmem("mcp", "--vault", str(tmp_path))
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("vaultmem: no index at") and "Traceback" not in proc.stderr


def test_sigterm_stops_the_server_cleanly(vault):
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "vaultmem", "mcp", "--vault", str(vault)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while "serving" not in (line := proc.stderr.readline()) and time.monotonic() < deadline:
        assert line, "the server exited before serving"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out == ""
    assert "Traceback" not in err
