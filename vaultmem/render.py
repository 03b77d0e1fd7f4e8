"""Everything the user sees: rich tables and progress on stderr/stdout, and JSON documents.

The only module that imports rich. stdout is data, stderr is people.
"""

from __future__ import annotations

import json
import os
import posixpath
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from datetime import date, datetime

_err_console = None
_out_console = None


def _console(stderr: bool):
    global _err_console, _out_console
    from rich.console import Console

    if stderr:
        _err_console = _err_console or Console(stderr=True, no_color="NO_COLOR" in os.environ)
        return _err_console
    _out_console = _out_console or Console(no_color="NO_COLOR" in os.environ)
    return _out_console


def _default(obj):
    if isinstance(obj, datetime | date):
        return obj.isoformat()
    if is_dataclass(obj):
        return asdict(obj)
    if hasattr(obj, "item"):  # numpy scalars
        return obj.item()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def json_text(doc, indent: int | None = 2) -> str:
    """A document as JSON text, as `--json` prints it (dates as ISO strings)."""
    return json.dumps(doc, ensure_ascii=False, indent=indent, default=_default)


def emit_json(doc) -> None:
    """Exactly one JSON document on stdout."""
    sys.stdout.write(json_text(doc) + "\n")


def warn(message: str) -> None:
    sys.stderr.write(message + "\n")


@contextmanager
def progress(enabled: bool) -> Iterator:
    """A progress callback drawing bars on a terminal's stderr; a no-op elsewhere.

    Each stage gets a spinner (it turns while the first batch waits for the model to
    load: `embed` at 0 says so), its count, the time elapsed and an estimate of the time
    left.
    """
    if not (enabled and sys.stderr.isatty()):
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
               MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("left"),
               TimeRemainingColumn())
    with Progress(*columns, console=_console(True), transient=True) as bar:
        tasks: dict[str, int] = {}

        def update(stage: str, done: int, total: int) -> None:
            label = "embed (loading the model)" if stage == "embed" and not done else stage
            if stage not in tasks:
                tasks[stage] = bar.add_task(label, total=total)
            bar.update(tasks[stage], completed=done, total=total, description=label)

        yield update


def index_report(report, as_json: bool) -> None:
    if as_json:
        emit_json(report.as_dict())
        return
    for w in report.warnings:
        warn(f"warning: {w[0]}{':' + str(w[1]) if w[1] else ''}: {w[2]}")
    reparsed = f", {report.reparsed} re-parsed" if report.reparsed else ""
    warn(f"indexed in {report.seconds:.2f}s: {report.new} new, {report.modified} modified, "
         f"{report.moved} moved, {report.deleted} deleted{reparsed}, "
         f"{report.unchanged} unchanged; "
         f"{report.embedded} chunks embedded; {len(report.warnings)} warnings; "
         f"{report.links_unresolved} unresolved links to {report.unresolved_targets} notes")
    if report.multilingual:
        warn(f"note: {report.multilingual}")


def query_result(result, as_json: bool, explain: bool = False) -> None:
    if result.stale:
        warn(f"note: {len(result.stale)} indexed note(s) no longer on disk were skipped "
             f"({', '.join(result.stale[:3])}{', …' if len(result.stale) > 3 else ''}): "
             "the index is stale, run `vaultmem index`")
    if as_json:
        emit_json(result.as_dict())
        return
    from rich.markup import escape
    from rich.table import Table

    _firing_strip(result.firing)
    if not result.results:
        warn("no results")
        return
    table = Table(show_header=True, header_style="bold", expand=False, show_lines=False)
    for col in ("#", "score", "note", "snippet"):
        table.add_column(col, overflow="fold")
    for hit in result.results:
        mark = "".join(f" [bold yellow]↑{escape(c['id'])}[/]" for c in hit.commitments)
        pin = " [bold]📌[/]" if hit.pinned else ""
        # Note text is data, not markup: "[[Budget|budget]]" must print as written.
        table.add_row(str(hit.rank), f"{hit.score:.3f}",
                      f"[bold]{escape(hit.title)}[/]{mark}{pin}\n[dim]{escape(hit.path)}[/]",
                      _highlighted(hit.snippet, result.query))
        if explain and hit.explain:
            table.add_row("", "", "[dim]explain[/]", _explain_line(hit.explain))
    _console(False).print(table)


def _highlighted(snippet: str, query: str):
    """The snippet with the query's words in bold (a rich Text: never read as markup)."""
    import re

    from rich.text import Text

    text = Text(snippet)
    words = [w for w in re.findall(r"\w{3,}", query)]
    if words:
        text.highlight_words(words, style="bold", case_sensitive=False)
    return text


def _firing_strip(firing: list[dict]) -> None:
    """What fires now, above the results: each commitment, on the query or in the
    background, and why (a due commitment is never silent)."""
    if not firing:
        return
    out = _console(False)
    for f in firing:
        how = "[bold yellow]fires on the query[/]" if f["grounded"] else "[dim]in the background[/]"
        out.print(f"↑ [bold]{_esc(f['id'])}[/] {_esc(f['action'])} — {how}: {_esc(f['why'])}",
                  highlight=False)


def _esc(text) -> str:
    """User text printed through rich must not be read as markup ("[[Note]]")."""
    from rich.markup import escape

    return escape(str(text))


SALIENCE_NAMES = ("importance", "activation", "centrality", "prospective", "recency")


def _explain_line(e: dict) -> str:
    """`--explain` as a worked sum a person can check, one line per factor."""
    lines = [_relevance_line(e),
             f"score {e['score']:.3f} = relevance {e['relevance']:.3f} × (1 + {e['weight']:g} × "
             f"salience {e['salience']:.3f}) × (1 + {e['fire_weight']:g} × firing "
             f"{e['firing']})"]
    parts = e.get("components")
    if parts:
        lines.append(f"salience {e['salience']:.3f} from " + ", ".join(
            f"{name} {parts[name]:.2f}" for name in SALIENCE_NAMES if name in parts))
    for f in e.get("fires") or ():
        lines.append(f"fires {f['id']} ({'grounded' if f['grounded'] else 'ambient'}): "
                     f"{f['why']}")
    if e.get("placement"):
        lines.append(f"placed {e['placement']}")
    return _esc("\n".join(lines))


def _relevance_line(e: dict) -> str:
    dense = f"cosine {e['cosine']:.3f}" + (f", rank {e['dense_rank']:g}"
                                           if e.get("dense_rank") is not None else "")
    bm25 = e.get("bm25")
    if bm25 is not None:
        words = f"BM25 {-bm25:.2f}, higher is better, rank {e['lexical_rank']:g}"
    elif e.get("lexical_term"):
        words = "no query word in it; a commitment's note counts its meaning here too"
    else:
        words = "no query word in it"
    if e["mode"] == "dense":
        return f"relevance {e['relevance']:.3f} = meaning ({dense})"
    if e["mode"] == "lexical":
        return f"relevance {e['relevance']:.3f} = words ({words}), scaled to the best hit"
    return (f"relevance {e['relevance']:.3f} = meaning {e['dense_term']:.3f} ({dense}) + "
            f"words {e['lexical_term']:.3f} ({words})")


def status(result, as_json: bool) -> None:
    doc = result.as_dict()
    if as_json:
        emit_json(doc)
        return
    out = _console(False)
    c = doc["counts"]
    out.print(f"[bold]vault[/] {_esc(doc['vault'])}\n[bold]store[/] {_esc(doc['db'])}")
    out.print(f"notes {c['notes']} (deleted {c['deleted']}), chunks {c['chunks']}, "
              f"vectors {c['vectors']}, links {c['links']} ({c['unresolved_links']} unresolved "
              f"links to {c['unresolved_targets']} notes), tags {c['tags']}, ops {c['ops']}")
    if doc["ledger"]:
        out.print("ledger " + ", ".join(f"{k} {v}" for k, v in sorted(doc["ledger"].items())))
    for kind, by_status in sorted(doc["prospective"].items()):
        out.print(f"{kind}: " + ", ".join(f"{k} {v}" for k, v in sorted(by_status.items())))
    if doc.get("multilingual"):
        out.print(f"[yellow]multilingual[/] {_esc(doc['multilingual'])}", highlight=False)
    for run in doc["last_runs"].values():
        if run:
            out.print(f"last {run['kind']}: {run['finished'] or run['started']} ({run['status']})")
    for link in doc["unresolved_links"][:20]:
        hint = (f" (an alias of {_esc(link['alias_of'][0])}: link the note by its name)"
                if link.get("alias_of") else "")
        out.print(f"[yellow]unresolved[/] {_esc(link['source'])}:{link['line']} → "
                  f"{_esc('[[' + link['target'] + ']]')}{hint}", highlight=False)
    for w in doc["warnings"][:50]:
        out.print(f"[yellow]warning[/] {_esc(w['path'])}{':' + str(w['line']) if w['line'] else ''}"
                  f": {_esc(w['message'])}", highlight=False)


def salience_report(report, as_json: bool) -> None:
    if as_json:
        emit_json(report.as_dict())
        return
    warn(f"salience for {report.notes} notes computed at {report.computed_at} "
         f"in {report.seconds:.2f}s")


GROUP_TITLES = {"overdue": "Overdue", "today": "Due today", "triggered": "Triggered now",
                "open": "Window open", "upcoming": "Coming up"}


def due(result, as_json: bool) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    out = _console(False)
    if not result.results:
        warn("nothing due" + (f" and nothing in the next {result.horizon} days"
                              if result.horizon else ""))
        return
    group = None
    for item in result.results:
        if item.group != group:
            group = item.group
            out.print(f"[bold underline]{GROUP_TITLES[group]}[/]")
        notes = ", ".join(item.notes) or "no linked notes"
        out.print(f"  [bold]{_esc(item.entry.action)}[/]  [dim]{_esc(item.entry.id)}[/]\n"
                  f"    why: {_esc(item.why)}\n    notes: {_esc(notes)}", highlight=False)


def _table(*columns: str, no_wrap: tuple[str, ...] = (), wide: dict | None = None):
    """A rich table whose named columns never wrap: ids and paths are typed back."""
    from rich import box
    from rich.table import Table

    # No vertical rules: at 80 columns they cost the text columns a fifth of the width.
    table = Table(show_header=True, header_style="bold", box=box.SIMPLE_HEAD,
                  pad_edge=False, expand=bool(wide))
    for col in columns:
        if col in no_wrap:
            table.add_column(col, no_wrap=True, overflow="ellipsis", min_width=len(col))
        else:
            table.add_column(col, overflow="fold", ratio=wide.get(col, 1) if wide else None)
    return table


def ledger_list(result, as_json: bool) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    if not result.results:
        warn("no ledger entries")
        return
    stems = [_stem(p) for p in {n for r in result.results for n in r["notes"]}]
    shared = {stem for stem in stems if stems.count(stem) > 1}  # two notes, one name
    rows = [_ledger_row(r, shared) for r in result.results]
    out = _console(False)
    if out.width < 100:  # a table of six columns folds every word at 80: one entry, two lines
        for r, (when, notes) in zip(result.results, rows, strict=True):
            out.print(f"[bold]{_esc(r['id'])}[/]  {r['status']}  {_esc(when)}", overflow="ellipsis",
                      no_wrap=True, highlight=False)
            out.print(f"    {_esc(r['action'])}" + (f"  → {_esc(notes)}" if notes else "")
                      + (f"  ({r['revisions']} revisions)" if r["revisions"] > 1 else ""),
                      highlight=False)
        return
    table = _table("id", "status", "when", "action", "notes", "rev",
                   no_wrap=("id", "status", "rev"), wide={"when": 2, "action": 3, "notes": 2})
    for r, (when, notes) in zip(result.results, rows, strict=True):
        table.add_row(_esc(r["id"]), r["status"], _esc(when), _esc(r["action"]), _esc(notes),
                      str(r["revisions"]))
    out.print(table)


def _ledger_row(r: dict, shared: set[str]) -> tuple[str, str]:
    """An entry's when (date, window or condition, and recurrence) and its notes, named as
    Obsidian shows a link, by path where two notes share a name (the JSON has paths)."""
    when = r["due"] or r["fires_from"] or (f"when {r['condition']}" if r["condition"] else "")
    if r["recurrence"]:
        when += f" 🔁 {r['recurrence']}"
    notes = ", ".join([*(n if _stem(n) in shared else _stem(n) for n in r["notes"]),
                       *(f"?{t}" for t in r["unresolved"])])
    return when, notes


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def ledger_history(result, as_json: bool) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    out = _console(False)
    out.print(f"[bold]{_esc(result.id)}[/] ({result.status}) {_esc(result.ledger)}:"
              f"{result.line}\n  {_esc(result.raw)}", highlight=False)
    for rev in result.revisions:
        out.print(f"  {rev['ts']}  [bold]{rev['kind']}[/]  {_esc(_revision_text(rev))}",
                  highlight=False)


def _revision_text(rev: dict) -> str:
    """A revision's detail as a person reads it, not as JSON."""
    d = rev["detail"]
    kind = rev["kind"]
    if kind in ("created", "removed"):
        when = d.get("due") or (f"when {d['condition']}" if d.get("condition") else "")
        of = f"a done occurrence of {d['occurrence_of']}" if d.get("occurrence_of") else ""
        return " · ".join(x for x in (d.get("action", ""), when, of) if x)
    if kind == "occurrence-done":
        done = f"done on {d['on']}" if d.get("on") else "done"
        due = f" (due {d['due']})" if d.get("due") else ""
        return (f"{done}{due}; next {d.get('next_due') or d.get('next')} "
                f"(🔁 {d.get('recurrence')}); kept as {d.get('occurrence')}")
    if kind == "rescheduled":
        return f"{d.get('from') or 'undated'} → {d.get('to') or 'undated'}"
    if kind == "overridden":
        text = f"{d.get('from')!r} → {d.get('to')!r}"
        cond = d.get("condition")
        return text + (f"; condition {cond['from']!r} → {cond['to']!r}" if cond else "")
    if kind == "retargeted":
        parts = [f"+[[{t}]]" for t in d.get("added", [])]
        parts += [f"-[[{t}]]" for t in d.get("removed", [])]
        return " ".join(parts)
    if kind in ("done", "cancelled"):
        return f"on {d['on']}" if d.get("on") else ""
    if kind == "reopened":
        return f"was {d.get('from')}"
    return ", ".join(f"{k}: {v}" for k, v in d.items())


def prospective_list(result, as_json: bool) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    if not result.results:
        warn("no prospective items")
        return
    table = _table("id", "kind", "status", "item", "note", no_wrap=("id",))
    for r in result.results:
        table.add_row(_esc(r["id"]), r["kind"], r["status"], _esc(r["text"]),
                      _esc(f"{r['path']}:{r['line']}"))
    _console(False).print(table)


def nudge(result, as_json: bool, verbose: bool = False) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    n = result.nudge
    if n is None:
        if verbose:  # silence is a first-class answer; asked, it says why
            warn(f"silent: {result.reason} ({result.candidates} candidate(s))")
        return
    notes = "".join(f"\n  → {p}" for p in n.item.notes)
    sys.stdout.write(f"{n.item.text}\n  why now: {n.why}  [{n.item.id}]{notes}\n"
                     f"  answer: vaultmem feedback {n.item.id} accept|dismiss|snooze\n")


def feedback(result, as_json: bool) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    until = f" until {result.until}" if result.until else ""
    warn(f"recorded {result.kind} for {result.item}{until}")


def added(result, as_json: bool) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    sys.stdout.write(f"{result.id}\n")
    warn(f"added to {result.ledger}:{result.line}: {result.text}\n"
         "run `vaultmem index` to bring it into the store")


def suggestions(result, as_json: bool) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    held = f" ({result.in_ledger} more already in the ledger)" if result.in_ledger else ""
    if not result.results:
        warn(f"no commitments to suggest at confidence ≥ {result.threshold}{held}")
        return
    out = _console(False)
    for s in result.results:
        out.print(f"[bold]{_esc(s.id)}[/]  {s.confidence:.2f}  [dim]{_esc(s.path)}:{s.line}[/]",
                  highlight=False, soft_wrap=True)
        out.print(f"  {_esc(s.proposed or s.action)}", highlight=False, soft_wrap=True)
        out.print(f"  [dim]why: {_esc('; '.join(s.why))}[/]", highlight=False, soft_wrap=True)
    warn(f"{len(result.results)} suggestion(s){held}: `vaultmem ledger accept ID` appends "
         "one, `vaultmem ledger reject ID` hides it")


def decision(result, as_json: bool) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    if result.status == "accepted":
        sys.stdout.write(f"{result.entry}\n")
        warn(f"{result.id} accepted: added to {result.ledger}:{result.line}: {result.text}\n"
             "run `vaultmem index` to bring it into the store")
    else:
        warn(f"{result.id} rejected: it will not be suggested again")


def note(result, as_json: bool) -> None:
    doc = result.as_dict()
    if as_json:
        emit_json(doc)
        return
    out = _console(False)
    state = "deleted since indexed" if not doc["on_disk"] else (
        "changed since indexed" if doc["changed_since_index"] else "indexed")
    out.print(f"[bold]{_esc(doc['title'])}[/]  [dim]{_esc(doc['path'])} ({state})[/]",
              highlight=False)
    if doc["tags"] or doc["aliases"]:
        out.print(f"[dim]tags[/] {_esc(', '.join(doc['tags']))}  "
                  f"[dim]aliases[/] {_esc(', '.join(doc['aliases']))}", highlight=False)
    for c in doc["commitments"]:
        when = c["due"] or (f"when {c['condition']}" if c["condition"] else "")
        out.print(f"[yellow]commitment[/] {_esc(c['id'])} ({c['status']}) "
                  f"{_esc(c['action'])}{_esc(' · ' + when) if when else ''}", highlight=False)
    links = [link["path"] or f"?{link['target']}" for link in doc["links"]]
    if links:
        out.print(f"[dim]links →[/] {_esc(', '.join(dict.fromkeys(links)))}", highlight=False)
    back = dict.fromkeys(b["path"] for b in doc["backlinks"])
    if back:
        out.print(f"[dim]linked from ←[/] {_esc(', '.join(back))}", highlight=False)
    if doc["text"] is not None:
        out.print("")
        sys.stdout.flush()
        out.file.flush()
        sys.stdout.write(doc["text"] if doc["text"].endswith("\n") else doc["text"] + "\n")
