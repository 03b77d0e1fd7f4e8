"""The incremental index run: scan, plan, apply in transactions, resolve links, embed.

A run never deletes history: vanished notes are marked deleted, every change is
an op in the log, and vectors are keyed by the hash of the text they embed, so
unchanged text is never embedded twice (whatever else changed).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from . import clock, ledger_sync, prospective, status
from .budget import Budget, OverBudget
from .config import Settings
from .embed import Embedder, embed_text, multilingual_advice, parts_of
from .errors import VaultGoneError
from .nudge import field_problems, front_matter_field
from .schema import SCHEMA
from .store import Store, entries, migrations, notes
from .store.runs import RunFlags
from .text import languages
from .text.folder import (
    ChangePlan,
    FileStat,
    NotRegular,
    OutsideVault,
    Scan,
    TooLarge,
    content_hash,
    folder_identity,
    plan_changes,
    read_inside,
    scan,
)
from .text.resolve import Resolver, escapes_vault
from .text.syntax import front_matter_block

Progress = Callable[[str, int, int], None]  # (stage, done, total)
EMBED_GROUP = 256  # texts per embed call and commit: bounds memory and lost work on a kill
# CPU seconds one note's readers (markdown, Form) may take before the note is skipped with
# a warning. Every reader is linear (tests/test_growth.py); a 5 MB note, the largest
# max_file_bytes lets through by default, takes a few seconds: this is the safety net.
PARSE_BUDGET = 60.0
READ_CACHE_BYTES = 64 << 20
VANISHED = "vanished during the run: will be picked up next time"


class IndexWarning(NamedTuple):
    """A problem with one file (and line), for the user to fix: an item of `warnings`."""

    path: str
    line: int | None
    message: str


@dataclass
class IndexReport:
    new: int = 0
    modified: int = 0
    moved: int = 0
    deleted: int = 0
    touched: int = 0
    reparsed: int = 0
    unchanged: int = 0
    embedded: int = 0
    links_resolved: int = 0
    links_unresolved: int = 0  # occurrences, as `status` counts them
    unresolved_targets: int = 0  # the distinct notes they name
    attachment_links: int = 0  # links to files that are not notes: neither
    seconds: float = 0.0
    warnings: list[IndexWarning] = field(default_factory=list)
    rebuild: dict | None = None  # set by `index --rebuild` (recover.py): what was carried
    languages: dict[str, int] = field(default_factory=dict)  # live notes per language
    multilingual: str | None = None  # advice when the notes are in several languages

    def as_dict(self) -> dict:
        """The `index --json` document."""
        out = {"schema": SCHEMA, **{k: v for k, v in self.__dict__.items() if k != "warnings"}}
        out["warnings"] = [{"path": p, "line": ln, "message": m} for p, ln, m in self.warnings]
        return out


class _Reader:
    """Reads note files at most once when it can, never beyond the size limit."""

    def __init__(self, root: Path, sizes: dict, limit: int):
        self.root, self.sizes, self.limit = root, sizes, limit
        self.cache: dict[str, bytes] = {}
        self.cached = 0
        self.errors: dict[str, str] = {}

    def read(self, path: str) -> bytes | None:
        if path in self.cache:
            return self.cache.pop(path)
        if self.sizes[path].size > self.limit:
            self.errors[path] = (f"file is {self.sizes[path].size:,} bytes, over the "
                                 f"max_file_bytes limit of {self.limit:,}: skipped")
            return None
        try:
            return read_inside(self.root, path, self.limit)
        except FileNotFoundError:
            self.errors[path] = VANISHED
        except (OutsideVault, NotRegular, TooLarge) as exc:  # swapped since the walk
            self.errors[path] = exc.strerror
        except OSError as exc:
            self.errors[path] = f"cannot read file ({exc.strerror}): skipped"
        return None

    def hash_of(self, path: str) -> str | None:
        data = self.read(path)
        if data is None:
            return None
        if self.cached + len(data) <= READ_CACHE_BYTES:
            self.cache[path] = data
            self.cached += len(data)
        return content_hash(data)


@dataclass
class _Run:
    """One index run: what every step reads (the store, the settings, the run's time)
    and fills (the report); made once by `index_vault` and handed down."""

    store: Store
    settings: Settings
    embedder: Embedder
    now: datetime
    report: IndexReport
    progress: Progress | None
    full: bool  # every note parsed again (`--full`, or a migration asked for it)

    @property
    def stamp(self) -> str:
        return self.now.isoformat(timespec="seconds")


@dataclass
class _Walk:
    """The vault as the run found it, and the plan made from it against the store."""

    folder: tuple[int, int]  # the vault folder's identity: the same folder to the end
    found: Scan
    reader: _Reader
    states: dict  # the stored notes the plan was made from (still current: the lock)
    plan: ChangePlan


def index_vault(store: Store, settings: Settings, embedder: Embedder, *, now: datetime,
                full: bool = False, progress: Progress | None = None) -> IndexReport:
    """Bring the store up to date with the vault on disk."""
    started = time.perf_counter()
    now = clock.local_naive(now)
    folder = folder_identity(settings.vault)
    if folder is None:
        raise VaultGoneError(settings.vault)
    # Reads only until the run is recorded: under the writer lock, the store's check
    # (Store.writer_lock) runs meanwhile, and the first write waits for it.
    found = scan(settings.vault, skip=(settings.db,))  # the store, if it is in the vault
    reader = _Reader(settings.vault, found.files, settings.max_file_bytes)
    # A migration may ask for one re-parse of everything (to fill tables it added).
    flags = RunFlags(store)
    run = _Run(store, settings, embedder, now, IndexReport(), progress,
               full or flags.reparse_all)
    states = store.note_states()
    plan = plan_changes(found.files, states, reader.hash_of, full=run.full)
    quiet = not (run.full or plan.changed or plan.touched or flags.links_pending() is not None
                 or flags.lifecycle_dirty)
    settled = _settled(store, _vector_spaces(embedder)) if quiet else None
    if settled and store.checked_within(CHECK_EVERY):
        store.skip_check()  # nothing to change or embed: no need to read every page again
    elif flags.is_settled:
        with store.atomic():  # before any change: a run killed from here on counts again
            flags.unsettle()
    run_id = store.start_run("index", run.stamp)
    try:
        _steps(run, _Walk(folder, found, reader, states, plan), settled)
    except BaseException as exc:
        stopped(store, run_id, exc)
        raise
    report = run.report
    report.warnings = [IndexWarning(*w) for w in report.warnings]
    report.seconds = round(time.perf_counter() - started, 3)
    store.finish_run(run_id, clock.now().isoformat(timespec="seconds"), "ok",
                     report.as_dict())
    return report


def stopped(store: Store, run_id: int, exc: BaseException) -> None:
    """Record how a run ended that did not finish: "interrupted" when it was asked to stop
    (Ctrl-C, SIGTERM, `watch` stopping), "failed" otherwise. `status` would otherwise
    show it running long after. Best effort: the store may be what failed."""
    how = "failed" if isinstance(exc, Exception) else "interrupted"
    try:
        store.finish_run(run_id, clock.now().isoformat(timespec="seconds"), how,
                         {"error": f"{type(exc).__name__}: {exc}"[:300]})
    except Exception:  # noqa: BLE001 - the run's own error is the one to report
        pass


def _steps(run: _Run, walk: _Walk, settled: dict | None) -> None:
    """The run once it is recorded: apply the plan, resolve links, embed, settle."""
    store, settings, report = run.store, run.settings, run.report
    # Every step after _apply is driven by a flag written in the same transaction as the
    # change that needs it, so a run killed half-way is finished by the next one.
    _apply(run, walk)
    if folder_identity(settings.vault) != walk.folder:
        # The reads of a vault being deleted fail one by one; none of them is a deletion.
        raise VaultGoneError(settings.vault)
    flags = RunFlags(store)
    pending = flags.links_pending()
    if pending is not None:
        _resolve_links(store, run.stamp, report, pending)
    if not settled:
        _fill_languages(store)
    if ledger_sync.refresh_views(store):  # the matcher's texts of each open entry
        settled = None  # new view texts (after an upgrade): embed them
    report.embedded = 0 if settled else embed_missing(store, run.embedder, run.progress)
    if flags.lifecycle_dirty:
        prospective.refresh_lifecycle(store, settings, run.now)
        with store.atomic():
            flags.set_lifecycle_dirty(False)
    if run.full:
        with store.atomic():
            flags.reparsed()
    counts = settled["links"] if settled else _count_links(store)
    for key, field_name in LINK_FIGURES:
        setattr(report, field_name, counts[key])
    report.languages = (settled or {}).get("languages") or store.language_counts()
    walk_warnings = [(p, None, m) for p, m in walk.found.warnings]
    if not walk.found.files:  # an empty or a wrong folder: say so, rather than "0 new"
        walk_warnings.append(("", None, f"no markdown notes found under {settings.vault}: "
                              "is it the vault folder (the one holding your .md notes)?"))
    with store.atomic():
        store.replace_warnings("walk", None, walk_warnings)
        flags.settle({"fingerprint": _vector_spaces(run.embedder), "links": counts,
                      "languages": report.languages,
                      "version": [SETTLED_VERSION, len(migrations.MIGRATIONS)]})
    report.warnings[:0] = walk_warnings
    report.multilingual = multilingual_advice(report.languages, settings)


def _apply(run: _Run, walk: _Walk) -> None:
    """The plan into the store: deletions, moves and touched files in one transaction,
    then every note to read, 500 to a transaction."""
    store, stamp, report = run.store, run.stamp, run.report
    plan, states = walk.plan, walk.states
    report.unchanged, report.touched = plan.unchanged, len(plan.touched)
    report.reparsed = len(plan.reparse)
    report.deleted, report.moved = len(plan.deleted), len(plan.moved)
    with store.atomic():
        for path in plan.deleted:
            store.update_note(states[path].id, {"deleted": 1, "changed_at": stamp})
            store.drop_from_search(states[path].id)
            store.add_op(stamp, "deleted", states[path].id, detail={"path": path})
            if entries.present_in_ledger(store, path):
                _sync_ledger(run, ledger_sync.LedgerRead(path, states[path].id, None))
            prospective.remove_note_items(store, states[path].id, stamp)
            _candidates().retire_note(store, states[path].id, stamp)
        for old, new in plan.moved:
            # hash None: if the re-parse below never happens, the next run does it.
            store.update_note(states[old].id, {"path": new, "hash": None})
            store.add_op(stamp, "moved", states[old].id, detail={"from": old, "to": new})
            entries.move_ledger(store, old, new)
        for path in plan.touched:
            st = walk.found.files[path]
            store.update_note(states[path].id, {"size": st.size, "mtime_ns": st.mtime_ns})
        store.drop_warnings([*plan.deleted, *(old for old, _ in plan.moved)])
        if plan.deleted or plan.moved:
            _mark_dirty(store)
        if plan.deleted or plan.moved or plan.touched:
            store.bump_generation()
    # Moved notes are re-parsed too: a title taken from the file name changes with it.
    todo = [(p, "new") for p in plan.new] + [(p, "modified") for p in plan.modified]
    todo += [(new, "moved") for _, new in plan.moved] + [(p, "reparse") for p in plan.reparse]
    budget = Budget(PARSE_BUDGET)
    try:
        for start in range(0, len(todo), 500):
            with store.atomic():
                scope: set[int] | None = set()
                for path, kind in todo[start:start + 500]:
                    own = _index_file(run, walk, path, kind, budget)
                    scope = None if own is None or scope is None else scope | own
                _mark_dirty(store, scope)
            if run.progress:
                run.progress("parse", min(start + 500, len(todo)), len(todo))
    finally:
        budget.close()


def _mark_dirty(store: Store, links: set[int] | None = None) -> None:
    """Flag the follow-up steps, in the caller's transaction.

    `links` names the notes whose own links need resolving when no name a link can
    point at (a live path or an alias) changed; None means every link. Stored in meta
    `links_dirty` as "0" (nothing), "1" (everything) or a JSON list of note ids.
    """
    flags = RunFlags(store)
    flags.add_links(links)
    flags.set_lifecycle_dirty(True)
    store.bump_generation()


def _index_file(run: _Run, walk: _Walk, path: str, kind: str,
                budget: Budget | None = None) -> set[int] | None:
    """Parse one new/modified/moved/reparsed file and replace its rows; log what happened.

    A ledger note's entries are reconciled in the same transaction as the note row.
    Returns the ids of notes whose links need resolving: this note's own when it only
    changed its text, None (every link) when it added or changed a name links resolve to.
    """
    store, settings, stamp, report = run.store, run.settings, run.stamp, run.report
    st: FileStat = walk.found.files[path]
    prior = notes.state_of(store, path)
    data = walk.reader.read(path)
    if data is None:
        error = walk.reader.errors.get(path, "unreadable")
        if error == VANISHED:  # passing: reported by this run, not kept as the file's own
            report.warnings.append((path, None, error))
            return set()
        _warn(store, report, path, error)
        if prior is None and "limit" in error:  # keep an oversize note findable by name
            store.upsert_note(path, {"title": Path(path).stem, "size": st.size,
                                     "mtime_ns": st.mtime_ns, "deleted": 0, "problem": error,
                                     "first_seen": stamp, "changed_at": stamp})
            return None
        return set()
    digest = walk.plan.hashes.get(path) or content_hash(data)
    text, problem = decode(data)
    try:
        parsed, drafts = _read_note(settings, path, text, st, budget)
    except OverBudget:  # the safety net: the note is indexed by its name, nothing lost
        parsed = _parse().parse_note("", path)
        drafts = _candidates().find(settings, path, parsed, None, st.mtime_ns)
        text, problem = None, (f"took over {PARSE_BUDGET:g} s of CPU to read: indexed by its "
                               "name only (a note should never take that long: please report "
                               "it, with the note if you can)")
    fields = _note_fields(parsed, st, digest, stamp, problem, kind)
    if prior is None:
        fields["first_seen"] = stamp
    renamed = prior is None or bool(prior[1]) or kind != "modified" or (
        store.note_aliases(prior[0]) != set(parsed.aliases))
    note_id = store.upsert_note(path, fields)
    links = [(ln.target, ln.kind, ln.heading, ln.block, ln.label, ln.line) for ln in parsed.links]
    chunks = _chunk_rows(parsed) if text is not None else []
    store.replace_note_parts(note_id, chunks, links, parsed.tags, parsed.aliases, parsed.title)
    _sync_items(store, note_id, path, parsed, prior is None, stamp)
    _candidates().sync_note(store, note_id, path, drafts, stamp)
    if text is None and entries.present_in_ledger(store, path):
        _keep_unreadable_ledger(store, path, report)
    elif ledger_sync.is_ledger(path, fields["type"], settings):
        _sync_ledger(run, ledger_sync.LedgerRead(
            path, note_id, text or "", parsed.outline, _stood_still(settings, path, digest),
            (st.mtime_ns, digest)))
    elif entries.present_in_ledger(store, path):  # no longer a ledger: its entries are removed
        _sync_ledger(run, ledger_sync.LedgerRead(path, note_id, None))
    if kind not in ("moved", "reparse"):
        op = "created" if prior is None else ("restored" if prior[1] else "modified")
        store.add_op(stamp, op, note_id, detail={"path": path, "hash": digest})
        if op == "modified":
            report.modified += 1
        else:
            report.new += 1
    messages = ([(path, None, w) for w in parsed.warnings]
                + ([(path, None, problem)] if problem else [])
                + _nudge_settings(path, text, parsed.frontmatter))
    store.replace_warnings("note", [path], messages)
    report.warnings.extend(messages)
    return None if renamed else {note_id}


def _fill_languages(store: Store) -> None:
    """Give a language to the notes a store made before notes had one (m013), from their
    stored chunks: once, in batches, no note re-parsed."""
    while rows := store.notes_without_language():
        with store.atomic():
            for note_id, text in rows:
                store.update_note(note_id, {"lang": languages.language(text) or ""})


def _read_note(settings, path, text, st, budget: Budget | None):
    """(the parsed note, Form's candidates in it): every reader of the text, pure, run
    under the parse budget."""
    def read():
        parsed = _parse().parse_note(text or "", path, max_chunk_chars=settings.max_chunk_chars)
        return parsed, _candidates().find(settings, path, parsed, text, st.mtime_ns)
    return read() if budget is None else budget.run(read)


def _candidates():
    """The candidates module (and with it form.py's patterns), imported only by a run that
    parses or deletes a note: a no-op run at 50,000 notes is short enough for its import
    to count."""
    from . import candidates

    return candidates


def _sync_items(store, note_id, path, parsed, is_new, stamp) -> None:
    """Prospective items of this note: the note itself by type, and tagged list items."""
    drafts = [d for d in [prospective.note_item(parsed.title, parsed.frontmatter)] if d]
    drafts += prospective.list_items(parsed.items)
    if not drafts and is_new:
        return
    fm = parsed.frontmatter
    created = clock.naive_stamp(str(fm.get("created") or fm.get("date") or stamp))
    prospective.sync_note_items(store, note_id, path, drafts, created, stamp)


def _sync_ledger(run: _Run, note: ledger_sync.LedgerRead) -> None:
    """Reconcile one ledger note: typed revisions into the ops log, line warnings kept.
    Appended lines found lost are reported by this run; `status` names them until they
    are restored or dropped (they are not line warnings of the file)."""
    lost: list[str] = []
    warnings = ledger_sync.sync_ledger(run.store, note, run.stamp, lost)
    run.store.replace_warnings("ledger", [note.path], warnings)
    run.report.warnings.extend(warnings + [(note.path, None, message) for message in lost])


LEDGER_SETTLE = 0.2  # seconds: far longer than an editor takes between truncate and write


def _stood_still(settings: Settings, path: str, digest: str):
    """`settle` for ledger_sync: after a short wait, whether ledger `path` still holds the
    bytes of hash `digest` (called only when a read would remove entries)."""
    def check() -> bool:
        time.sleep(LEDGER_SETTLE)
        try:
            return content_hash(read_inside(settings.vault, path, settings.max_file_bytes)) \
                == digest
        except OSError:
            return False
    return check


def _keep_unreadable_ledger(store: Store, path: str, report) -> None:
    """A ledger that cannot be read as text (a NUL byte makes it look binary) says nothing
    about its entries: they are kept as they were, not removed, until it can be read."""
    count = entries.present_in_ledger(store, path)
    message = (f"ledger not read as text: its {count} entries are kept as they were, none "
               "removed; remove the NUL bytes (or re-save it as UTF-8 text)")
    store.replace_warnings("ledger", [path], [(path, None, message)])
    report.warnings.append((path, None, message))


def _nudge_settings(path: str, text: str | None, front: dict) -> list[tuple]:
    """A `nudge_<name>` key of the note's front matter that the nudges cannot use (they
    ignore it): one warning each, on the key's line, saying what to write."""
    found = field_problems(front, front_matter_field)
    lines = (text or "").splitlines()
    return [(path, _front_matter_line(lines, key), message) for key, message in found]


def _front_matter_line(lines: list[str], key: str) -> int | None:
    """The 1-based line of top-level `key:` in the front matter of `lines`, if found."""
    _, span = front_matter_block(lines) if lines else (None, 0)
    for number, line in enumerate(lines[1:max(span - 1, 1)], start=2):
        if line.startswith(key) and line[len(key):].lstrip().startswith(":"):
            return number
    return None


def _warn(store, report, path, message) -> None:
    store.replace_warnings("note", [path], [(path, None, message)])
    report.warnings.append((path, None, message))


def decode(data: bytes) -> tuple[str | None, str | None]:
    """(text, problem): text None means the file is not a note at all."""
    if b"\x00" in data[:8192]:
        return None, "binary file, not markdown text: skipped (rename it if it is not a note)"
    if not data.strip():
        return "", "empty file: indexed by its name only"
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        return text, (f"not valid UTF-8 (byte {data[exc.start]:#04x} at offset {exc.start}): "
                      "indexed with replacement characters; re-save the file as UTF-8")


def _note_fields(parsed, st, digest, stamp, problem, kind) -> dict:
    fm = parsed.frontmatter
    fields = {
        "title": parsed.title, "type": _scalar(fm.get("type")), "status": _scalar(fm.get("status")),
        "importance": _scalar(fm.get("importance")), "project": _scalar(fm.get("project")),
        "frontmatter": json.dumps(fm, ensure_ascii=False), "size": st.size,
        "mtime_ns": st.mtime_ns, "hash": digest, "created": _scalar(fm.get("created")),
        "updated": _scalar(fm.get("updated")), "date": _scalar(fm.get("date")), "deleted": 0,
        "problem": problem, "indexed_at": stamp, "lang": languages.language(parsed.body) or "",
    }
    if kind not in ("moved", "reparse"):
        fields["changed_at"] = stamp
    return fields


def _scalar(value) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    return str(value).strip() or None


def _chunk_rows(parsed) -> list[tuple[int, str, str, str]]:
    """(ord, heading, text, hash of the embedded text); a body-less note is its title."""
    chunks = parsed.chunks or (_parse().Chunk(0, "", ""),)
    return [(c.ord, c.heading, c.text, content_hash(embed_text(
        parsed.title, c.heading, c.text, parsed.aliases).encode()))
            for c in chunks]


def _resolve_links(store: Store, stamp: str, report: IndexReport,
                   pending: str | set[int]) -> None:
    """Resolve the pending links against the current notes; log newly made links.

    `pending` is "all" after a change to the names links resolve to (a note added,
    moved, deleted or restored, an alias changed), else the ids of notes whose text
    alone changed: every other link would resolve as before, so only theirs are redone.
    "Newly made" is judged against `resolved_pairs`, the pairs as of the last finished
    resolution, which is replaced in the same transaction as the ops it justifies.
    """
    ids = store.path_ids()
    resolver = Resolver(ids)
    sources = None if pending == "all" else sorted(pending)
    updates, escaping = [], []
    for link_id, source, target, kind, heading, block, line, current in store.all_links(sources):
        link = _parse().Link(target, kind, heading, block, None, line or 0)
        hit = resolver.resolve(link, source)
        target_id = ids.get(hit) if hit else None
        if target_id != current:
            updates.append((target_id, link_id))
        if hit is None and kind == "markdown" and escapes_vault(target, source):
            escaping.append((source, line, f"link to {target!r} leaves the vault: not followed"))
    with store.atomic():
        store.set_link_targets(updates)
        lost = ledger_sync.resolve_entry_links(store, resolver, ids)
        store.replace_warnings("entry-link", None, lost)
        before = store.remembered_pairs(sources)
        now_pairs = store.resolved_pairs(sources)
        for source_id, target_id in sorted(now_pairs - before):
            if source_id != target_id:
                store.add_op(stamp, "linked", target_id, detail={"source_id": source_id})
        store.remember_pairs(now_pairs, sources)
        paths = None if sources is None else [p for p, i in ids.items() if i in pending]
        store.replace_warnings("link", paths, escaping)
        RunFlags(store).links_resolved()
    report.warnings.extend(escaping + lost)


# What a finished run leaves behind: every live text has a vector under this fingerprint,
# and these are the store's link figures. Cleared before a run changes anything, so a run
# killed half-way leaves no stale figures; a run that changes nothing reuses them instead
# of scanning every chunk and link again (0.1 s of a no-op at 50,000 notes).
CHECK_EVERY = 86_400  # seconds: a no-op run still reads every page once a day
SETTLED_VERSION = 1  # raise when what needs a vector, or how links are counted, changes;
# a new migration makes every earlier record stale by itself
LINK_FIGURES = (("resolved_links", "links_resolved"), ("unresolved_links", "links_unresolved"),
                ("unresolved_targets", "unresolved_targets"),
                ("attachment_links", "attachment_links"))


def _vector_spaces(embedder: Embedder) -> str:
    """The fingerprints a finished run leaves every live text with a vector under: the
    model's, or with the multilingual option both models' (one string, as recorded)."""
    return "+".join(part.fingerprint for part in parts_of(embedder))


def _settled(store: Store, fingerprint: str) -> dict | None:
    found = RunFlags(store).settled()
    if found is None or found.get("fingerprint") != fingerprint \
            or found.get("version") != [SETTLED_VERSION, len(migrations.MIGRATIONS)]:
        return None
    links = found.get("links")
    return found if isinstance(links, dict) and all(k in links for k, _ in LINK_FIGURES) \
        else None


def _count_links(store: Store) -> dict[str, int]:
    """The store's link figures after the run, counted as `status` counts them."""
    counts, _ = status.link_summary(store)
    return {key: counts[key] for key, _ in LINK_FIGURES}


def embed_missing(store: Store, embedder: Embedder, progress: Progress | None = None) -> int:
    """Embed every live chunk that lacks a vector for this model (with the multilingual
    option, for each of its two models); commit as it goes."""
    return sum(_embed_missing(store, part, progress) for part in parts_of(embedder))


def _embed_missing(store: Store, embedder: Embedder, progress: Progress | None) -> int:
    todo = store.missing_vectors(embedder.fingerprint)
    if not todo:
        return 0
    # Similar lengths in a batch mean less padding for the ONNX model; texts are read a
    # group at a time so memory stays flat however large the vault.
    todo.sort(key=lambda row: row[1] or 0)
    if progress:
        progress("embed", 0, len(todo))  # the first group also waits for the model to load
    for start in range(0, len(todo), EMBED_GROUP):
        group = [digest for digest, _ in todo[start:start + EMBED_GROUP]]
        texts = store.texts_for(group)
        group = [digest for digest in group if digest in texts]  # gone since: skip
        vectors = embedder.embed([embed_text(*texts[digest]) for digest in group])
        with store.atomic():
            rows = zip(group, vectors, strict=True)
            store.put_vectors(embedder.fingerprint, ((d, v.tobytes()) for d, v in rows))
            store.bump_generation()
        if progress:
            progress("embed", start + len(group), len(todo))
    return len(todo)


def _parse():
    """parse.py (markdown-it, front matter, YAML), imported by the first note read: a
    run that reads none (a no-op) never loads it."""
    from .text import parse

    return parse
