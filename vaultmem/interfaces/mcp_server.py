"""`vaultmem mcp`: a Model Context Protocol server on stdio, a thin client of `Vault`.

Every tool is one `Vault` call, and its answer is the matching command's `--json`
document (as JSON text, and as structured content). One thread owns the vault (a SQLite
connection belongs to the thread that opened it) and runs the calls in turn; the model
is loaded once, when the server starts. Before each read the index is brought up to
date with the incremental indexer when `freshness.Freshness` says the vault changed
(a file watcher with a sync cookie: a few ms, whatever the vault's size). When another
process holds the store's writer lock, the answer comes from the store as it is, with
a note saying so. Failures are tool errors carrying vaultmem's one-line message.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import os
import queue
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from .. import __version__
from ..errors import BusyError, VaultmemError, in_terms
from .freshness import GONE, HERE, Freshness
from .render import json_text
from .watch import indexed_line

INSTRUCTIONS = """\
vaultmem indexes the user's markdown notes vault (Obsidian-style) and a ledger of their
commitments. Use `search` to find notes on anything the user asks about (pass the user's
situation as the text: commitments whose condition it matches fire and lift their notes;
narrow it with folders, tags, front-matter `where` and change dates), `get_note` to read
one in full, `related` for the notes around one, `due` for what needs doing now, `ledger`
and `ledger_history` for the commitments, `add_commitment` to record a new one the user
states, `complete_commitment`, `cancel_commitment` and `reschedule_commitment` when the
user did, dropped or moved one, `nudge` when you could raise one reminder unprompted (it
weighs the last search as the user's situation), and `status` for what is indexed. Paths are
vault-relative. Every answer reflects the vault as it is on disk at the time of the call."""


def say(message: str) -> None:
    """One line for the person running the server (stdout is the protocol)."""
    sys.stderr.write(f"vaultmem mcp: {message}\n")
    sys.stderr.flush()


class _Owner:
    """One daemon thread that runs every call on the vault, in order."""

    def __init__(self):
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._loop, name="vaultmem-vault", daemon=True).start()

    def _loop(self) -> None:
        while True:
            fn, future = self._calls.get()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn())
                except BaseException as exc:  # noqa: BLE001 - handed to the caller
                    future.set_exception(exc)

    def submit(self, fn: Callable[[], Any]) -> Future:
        future: Future = Future()
        self._calls.put((fn, future))
        return future


class Stopping(Exception):
    """A stop was asked for: the index run in progress ends at its next step."""


TOOL = contextvars.ContextVar("tool", default="a request")  # the tool being answered


class Service:
    """The vault, its freshness check and the thread they live on. `doing` says what
    that thread is busy with, for a stop to name what it interrupted.

    `create`: a vault never indexed gets its store, and `warm` indexes it all first."""

    def __init__(self, path: Path | None, db: Path | None, *, watch: bool = True,
                 debug: bool = False, embedder=None, create: bool = False):
        self.debug = debug
        self.context: str | None = None  # the user's situation as an agent last gave it
        self.doing = "opening the vault"
        self.stopping = False
        self.first = False
        self.owner = _Owner()
        self.vault = self.owner.submit(
            lambda: self._open(path, db, watch, embedder, create)).result()

    def _open(self, path, db, watch, embedder, create):
        from ..api import Vault
        from ..status import last_run

        vault = Vault.open(path, db, embedder=embedder, create=create)
        run = last_run(vault.store, "index")
        self.first = create and (run is None or not run["finished"])  # none, or killed
        self.doing = "loading the model"  # what `warm` starts with
        self.fresh = Freshness(vault.settings.vault, vault.settings.db, say=say, watch=watch)
        return vault

    def warm(self) -> None:
        """Load the model and catch the index up (all of it on a first start, with its
        progress on stderr), before the first request."""
        from ..embed import parts_of

        def work():
            try:
                self.doing = "loading the model"
                for model in parts_of(self.vault.embedder):  # the multilingual option: both
                    model.embed(["warm-up"])
                if self.first:
                    self._first_index()
                for note in self._freshen():
                    say(note)
                self.doing = "waiting for requests"
                say("ready")
            except Stopping:
                pass
            except VaultmemError as exc:
                say(str(exc))
            finally:
                self.doing = "waiting for requests"
        self.owner.submit(work)

    def _first_index(self) -> None:
        self.doing = "indexing the vault for the first time"
        say(f"no finished index yet: indexing {self.vault.settings.vault} (answers wait "
            "for it)")
        report = self.vault.index(progress=progress_lines(self))
        say(indexed_line(report))

    async def call(self, fn: Callable[[Any], dict], *, fresh: bool = True) -> CallToolResult:
        """Run `fn(vault)` on the vault's thread (after bringing the index up to date
        when `fresh`); its document becomes the tool result."""
        what = TOOL.get()
        return await asyncio.wrap_future(
            self.owner.submit(lambda: self._answer(fn, fresh, what)))

    def _answer(self, fn, fresh: bool, what: str = "a request") -> CallToolResult:
        self.doing = f"answering {what}"
        try:
            notes = self._freshen() if fresh else []
            return result(fn(self.vault), notes)
        except VaultmemError as exc:
            return error(str(exc))
        except Stopping:
            return error("the server is stopping")
        except Exception as exc:  # noqa: BLE001 - a bug: one line for the agent
            from ..store import explain  # a damaged or read-only store, a full disk

            if (known := explain(exc)) is not None:
                return error(str(known))
            if self.debug:
                traceback.print_exc(file=sys.stderr)
            return error(f"internal error: {type(exc).__name__}: {exc} (start the server "
                         "with --debug for the traceback on stderr)")
        finally:
            self.doing = "waiting for requests"

    def step(self, stage: str, done: int, total: int) -> None:
        """An index run's progress: where a stop asked for meanwhile ends the run (what
        it did is rolled back or finished by the next run)."""
        if self.stopping:
            raise Stopping

    def _freshen(self) -> list[str]:
        """Index if the vault changed since the last run; notes on anything that kept
        the answer from being fresh."""
        verdict = self.fresh.check()
        if verdict is False:
            return []
        if verdict is not True:
            return [self._away(verdict)]
        before, self.doing = self.doing, "indexing what changed"
        try:
            report = self.vault.index(progress=self.step)
        except Stopping:
            raise
        except Exception as exc:
            self.fresh.mark_dirty()
            state = self.fresh.folder.state()
            if state != HERE:  # it went away during the run
                return [self._away(state)]
            if isinstance(exc, BusyError):
                return ["another vaultmem process is writing the index: answered from the "
                        "index as it is (it may miss the latest edits); the next call "
                        "catches up"]
            # Anything else (a bug in the indexer) must not cost the agent its answers.
            from ..store import explain

            exc = explain(exc) or exc
            why = str(exc) if isinstance(exc, VaultmemError) else \
                f"internal error: {type(exc).__name__}: {exc}"
            if self.debug and not isinstance(exc, VaultmemError):
                traceback.print_exc(file=sys.stderr)
            say(f"index run failed: {why}")
            return [f"the index could not be brought up to date ({why}): answered from "
                    "the index as it is"]
        finally:
            self.doing = before
        if report.new or report.modified or report.moved or report.deleted or report.embedded:
            say(indexed_line(report))
        return []

    def _away(self, state: str) -> str:
        then = "until it is back" if state == GONE else "until the server is restarted on it"
        return (f"{self.fresh.folder.describe(state)}: answered from the index as it was; "
                f"nothing is indexed {then}")

    def close(self, timeout: float) -> bool:
        """Stop the watcher and close the vault once the call in progress ends; False if
        it did not end within `timeout` (a model load or an index run)."""
        def work():
            self.fresh.close()
            self.vault.close()
        try:
            self.owner.submit(work).result(timeout=timeout)
        except Exception:  # noqa: BLE001 - a timeout, or the close itself failed
            return False
        return True


def progress_lines(service: Service, every: float = 2.0):
    """An index run's progress as a line on stderr per stage, then at most one every
    `every` seconds; a stop asked for meanwhile ends the run at its next step."""
    shown = {"stage": None, "at": 0.0}

    def update(stage: str, done: int, total: int) -> None:
        service.step(stage, done, total)
        now = time.monotonic()
        if stage != shown["stage"] or now - shown["at"] >= every or done == total:
            shown.update(stage=stage, at=now)
            say(f"indexing: {stage} {done}/{total}")
    return update


def result(doc: dict, notes: list[str]) -> CallToolResult:
    text = json_text(doc, indent=None)
    content = [TextContent(type="text", text=text)]
    content += [TextContent(type="text", text=f"note: {note}") for note in notes]
    return CallToolResult(content=content, structured_content=json.loads(text))


def error(message: str) -> CallToolResult:
    """A tool error: vaultmem's one-line message, its terms said as the tools say them."""
    text = in_terms(message, "mcp")
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


READ = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
APPEND = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                         openWorldHint=False)
REVISE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False,
                         openWorldHint=False)  # rewrites one line of the ledger
Now = Annotated[str | None, Field(
    description="The current time as an ISO date or datetime (2026-08-15, 2026-08-15T09:30); "
                "default: the clock. Decides which dated commitments have arrived.")]


class Tools:
    """The tools. Each docstring is the description an agent reads."""

    def __init__(self, service: Service):
        self.service = service

    async def search(
        self,
        text: Annotated[str, Field(description=(
            "What to look for, in plain words; or the user's current situation, which is "
            "also matched against commitment conditions."))],
        limit: Annotated[int, Field(ge=1, description="How many notes to return.")] = 10,
        folders: Annotated[list[str] | None, Field(description=(
            "Only notes under any of these vault-relative folders, e.g. "
            "['projects/house']."))] = None,
        not_folders: Annotated[list[str] | None, Field(description=(
            "Leave out notes under these folders, e.g. ['archive']."))] = None,
        tags: Annotated[list[str] | None, Field(description=(
            "Only notes carrying every one of these tags (without '#'; a tag also matches "
            "the tags nested under it: 'project' holds 'project/house'); '-x' leaves "
            "notes tagged x out."))] = None,
        not_tags: Annotated[list[str] | None, Field(description=(
            "Leave out notes carrying any of these tags (or tags under them)."))] = None,
        where: Annotated[list[str] | None, Field(description=(
            "Front-matter conditions, all of which must hold: 'key=value' (for a list, "
            "value among its items) or 'key!=value'; case is ignored, e.g. "
            "['status=active', 'type!=log']."))] = None,
        changed_since: Annotated[str | None, Field(description=(
            "Only notes whose file changed on or after this date (YYYY-MM-DD) or "
            "datetime."))] = None,
        changed_before: Annotated[str | None, Field(description=(
            "Only notes whose file changed before this date or datetime."))] = None,
        include_ledger: Annotated[bool, Field(description=(
            "Return ledger notes too (by default the `firing` list speaks for their "
            "commitments)."))] = False,
        weight: Annotated[float | None, Field(ge=0, description=(
            "How much standing salience (importance, activity, links, commitments, "
            "recency) lifts a note; default from the vault's config (0.3)."))] = None,
        no_prospective: Annotated[bool, Field(description=(
            "Plain relevance only: no salience, no lift from firing commitments."))] = False,
        floor: Annotated[bool, Field(description=(
            "Pin the notes of commitments the text is about above the ranked list "
            "(pinned: true)."))] = False,
        include_closed: Annotated[bool, Field(description=(
            "Also return closed and stale plans, ideas, decisions and questions."))] = False,
        explain: Annotated[bool, Field(description=(
            "Add each result's score components (explain)."))] = False,
        mode: Annotated[Literal["hybrid", "dense", "lexical"] | None, Field(description=(
            "hybrid (words and meaning, the default), dense (meaning only) or lexical "
            "(words only)."))] = None,
        now: Now = None,
        log: Annotated[bool, Field(description=(
            "Count the top results as mentions for salience, as a user's query does."))] = True,
    ) -> CallToolResult:
        """Search the user's notes vault; the first tool for any question about their notes.

        Returns the `vaultmem query --json` document: `results` ranked best first, each with
        `rank`, `path` (vault-relative: pass it to get_note), `title`, `score` (the ranking
        score), `cosine` (relevance to the text), `salience` (standing 0-1), `firing` (a
        commitment linking the note fires now), `pinned`, `commitments` (those linking it,
        with why they fire), `snippet` and `heading` (the best-matching passage); `firing`
        lists each open commitment firing now (`grounded`: the text is about it, else it
        is merely due), with the notes it links and why; `stale` names indexed notes gone
        from disk (never returned); `filters` echoes the filters given. Filters (folders,
        tags, front matter, change dates) choose which notes may be returned before any
        ranking; a filtered search names only the commitments that link a note it may
        return. Notes edited, added or deleted on disk are reflected.
        """
        self.service.context = text

        def run(vault):
            return vault.query(text, now=now, log=log, limit=limit,
                               folders=folders, not_folders=not_folders, tags=tags,
                               not_tags=not_tags, where=where, changed_since=changed_since,
                               changed_before=changed_before, include_ledger=include_ledger,
                               weight=weight, mode=mode,
                               prospective=not no_prospective, floor=floor,
                               include_closed=include_closed, explain=explain).as_dict()
        return await self.service.call(run)

    async def get_note(
        self,
        path: Annotated[str, Field(description=(
            "A vault-relative path from search (e.g. 'projects/Kitchen.md'), or a note name "
            "as a [[link]] would write it."))],
    ) -> CallToolResult:
        """Read one note in full: the `vaultmem get --json` document.

        Fields: `path`, `title`, `text` (the file as it is on disk now, front matter
        included), `frontmatter`, `tags`, `aliases`, `links` (where each resolves, `path`
        null when nowhere), `backlinks` (notes linking here, with line), `commitments`
        (ledger entries linking it: id, action, condition, due, status), `items` (plans,
        ideas, decisions, questions in it), `salience` (components), `on_disk`, `deleted`.
        Use it after search to read a result, or to follow a link.
        """
        return await self.service.call(lambda vault: vault.get(path).as_dict())

    async def related(
        self,
        note: Annotated[str, Field(description=(
            "A vault-relative path from search (e.g. 'projects/house/Bathroom.md'), or a "
            "note name as a [[link]] would write it."))],
        limit: Annotated[int, Field(ge=1, description="How many notes to return.")] = 10,
        depth: Annotated[int, Field(ge=1, le=2, description=(
            "Follow links 1 or 2 steps."))] = 2,
        now: Now = None,
    ) -> CallToolResult:
        """Notes related to one note: the `vaultmem related --json` document.

        `note` (`path`, `title`); `results` best first, each with `rank`, `path`, `title`,
        `score` and `reasons` (each a `kind`: link, two links, tags or meaning, and a
        `why` sentence), and `commitments` (those linking it that fire now); the note's
        own open `commitments`, each with `fires` (now), `group` and `why`. Use it to
        gather context around a note found by search.
        """
        return await self.service.call(lambda vault: vault.related(
            note, limit=limit, depth=depth, now=now).as_dict())

    async def due(
        self,
        context: Annotated[str | None, Field(description=(
            "The user's current situation (e.g. 'the vendor quote just arrived'), matched "
            "against commitment conditions."))] = None,
        now: Now = None,
        horizon: Annotated[int, Field(ge=0, description=(
            "Also list what comes due within this many days."))] = 7,
    ) -> CallToolResult:
        """What the user should act on now: the `vaultmem due --json` document.

        `results`: open commitments, each with `group` (overdue, today, triggered by the
        context, open: its window has started, upcoming: within the horizon), `why`,
        `id`, `action`, `condition`, `due`, `fires_from`, `ledger` and `line` (where it is
        written), `notes` (the notes it concerns). A read: asking twice gives the same
        answer. Use it when the user asks what is due, or to check a situation.
        """
        if context and context.strip():
            self.service.context = context
        return await self.service.call(lambda vault: vault.due(
            context=context, now=now, horizon=horizon).as_dict())

    async def nudge(
        self,
        context: Annotated[str | None, Field(description=(
            "The user's current situation; default: the text of the last search (or the "
            "last due context) this server was given."))] = None,
        now: Now = None,
    ) -> CallToolResult:
        """One proactive tick: the `vaultmem nudge --json` document, at most one reminder.

        `nudge` is the commitment or idea worth raising now (`id`, `kind`, `text`, `why`,
        `value`, `notes`, `terms`), or null with `silent_because`; `candidates` are the top
        few with their terms and the rule that held each back. A commitment whose trigger
        the context matches may be the one. It records what it showed (fatigue, the daily
        cap), so call it when you would interrupt the user, not to browse: use due for that.
        """
        situation = context if context and context.strip() else self.service.context
        return await self.service.call(lambda vault: vault.nudge(
            now=now, context=situation).as_dict())

    async def ledger(
        self,
        include_closed: Annotated[bool, Field(description=(
            "Also list done, cancelled and removed commitments."))] = False,
    ) -> CallToolResult:
        """List the user's commitments (the ledger): the `vaultmem ledger --json` document.

        `results`: each entry's `id`, `status` (open, done, cancelled, removed), `action`,
        `condition` (a trigger, when it has one), `due`, `fires_from`, `project`, `notes`
        (linked notes), `unresolved` (links to no note), `revisions` (how many changes
        were recorded), `ledger` and `line`. Use ledger_history for one entry's changes.
        """
        return await self.service.call(
            lambda vault: vault.ledger(include_closed=include_closed).as_dict())

    async def ledger_history(
        self,
        id: Annotated[str, Field(description=(
            "An entry id from ledger or due, e.g. 'c-pay-plumber'."))],
    ) -> CallToolResult:
        """One commitment's full history: the `vaultmem ledger show ID --json` document.

        `raw` (the line as written now), `status`, `first_seen`, and `revisions` in order,
        each with `ts`, `kind` (created, rescheduled, overridden, retargeted, done,
        cancelled, reopened, removed) and `detail` (the entry's fields after the change).
        """
        return await self.service.call(lambda vault: vault.history(id).as_dict())

    async def add_commitment(
        self,
        text: Annotated[str, Field(description="What to do, e.g. 'Pay the plumber invoice'.")],
        due: Annotated[str | None, Field(description=(
            "Due date: YYYY-MM-DD, or words read against today ('next friday', 'end of "
            "the month'; a period such as 'next week' also opens the window on its first "
            "day)."))] = None,
        when: Annotated[str | None, Field(description=(
            "A trigger condition instead of (or besides) a date, e.g. 'the invoice "
            "arrives'."))] = None,
        links: Annotated[list[str] | None, Field(description=(
            "Notes it concerns, by name or path (written as [[links]])."))] = None,
        project: Annotated[str | None, Field(description="Its project.")] = None,
        start: Annotated[str | None, Field(description=(
            "When its window opens (Tasks' start date), a date or words."))] = None,
        scheduled: Annotated[str | None, Field(description=(
            "Its scheduled date (Tasks' ⏳), a date or words."))] = None,
        keywords: Annotated[list[str] | None, Field(description=(
            "Words that fire it when the context holds them."))] = None,
        now: Now = None,
    ) -> CallToolResult:
        """Record a new commitment the user states: one line appended to the ledger note.

        Written in the ledger's own syntax (Obsidian Tasks / Dataview) with a new block
        id; no other line changes, and nothing is written if the ledger changed on disk
        meanwhile. Returns the `vaultmem ledger add --json` document: `id`, `ledger`,
        `line` (its line number), `text` (the line written), `due`, `start`,
        `scheduled` (the dates it holds), `unresolved` (links naming no note yet) and
        `indexed`. The index holds it when this returns. Ask the user before recording
        something they did not ask for.
        """
        def run(vault):
            return vault.add_commitment(text, due=due, when=when, links=tuple(links or ()),
                                        project=project, start=start, scheduled=scheduled,
                                        keywords=tuple(keywords or ()), now=now).as_dict()
        return await self.service.call(run, fresh=False)

    async def complete_commitment(
        self,
        id: Annotated[str, Field(description="The commitment's id, from ledger or due.")],
        on: Annotated[str | None, Field(description=(
            "The day it was done, today or before: YYYY-MM-DD or words ('yesterday', "
            "'friday': the last Friday); default today."))] = None,
        now: Now = None,
    ) -> CallToolResult:
        """Mark a commitment done, when the user says they did it.

        Its one ledger line is rewritten as Obsidian Tasks writes it (`[x]` and `✅ date`);
        a recurring one (🔁) also gets its next occurrence, which keeps the id. Nothing is
        written if the line changed on disk meanwhile. Returns the `vaultmem ledger done
        --json` document: `id`, `kind` (done, occurrence-done), `ledger`, `line`, `text`
        (the line now), `was` (before), `occurrence` (the done occurrence of a recurring
        one: id, line, text), `revision` (as recorded in its history) and `indexed`.
        """
        return await self.service.call(lambda vault: vault.complete_commitment(
            id, on=on, now=now).as_dict(), fresh=False)

    async def cancel_commitment(
        self,
        id: Annotated[str, Field(description="The commitment's id, from ledger or due.")],
        on: Annotated[str | None, Field(description=(
            "The day it was cancelled, today or before: YYYY-MM-DD or words; default "
            "today."))] = None,
        now: Now = None,
    ) -> CallToolResult:
        """Cancel a commitment the user no longer intends to keep.

        Its one ledger line is rewritten as Obsidian Tasks writes it (`[-]` and `❌ date`);
        it never fires again, and its history is kept. Returns the `vaultmem ledger
        cancel --json` document (as complete_commitment's, `kind` cancelled).
        """
        return await self.service.call(lambda vault: vault.cancel_commitment(
            id, on=on, now=now).as_dict(), fresh=False)

    async def reschedule_commitment(
        self,
        id: Annotated[str, Field(description="The commitment's id, from ledger or due.")],
        due: Annotated[str, Field(description=(
            "The new due date: YYYY-MM-DD or words ('next friday')."))],
        now: Now = None,
    ) -> CallToolResult:
        """Give a commitment a new due date, when the user moves it.

        Its one ledger line gets the new `📅` date (or its `[due:: ]` field); nothing else
        on it changes. Returns the `vaultmem ledger move --json` document (as
        complete_commitment's, `kind` rescheduled).
        """
        return await self.service.call(lambda vault: vault.reschedule_commitment(
            id, due, now=now).as_dict(), fresh=False)

    async def status(self) -> CallToolResult:
        """What is indexed: the `vaultmem status --json` document.

        `counts` (notes, deleted, chunks, links, unresolved_links, tags, …), `last_runs`
        (the last index and salience runs), `unresolved_links` (source, line, target),
        `warnings` (files that could not be read or parsed, ledger lines with problems),
        `ledger` and `prospective` (counts by status), `config` (every effective setting).
        """
        return await self.service.call(lambda vault: vault.status().as_dict())


TOOLS = {  # name -> annotations
    "search": READ, "get_note": READ, "related": READ, "due": READ, "ledger": READ,
    "ledger_history": READ, "add_commitment": APPEND, "complete_commitment": REVISE,
    "cancel_commitment": REVISE, "reschedule_commitment": REVISE, "status": READ,
    "nudge": APPEND,
}


class Server(MCPServer):
    """MCPServer whose argument errors are one line, and which refuses unknown
    argument names instead of ignoring them."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        tool = self._tool_manager.get_tool(name)
        known = set(tool.parameters.get("properties", {})) if tool else set()
        unknown = sorted(set(arguments or {}) - known) if tool else []
        if unknown:
            return error(f"unknown argument(s) {', '.join(map(repr, unknown))} for {name}: "
                         f"it takes {', '.join(sorted(known)) or 'none'}")
        TOOL.set(name)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                return error(f"bad arguments for {name}: " + "; ".join(
                    f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                    for e in exc.__cause__.errors()))
            return error(str(exc))


def build(service: Service) -> Server:
    app = Server("vaultmem", version=__version__, instructions=INSTRUCTIONS,
                 log_level="WARNING")
    tools = Tools(service)
    for name, hints in TOOLS.items():
        method = getattr(tools, name)
        app.add_tool(method, name=name, description=inspect.cleandoc(method.__doc__),
                     annotations=hints)
    return app


def serve(path: Path | None, db: Path | None, *, watch: bool = True,
          debug: bool = False, index: bool = True) -> None:
    """Open the vault (a missing folder, or with `index` False a missing index, raises
    VaultmemError before serving), load the model, index a vault never indexed, and
    answer MCP requests on stdin/stdout until stdin closes or a SIGTERM / SIGINT comes;
    then exit 0, saying what a signal interrupted."""
    stop = Stop()
    stop.install()
    service = Service(path, db, watch=watch, debug=debug, create=index)
    stop.service = service
    say(f"serving {service.vault.settings.vault} (index {service.vault.settings.db})")
    service.warm()
    build(service).run("stdio")
    stop.service, stop.phase = None, "closing the vault"  # stdin closed
    if not service.close(timeout=10):
        stop.exit_now("closing the vault")


class Stop:
    """SIGTERM and SIGINT at any moment of a server's life: one line saying what they
    interrupted, then exit 0. The vault is closed first when that is quick (idle, or
    an index run, which ends at its next step); during a model load the process ends at
    once, which is safe for SQLite (an open transaction is rolled back on the next
    open), while a normal interpreter exit would tear onnxruntime's threads down under
    it and abort. A second signal ends it at once."""

    def __init__(self):
        self.service: Service | None = None
        self.phase = "opening the vault"  # while there is no service to ask
        self.stopping = False

    def install(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self.handle)

    def handle(self, signum, frame) -> None:
        doing = self.service.doing if self.service else self.phase
        _line(f"stopped by {signal.Signals(signum).name} while {doing}")
        if self.stopping or self.service is None or doing in ("loading the model",
                                                              "opening the vault"):
            self.exit_now()
        self.stopping = self.service.stopping = True
        self.service.close(timeout=10)
        self.exit_now()

    @staticmethod
    def exit_now(doing: str | None = None) -> None:
        if doing:
            _line(f"stopped while {doing}: the work in progress did not end in time")
        os._exit(0)


def _line(message: str) -> None:
    """One line on stderr from a signal handler: a raw write, never the buffered stream
    the interrupted code may be in the middle of writing."""
    os.write(2, f"vaultmem mcp: {message}\n".encode())
