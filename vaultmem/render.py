"""Everything the user sees: rich tables and progress on stderr/stdout, and JSON documents.

The only module that imports rich. stdout is data, stderr is people.
"""

from __future__ import annotations

import json
import os
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


def emit_json(doc) -> None:
    """Exactly one JSON document on stdout."""
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2, default=_default) + "\n")


def warn(message: str) -> None:
    sys.stderr.write(message + "\n")


@contextmanager
def progress(enabled: bool) -> Iterator:
    """A progress callback drawing a bar on a terminal's stderr; a no-op elsewhere."""
    if not (enabled and sys.stderr.isatty()):
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=_console(True), transient=True) as bar:
        tasks: dict[str, int] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield update


def index_report(report, as_json: bool) -> None:
    data = report.as_dict()
    if as_json:
        emit_json(data)
        return
    for w in report.warnings:
        warn(f"warning: {w[0]}{':' + str(w[1]) if w[1] else ''}: {w[2]}")
    reparsed = f", {report.reparsed} re-parsed" if report.reparsed else ""
    warn(f"indexed in {report.seconds:.2f}s: {report.new} new, {report.modified} modified, "
         f"{report.moved} moved, {report.deleted} deleted{reparsed}, "
         f"{report.unchanged} unchanged; "
         f"{report.embedded} chunks embedded; {len(report.warnings)} warnings")


def query_result(result, as_json: bool, explain: bool = False) -> None:
    if as_json:
        emit_json(query_doc(result, explain))
        return
    from rich.markup import escape
    from rich.table import Table

    if not result.results:
        warn("no results")
        return
    table = Table(show_header=True, header_style="bold", expand=False, show_lines=False)
    for col in ("#", "score", "note", "snippet"):
        table.add_column(col, overflow="fold")
    for hit in result.results:
        mark = " [bold yellow]↑fires[/]" if hit.firing else ""
        pin = " [bold]📌[/]" if hit.pinned else ""
        # Note text is data, not markup: "[[Budget|budget]]" must print as written.
        table.add_row(str(hit.rank), f"{hit.score:.3f}",
                      f"[bold]{escape(hit.title)}[/]{mark}{pin}\n[dim]{escape(hit.path)}[/]",
                      escape(hit.snippet))
        if explain and hit.explain:
            table.add_row("", "", "[dim]explain[/]", _explain_line(hit.explain))
    _console(False).print(table)


def _esc(text) -> str:
    """User text printed through rich must not be read as markup ("[[Note]]")."""
    from rich.markup import escape

    return escape(str(text))


def _explain_line(explain: dict) -> str:
    return "  ".join(f"{k}={v}" for k, v in explain.items())


def query_doc(result, explain: bool = False) -> dict:
    results = []
    for hit in result.results:
        row = {
            "rank": hit.rank, "path": hit.path, "title": hit.title, "score": hit.score,
            "cosine": hit.cosine, "salience": hit.salience, "firing": hit.firing,
            "pinned": hit.pinned, "commitments": hit.commitments, "snippet": hit.snippet,
            "heading": hit.heading,
        }
        if explain and hit.explain is not None:
            row["explain"] = hit.explain
        results.append(row)
    return {"query": result.query, "now": result.now.isoformat(timespec="seconds"),
            "weight": result.weight, "fire_weight": result.fire_weight,
            "candidates": result.candidates, "seconds": result.seconds, "results": results}


def status(doc: dict, as_json: bool) -> None:
    if as_json:
        emit_json(doc)
        return
    out = _console(False)
    c = doc["counts"]
    out.print(f"[bold]vault[/] {doc['vault']}\n[bold]store[/] {doc['db']}")
    out.print(f"notes {c['notes']} (deleted {c['deleted']}), chunks {c['chunks']}, "
              f"vectors {c['vectors']}, links {c['links']} "
              f"(unresolved {c['unresolved_links']}), tags {c['tags']}, ops {c['ops']}")
    if doc["ledger"]:
        out.print("ledger " + ", ".join(f"{k} {v}" for k, v in sorted(doc["ledger"].items())))
    for kind, by_status in sorted(doc["prospective"].items()):
        out.print(f"{kind}: " + ", ".join(f"{k} {v}" for k, v in sorted(by_status.items())))
    for run in doc["last_runs"].values():
        if run:
            out.print(f"last {run['kind']}: {run['finished'] or run['started']} ({run['status']})")
    for link in doc["unresolved_links"][:20]:
        out.print(f"[yellow]unresolved[/] {_esc(link['source'])}:{link['line']} → "
                  f"{_esc('[[' + link['target'] + ']]')}", highlight=False)
    for w in doc["warnings"][:50]:
        out.print(f"[yellow]warning[/] {_esc(w['path'])}{':' + str(w['line']) if w['line'] else ''}"
                  f": {_esc(w['message'])}", highlight=False)


def salience_report(report, as_json: bool) -> None:
    if as_json:
        emit_json(report)
        return
    warn(f"salience for {report.notes} notes computed at {report.computed_at} "
         f"in {report.seconds:.2f}s")


def due(rows: list[dict], now, context, as_json: bool) -> None:
    if as_json:
        emit_json({"now": now.isoformat(timespec="seconds"), "context": context, "due": rows})
        return
    out = _console(False)
    if not rows:
        warn("nothing due")
        return
    for row in rows:
        notes = ", ".join(row["notes"]) or "no linked notes"
        out.print(f"[bold]{_esc(row['action'])}[/]  [dim]{_esc(row['id'])}[/]\n"
                  f"  why: {_esc(row['why'])}\n  notes: {_esc(notes)}", highlight=False)


def ledger_list(rows: list[dict], as_json: bool) -> None:
    if as_json:
        emit_json({"entries": rows})
        return
    from rich.table import Table

    if not rows:
        warn("no ledger entries")
        return
    table = Table(show_header=True, header_style="bold")
    for col in ("id", "status", "when", "action", "notes", "revisions"):
        table.add_column(col, overflow="fold")
    for r in rows:
        when = r["due"] or r["fires_from"] or (f"when {r['condition']}" if r["condition"] else "")
        notes = ", ".join(link["path"] or f"?{link['target']}" for link in r["links"])
        table.add_row(_esc(r["id"]), r["status"], _esc(when or ""), _esc(r["action"]), _esc(notes),
                      str(r["revisions"]))
    _console(False).print(table)


def ledger_history(doc: dict, as_json: bool) -> None:
    if as_json:
        emit_json(doc)
        return
    out = _console(False)
    out.print(f"[bold]{_esc(doc['id'])}[/] ({doc['status']}) {_esc(doc['ledger'])}:"
              f"{doc['line']}\n  {_esc(doc['raw'])}", highlight=False)
    for rev in doc["revisions"]:
        detail = json.dumps(rev["detail"], ensure_ascii=False)
        out.print(f"  {rev['ts']}  [bold]{rev['kind']}[/]  {_esc(detail)}", highlight=False)


def prospective_list(rows: list[dict], as_json: bool) -> None:
    if as_json:
        emit_json({"items": rows})
        return
    if not rows:
        warn("no prospective items")
        return
    from rich.table import Table

    table = Table(show_header=True, header_style="bold")
    for col in ("id", "kind", "status", "item", "note"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(_esc(r["id"]), r["kind"], r["status"], _esc(r["text"]),
                      _esc(f"{r['path']}:{r['line']}"))
    _console(False).print(table)


def nudge(result, as_json: bool) -> None:
    n = result.nudge
    if as_json:
        emit_json({"now": result.now.isoformat(timespec="seconds"), "nudge": None if n is None
                   else {"id": n.item.id, "kind": n.item.kind, "text": n.item.text,
                         "why": n.why, "value": round(n.value, 4), "notes": n.item.notes,
                         "terms": asdict(n.terms)},
                   "silent_because": None if n else result.reason,
                   "candidates": result.candidates})
        return
    if n is None:
        return  # silence is a first-class answer
    notes = "".join(f"\n  → {p}" for p in n.item.notes)
    sys.stdout.write(f"{n.item.text}\n  why now: {n.why}  [{n.item.id}]{notes}\n"
                     f"  answer: vaultmem feedback {n.item.id} accept|dismiss|snooze\n")


def feedback(doc: dict, as_json: bool) -> None:
    if as_json:
        emit_json(doc)
        return
    until = f" until {doc['until']}" if doc.get("until") else ""
    warn(f"recorded {doc['kind']} for {doc['item']}{until}")
