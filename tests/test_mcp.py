"""The MCP server's tools, in process through the SDK's own client, on the fake embedder.

tests/test_mcp_stdio.py drives the real `vaultmem mcp` subprocess with the real model.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import anyio
import pytest
from mcp import Client

from vaultmem import Vault
from vaultmem.interfaces.mcp_server import TOOLS, Service, build

from .conftest import FakeEmbedder

NOW = "2026-08-15"


@pytest.fixture
def root(fixture_vault, make_vault) -> Path:
    make_vault(root=fixture_vault, index_at=datetime(2026, 8, 15)).close()
    return fixture_vault


def session(root: Path, calls, *, watch: bool = True):
    """Run `calls(client)` against a server on `root`; return what it returns."""
    service = Service(root, None, watch=watch, embedder=FakeEmbedder())

    async def main():
        async with Client(build(service)) as client:
            return await calls(client)

    try:
        return anyio.run(main)
    finally:
        assert service.close(timeout=30)


def doc(result) -> dict:
    assert not result.is_error, result.content[0].text
    parsed = json.loads(result.content[0].text)
    assert parsed == result.structured_content
    return parsed


def notes_of(result) -> list[str]:
    return [c.text for c in result.content[1:]]


def test_tools_are_listed_for_an_agent(root):
    async def calls(client):
        return (await client.list_tools()).tools

    tools = {t.name: t for t in session(root, calls)}
    assert set(tools) == set(TOOLS) == {"search", "get_note", "related", "due", "ledger",
                                        "ledger_history", "add_commitment",
                                        "complete_commitment", "cancel_commitment",
                                        "reschedule_commitment", "status", "nudge"}
    for tool in tools.values():
        assert len(tool.description) > 200 and "document" in tool.description, tool.name
        for name, prop in tool.input_schema.get("properties", {}).items():
            assert prop.get("description"), (tool.name, name)
    search = tools["search"].input_schema["properties"]
    assert set(search) == {"text", "limit", "folders", "not_folders", "tags", "not_tags",
                           "where", "changed_since", "changed_before", "include_ledger",
                           "weight", "no_prospective", "floor", "include_closed", "explain",
                           "mode", "now", "log"}
    assert tools["search"].annotations.read_only_hint is True
    assert tools["add_commitment"].annotations.read_only_hint is False
    assert tools["complete_commitment"].annotations.destructive_hint is True
    assert set(tools["reschedule_commitment"].input_schema["required"]) == {"id", "due"}
    assert set(tools["due"].input_schema["properties"]) == {"context", "now", "horizon"}
    assert set(tools["nudge"].input_schema["properties"]) == {"context", "now"}
    assert tools["nudge"].annotations.read_only_hint is False


def test_nudge_takes_the_last_search_as_its_context(root):
    """An agent's last search is the user's situation: a trigger it matches may nudge."""
    async def calls(client):
        plain = doc(await client.call_tool("nudge", {"now": "2026-08-15T10:30",
                                                     "context": "reading a book"}))
        await client.call_tool("search", {"text": "the guests are coming this weekend",
                                          "log": False})
        cued = doc(await client.call_tool("nudge", {"now": "2026-08-15T10:45"}))
        return plain, cued

    plain, cued = session(root, calls)
    assert plain["nudge"]["id"] != "c-valve"
    assert "c-valve" not in [c["id"] for c in plain["candidates"] if c["terms"]["cue"]]
    assert cued["nudge"]["id"] == "c-valve" and cued["nudge"]["terms"]["cue"] > 0


def test_search_answers_the_query_document(root):
    args = {"text": "guests are coming this weekend", "limit": 4, "now": NOW, "log": False,
            "floor": True, "explain": True, "mode": "dense", "weight": 0.5}

    async def calls(client):
        return await client.call_tool("search", args)

    got = doc(session(root, calls))
    with Vault.open(root, embedder=FakeEmbedder()) as v:
        want = v.query(args["text"], now=datetime(2026, 8, 15), log=False, limit=4,
                       floor=True, explain=True, mode="dense", weight=0.5).as_dict()
    got.pop("seconds"), want.pop("seconds")
    assert got == json.loads(json.dumps(want, ensure_ascii=False))
    assert got["weight"] == 0.5 and any(r["pinned"] for r in got["results"])


def test_every_tool_answers_its_command_document(root):
    async def calls(client):
        ledger = doc(await client.call_tool("ledger", {}))
        entry = ledger["results"][0]["id"]
        return {
            "ledger": ledger,
            "all": doc(await client.call_tool("ledger", {"include_closed": True})),
            "history": doc(await client.call_tool("ledger_history", {"id": entry})),
            "due": doc(await client.call_tool("due", {"now": NOW, "horizon": 3,
                                                      "context": "the vendor quote"})),
            "note": doc(await client.call_tool("get_note", {"path": "Home"})),
            "related": doc(await client.call_tool("related", {"note": "Bathroom", "now": NOW,
                                                              "depth": 1, "limit": 5})),
            "status": doc(await client.call_tool("status", {})),
        }

    got = session(root, calls)
    with Vault.open(root, embedder=FakeEmbedder()) as v:
        entry = got["ledger"]["results"][0]["id"]
        assert got["ledger"] == v.ledger().as_dict()
        assert got["all"] == v.ledger(include_closed=True).as_dict()
        assert got["history"] == v.history(entry).as_dict()
        assert got["due"] == v.due(now=datetime(2026, 8, 15), horizon=3,
                                   context="the vendor quote").as_dict()
        assert got["note"] == v.get("Home").as_dict()
        assert got["related"] == v.related("Bathroom", now=datetime(2026, 8, 15), depth=1,
                                           limit=5).as_dict()
        assert got["status"]["counts"] == v.status().as_dict()["counts"]


@pytest.mark.parametrize("tool, args, message", [
    ("search", {"text": "x", "limit": 0}, "bad arguments for search: limit: Input should be "
                                          "greater than or equal to 1"),
    ("search", {"text": "x", "in": "projects"}, "unknown argument(s) 'in' for search"),
    ("search", {"text": "  "}, "the query is empty"),
    ("search", {"text": "x", "now": "someday"}, "`now` 'someday' is not an ISO date"),
    ("search", {"text": "x", "mode": "fuzzy"}, "bad arguments for search: mode:"),
    ("search", {"text": "x", "weight": 50}, "setting weight = 50.0 (from `weight`) is not "
                                            "allowed: use a number from 0 to 10"),
    ("get_note", {"path": "Nowhere"}, "no note 'Nowhere' in the index"),
    ("ledger_history", {"id": "c-nothing"}, "no ledger entry 'c-nothing': the `ledger` tool "
                                            "with include_closed lists every id"),
    ("due", {"horizon": -1}, "bad arguments for due: horizon:"),
    ("add_commitment", {"text": "Pay", "due": "soon"}, "`due` 'soon' is not a date"),
    ("add_commitment", {"text": "Pay", "links": ["a]]b"]}, "`links` 'a]]b'"),
    ("complete_commitment", {"id": "c-nothing"}, "no commitment 'c-nothing'"),
    ("reschedule_commitment", {"id": "c-valve", "due": "someday"}, "`due` 'someday'"),
    ("no_such_tool", {}, "Unknown tool: no_such_tool"),
])
def test_errors_are_one_line_tool_errors(root, tool, args, message):
    async def calls(client):
        return await client.call_tool(tool, args)

    result = session(root, calls)
    assert result.is_error
    text = result.content[0].text
    assert message in text and "\n" not in text and "Traceback" not in text, text


def test_edits_additions_and_deletions_are_in_the_next_answer(root):
    """No settling time: each search follows the file change at once."""
    kitchen = root / "projects" / "Kitchen renovation.md"

    async def calls(client):
        async def top(text):
            hits = doc(await client.call_tool("search", {
                "text": text, "limit": 3, "log": False, "mode": "lexical",
                "no_prospective": True}))["results"]
            return [h["path"] for h in hits]

        await top("warm")
        kitchen.write_text(kitchen.read_text() + "\nZanzibar quartzite offcut booked.\n")
        edited = await top("zanzibar quartzite offcut")
        (root / "inbox.md").write_text("# Inbox\nxylophone lessons for Mira\n")
        added = await top("xylophone lessons")
        (root / "inbox.md").unlink()
        deleted = doc(await client.call_tool("search", {"text": "xylophone lessons",
                                                        "log": False}))
        note = doc(await client.call_tool("get_note", {"path": "Kitchen renovation"}))
        return edited, added, deleted, note

    for watch in (True, False):
        edited, added, deleted, note = session(root, calls, watch=watch)
        assert edited[0] == "projects/Kitchen renovation.md"
        assert added[0] == "inbox.md"
        assert "inbox.md" not in [h["path"] for h in deleted["results"]]
        assert deleted["stale"] == []  # indexed as deleted, not merely skipped
        assert note["changed_since_index"] is False


def test_add_commitment_is_indexed_before_the_next_answer(root):
    async def calls(client):
        added = doc(await client.call_tool("add_commitment", {
            "text": "Order the worktop", "due": "2026-08-20", "links": ["Kitchen renovation"],
            "project": "house"}))
        ledger = doc(await client.call_tool("ledger", {}))
        return added, ledger

    added, ledger = session(root, calls)
    assert added["id"] == "c-order-worktop" and added["ledger"] == "Ledger.md"
    assert added["text"].endswith("[[Kitchen renovation]] [project:: house] 📅 2026-08-20 "
                                  "^c-order-worktop")
    entry = next(e for e in ledger["results"] if e["id"] == "c-order-worktop")
    assert entry["due"] == "2026-08-20"
    assert entry["notes"] == ["projects/Kitchen renovation.md"]


def test_another_writer_means_an_answer_from_the_store_with_a_note(root):
    """The store's writer lock held by another process: no failure, no wait."""
    note = root / "inbox.md"

    async def calls(client):
        await client.call_tool("status", {})
        with Vault.open(root, embedder=FakeEmbedder()) as other, \
                other.store.writer_lock("index"):
            note.write_text("# Inbox\nxylophone lessons\n")
            busy = await client.call_tool("search", {"text": "xylophone lessons",
                                                     "log": False, "no_prospective": True})
        # Relevance alone: the fake embedder hashes words into 64 buckets, so "xylophone
        # lessons" resembles the vendor-quote condition (cosine 0.35), which would fire.
        after = await client.call_tool("search", {"text": "xylophone lessons", "log": False,
                                                  "no_prospective": True})
        return busy, after

    busy, after = session(root, calls)
    assert "inbox.md" not in [h["path"] for h in doc(busy)["results"]]
    assert len(notes_of(busy)) == 1 and "another vaultmem process is writing the index" in \
        notes_of(busy)[0]
    assert doc(after)["results"][0]["path"] == "inbox.md" and notes_of(after) == []


def test_a_vanished_vault_is_answered_from_the_store_never_indexed_empty(root, tmp_path):
    away = tmp_path / "away"

    async def calls(client):
        await client.call_tool("status", {})
        root.rename(away)
        try:
            gone = await client.call_tool("status", {})
        finally:
            away.rename(root)
        back = await client.call_tool("status", {})
        return gone, back

    gone, back = session(root, calls)
    assert doc(gone)["counts"]["deleted"] == 0
    assert "is gone (renamed, moved, deleted or unmounted)" in notes_of(gone)[0]
    assert doc(back)["counts"]["deleted"] == 0 and notes_of(back) == []


def test_the_server_needs_an_index(tmp_path):
    from vaultmem.errors import NoIndexError

    (tmp_path / "v").mkdir()
    with pytest.raises(NoIndexError):
        Service(tmp_path / "v", None, embedder=FakeEmbedder())


def test_search_logs_mentions_unless_asked_not_to(root):
    def mentions() -> int:
        with Vault.open(root, embedder=FakeEmbedder()) as v:
            return v.store.execute("SELECT count(*) FROM ops WHERE op = 'retrieved'"
                                   ).fetchone()[0]

    before = mentions()

    async def calls(client):
        await client.call_tool("search", {"text": "kitchen", "log": False})
        after_quiet = mentions()
        await client.call_tool("search", {"text": "kitchen", "limit": 3})
        return after_quiet

    assert session(root, calls) == before
    assert mentions() == before + 3
    assert os.environ.get("VAULTMEM_VAULT") is None  # the tests name the vault explicitly


def test_an_indexer_failure_still_answers_from_the_store(root, monkeypatch):
    import vaultmem.indexer as indexer

    def broken(*args, **kwargs):
        raise KeyError("thus")

    async def calls(client):
        await client.call_tool("status", {})
        (root / "inbox.md").write_text("# Inbox\nxylophone lessons\n")
        monkeypatch.setattr(indexer, "index_vault", broken)
        ask = {"text": "xylophone", "log": False, "mode": "lexical", "no_prospective": True}
        failed = await client.call_tool("search", ask)
        monkeypatch.undo()
        return failed, await client.call_tool("search", ask)

    failed, after = session(root, calls)
    assert "inbox.md" not in [h["path"] for h in doc(failed)["results"]]
    assert notes_of(failed) == [
        "note: the index could not be brought up to date (internal error: KeyError: 'thus'): "
        "answered from the index as it is"]
    assert doc(after)["results"][0]["path"] == "inbox.md" and notes_of(after) == []


def test_a_message_never_asks_an_agent_to_run_a_command():
    """An agent has tools, not a shell: a CLI command in a message is the user's."""
    from vaultmem.errors import TERMS
    from vaultmem.interfaces.mcp_server import error

    for said in TERMS["mcp"].values():
        assert "vaultmem " not in said or said.startswith("the user's "), said
    text = error("no candidate 'c-x': `suggestions()` lists them").content[0].text
    assert text == "no candidate 'c-x': the user's `vaultmem ledger suggest` lists them"


def test_a_stop_during_an_answer_names_it_and_lets_it_end(root, monkeypatch):
    """A SIGTERM while a tool call is being answered says so, and the vault is closed
    only once the answer has ended. The answer is held open by the test (an event, not a
    sleep), so the stop lands inside it every time."""
    import signal
    import threading

    from vaultmem.interfaces import mcp_server

    said, exits = [], []
    spoke, entered, release = threading.Event(), threading.Event(), threading.Event()
    monkeypatch.setattr(mcp_server, "_line", lambda m: (said.append(m), spoke.set()))
    monkeypatch.setattr(mcp_server.Stop, "exit_now",
                        staticmethod(lambda doing=None: exits.append(doing)))
    service = Service(root, None, watch=False, embedder=FakeEmbedder())

    def answer(vault):
        entered.set()
        release.wait()
        return {"answered": vault.status().as_dict()["counts"]["notes"]}

    answered = service.owner.submit(lambda: service._answer(answer, False, "search"))
    assert entered.wait(300)  # a safety net for a call that never starts, not a wait
    stop = mcp_server.Stop()
    stop.service = service
    handler = threading.Thread(target=stop.handle, args=(signal.SIGTERM, None))
    handler.start()
    assert spoke.wait(300)
    assert said == ["stopped by SIGTERM while answering search"]
    assert not answered.done() and not exits  # the answer is still in progress
    release.set()
    handler.join(300)
    assert json.loads(answered.result().content[0].text)["answered"] > 0
    assert service.stopping and exits == [None]  # closed after the answer, then exit 0


def test_warming_up_loads_both_models_of_the_multilingual_option(root):
    """With the multilingual option, English queries are ranked by the default model:
    the warm-up loads it too, not only the configured one, before the first request."""
    from vaultmem.embed import PerLanguage

    english, other = FakeEmbedder(), FakeEmbedder()
    other.fingerprint = "other|model|r1"
    service = Service(root, None, watch=False, embedder=PerLanguage(other, lambda: english))
    service.warm()
    assert service.close(timeout=30)
    assert ["warm-up"] in other.calls and ["warm-up"] in english.calls
