"""Everything the user sees: rich tables and progress on stderr/stdout, and JSON documents.

The only module that imports rich. stdout is data, stderr is people.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..commitments import FiringRow

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
        where = f"{w[0]}{':' + str(w[1]) if w[1] else ''}: " if w[0] else ""
        warn(f"warning: {where}{w[2]}")
    if report.rebuild:
        kept = ", ".join(f"{t} {n:,}" for t, n in report.rebuild["carried"].items())
        warn(f"the old store was moved to {report.rebuild['moved_to']} (kept, never "
             f"deleted); carried over: {kept or 'nothing'}")
    reparsed = f", {report.reparsed} re-parsed" if report.reparsed else ""
    warn(f"indexed in {report.seconds:.2f}s: {report.new} new, {report.modified} modified, "
         f"{report.moved} moved, {report.deleted} deleted, {report.touched} touched"
         f"{reparsed}, {report.unchanged} unchanged; "
         f"{report.embedded} chunks embedded; {len(report.warnings)} warnings; "
         f"{report.links_unresolved} unresolved links to {report.unresolved_targets} notes")
    if report.multilingual:
        warn(f"note: {report.multilingual}")


def query_result(result, as_json: bool = False, explain: bool = False, *,
                 fmt: str | None = None, vault=None) -> None:
    """The query's answer: JSON (`as_json`, or `fmt` "json"), one of the script formats
    (`fmt` "paths", "md", "csv"), else the terminal view. `vault`: the vault's folder,
    whose name the results' Obsidian links carry."""
    if result.stale:
        warn(f"note: {len(result.stale)} indexed note(s) no longer on disk were skipped "
             f"({', '.join(result.stale[:3])}{', …' if len(result.stale) > 3 else ''}): "
             "the index is stale, run `vaultmem index`")
    fmt = "json" if as_json else fmt
    if fmt == "json":
        emit_json(result.as_dict())
        return
    if fmt is not None:
        sys.stdout.write(listing(fmt, [hit.as_dict() for hit in result.results]))
        return
    _firing_strip(*result.strip())
    if not result.results:
        warn("no results")
        return
    if result.firing:
        _console(False).print()
    _hits(result, explain, vault)


# -- formats for scripts ---------------------------------------------------------------


def listing(fmt: str, rows: list[dict]) -> str:
    """Result rows (`path`, `title`, `score`, …) as `paths` (one per line, for xargs),
    `md` (a list of Obsidian links) or `csv` (a header, then one row each)."""
    if fmt == "paths":
        return "".join(f"{r['path']}\n" for r in rows)
    if fmt == "md":
        return "".join(_md_row(r) for r in rows)
    import csv
    import io

    keys = [k for k in CSV_KEYS if not rows or k in rows[0]]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(keys)
    for r in rows:
        writer.writerow([_cell(r.get(k)) for k in keys])
    return buffer.getvalue()


# Columns of `--format csv`: the rows' scalar keys, commitments as their ids, reasons
# (of `related`) as their sentences.
CSV_KEYS = ("rank", "path", "title", "score", "cosine", "salience", "firing", "pinned",
            "commitments", "reasons", "heading", "snippet")


def _cell(value) -> str:
    """One CSV cell: commitments by their ids, reasons by their sentences, "; " apart."""
    if isinstance(value, list):
        return "; ".join(v.get("id") or v.get("why", "") if isinstance(v, dict) else str(v)
                         for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _md_row(r: dict) -> str:
    """`- [[path|title]]`, and the snippet or the reasons after a dash."""
    target = r["path"].removesuffix(".md")
    link = f"[[{target}|{r['title']}]]" if r["title"] != posixpath.basename(target) \
        else f"[[{target}]]"
    note = r.get("snippet") or "; ".join(x["why"] for x in r.get("reasons", []))
    return f"- {link}" + (f" — {' '.join(note.split())}" if note else "") + "\n"


# -- the terminal view ----------------------------------------------------------------

LEAD = 9  # "10  0.430": the rank and score column of a listing


def _hits(result, explain: bool, vault) -> None:
    """Each result as a block: its title (a link that opens it in Obsidian), the
    commitments firing on it and its path; its snippet; with `explain`, the worked sum.
    Text wraps under the title, never into the rank column; paths and formula terms are
    never split (a path longer than the line folds)."""
    from rich.text import Text

    out = _console(False)
    width = max(out.width - LEAD - 2, 24)
    if explain and result.model:  # which model ranked the query, and why
        said = f"{result.model.name}: {result.model.why}"
        field(out, "model", [Text(w, style="dim") for w in said.split()], indent=0, hang=2)
        out.print()
    for n, hit in enumerate(result.results):
        head = [_title(hit.title, hit.path, vault),
                *(Text(f"↑{c['id']}", style="bold yellow") for c in hit.commitments),
                *([Text("📌 pinned", style="bold")] if hit.pinned else []),
                Text(" " + hit.path, style="dim")]
        lines = flow(head, width)
        if hit.snippet:
            lines += flow([_highlighted(hit.snippet, result.query)], width)
        if explain and hit.explain:
            for atoms in _explain_atoms(hit.explain):
                lines += flow([Text(a, style="dim") for a in atoms], width, hang=2)
        if n:
            out.print()
        block(out, f"{hit.rank:>2}  {hit.score:.3f}", lines, LEAD + 2)


def related(result, fmt: str | None, vault=None) -> None:
    """`vaultmem related`: the note's open commitments, then each related note with its
    reasons (terminal view), or the document / a script format."""
    if fmt == "json":
        emit_json(result.as_dict())
        return
    if fmt is not None:
        sys.stdout.write(listing(fmt, [r.as_dict() for r in result.results]))
        return
    from rich.text import Text

    out = _console(False)
    field(out, "related to", [_title(result.title, result.path, vault),
                              Text(" " + result.path, style="dim")], indent=0, hang=2)
    for c in result.commitments:
        state = Text("fires now:" if c["fires"] else "not firing:",
                     style="bold yellow" if c["fires"] else "dim")
        field(out, "commitment", [Text(c["id"], style="yellow"), Text(c["action"] + " —"),
                                  state, Text(c["why"])], indent=0, hang=2)
    if not result.results:
        warn("no related notes")
        return
    width = max(out.width - LEAD - 2, 24)
    for r in result.results:
        head = [_title(r.title, r.path, vault),
                *(Text(f"↑{c['id']}", style="bold yellow") for c in r.commitments),
                Text(" " + r.path, style="dim")]
        lines = flow(head, width)
        for reason in r.reasons:
            lines += flow([Text(reason.why, style="dim")], width, hang=2)
        out.print()
        block(out, f"{r.rank:>2}  {r.score:.3f}", lines, LEAD + 2)


def _title(title: str, path: str, vault):
    """A note's title, bold, linking (OSC 8, where the terminal shows links) to the note
    in Obsidian."""
    from rich.style import Style
    from rich.text import Text

    link = None
    if vault is not None:
        from ..opener import obsidian_uri

        link = obsidian_uri(vault, path)
    return Text(title or path, style=Style(bold=True, link=link))


def flow(units: list, width: int, hang: int = 0) -> list:
    """Lines of at most `width` cells holding `units` (rich Texts) in order, a space
    apart, a unit never split across lines unless it alone is wider than a line (then it
    wraps at its spaces, or folds). Lines after the first start `hang` cells in."""
    lines: list = []
    line = None
    for unit in units:
        if line is not None and line.cell_len + 1 + unit.cell_len <= width:
            line.append(" ")
            line.append_text(unit)
            continue
        if line is not None:
            lines.append(line)
        if unit.plain.startswith(" "):  # a wider gap on a shared line, none at a start
            unit = unit[1:]
        pieces = [unit.copy()] if unit.cell_len <= width - (hang if lines else 0) else \
            list(unit.wrap(_console(False), max(width - hang, 8)))
        for piece in pieces:
            piece.rstrip()
        pieces = [_hung(p, hang if lines or i else 0) for i, p in enumerate(pieces)]
        lines.extend(pieces[:-1])
        line = pieces[-1]
    if line is not None:
        lines.append(line)
    return lines


def field(out, label: str, units: list, indent: int = 4, hang: int = 0) -> None:
    """`label` `indent` cells in, then `units` flowed after it; wrapped lines continue
    under the first unit, not at the margin."""
    from rich.text import Text

    lead = " " * indent + label + (" " if label else "")
    units = [Text(u) if isinstance(u, str) else u for u in units]
    block(out, lead, flow(units, max(out.width - len(lead), 24), hang), len(lead))


def _joined(items: list[str], style: str = "") -> list:
    """List items as flow units, "a," "b," "c": a line breaks between items, never
    inside one (a path with spaces stays whole)."""
    from rich.text import Text

    return [Text(item + ("," if i < len(items) - 1 else ""), style=style)
            for i, item in enumerate(items)]


def _hung(text, hang: int):
    from rich.text import Text

    return Text(" " * hang) + text if hang else text


def block(out, lead: str, lines: list, indent: int) -> None:
    """`lines` printed `indent` cells in, the first after `lead` (which fits in
    `indent`); rich never re-wraps them."""
    from rich.text import Text

    for i, line in enumerate(lines):
        prefix = (lead.ljust(indent) if i == 0 else " " * indent)
        out.print(Text(prefix) + line, no_wrap=True, overflow="fold", highlight=False)


def _highlighted(snippet: str, query: str):
    """The snippet with the query's words in bold (a rich Text: never read as markup)."""
    import re

    from rich.text import Text

    text = Text(snippet)
    words = [w for w in re.findall(r"\w{3,}", query)]
    if words:
        text.highlight_words(words, style="bold", case_sensitive=False)
    return text


def _firing_strip(firing: list[FiringRow], more: int = 0) -> None:
    """What fires now, above the results: each commitment that fires on the query, the
    few most urgent in the background, and how many more are due (a due commitment is
    never silent, and the strip never crowds the answer)."""
    out = _console(False)
    for f in firing:
        how = "[bold yellow]fires on the query[/]" if f["grounded"] else "[dim]in the background[/]"
        out.print(f"↑ [bold]{_esc(f['id'])}[/] {_esc(f['action'])} — {how}: {_esc(f['why'])}",
                  highlight=False)
    if more:
        out.print(f"[dim]+{more} more due — `vaultmem due`[/]", highlight=False)


def _esc(text) -> str:
    """User text printed through rich must not be read as markup ("[[Note]]")."""
    from rich.markup import escape

    return escape(str(text))


# C0 and C1 controls but tab and newline, and the bidirectional overrides and isolates.
_UNSEEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _seen(text) -> str:
    """Text from a note with its control characters written out (`\\x1b`): a line in the
    ledger must not clear, retitle or reorder the terminal that prints it."""
    return _UNSEEN.sub(lambda m: m.group().encode("unicode_escape").decode(), str(text))


def _shown(text) -> str:
    """`_seen`, escaped for rich."""
    return _esc(_seen(text))


SALIENCE_NAMES = ("importance", "activation", "centrality", "prospective", "recency")


def _explain_atoms(e: dict) -> list[list[str]]:
    """`--explain` as a worked sum a person can check, one line per factor; each line in
    the terms a narrow terminal may break it between (never inside one)."""
    lines = [_relevance_atoms(e),
             [f"score {e['score']:.3f}", f"= relevance {e['relevance']:.3f}",
              f"× (1 + {e['weight']:g} × salience {e['salience']:.3f})",
              f"× (1 + {e['fire_weight']:g} × firing {e['firing']})"]]
    parts = e.get("components")
    if parts:
        named = [f"{name} {parts[name]:.2f}" for name in SALIENCE_NAMES if name in parts]
        lines.append([f"salience {e['salience']:.3f} from", *(
            n + ("," if i < len(named) - 1 else "") for i, n in enumerate(named))])
    for f in e.get("fires") or ():
        lines.append([f"fires {f['id']} ({'grounded' if f['grounded'] else 'ambient'}):",
                      f["why"]])
    if e.get("placement"):
        lines.append([f"placed {e['placement']}"])
    return lines


def _relevance_atoms(e: dict) -> list[str]:
    dense = f"cosine {e['cosine']:.3f}" + (f", rank {e['dense_rank']:g}"
                                           if e.get("dense_rank") is not None else "")
    bm25 = e.get("bm25")
    if bm25 is not None:
        words = f"BM25 {-bm25:.2f}, higher is better, rank {e['lexical_rank']:g}"
    elif e.get("lexical_term"):
        words = "no query word in it; a commitment's note counts its meaning here too"
    else:
        words = "no query word in it"
    head = f"relevance {e['relevance']:.3f}"
    if e["mode"] == "dense":
        return [head, f"= meaning ({dense})"]
    if e["mode"] == "lexical":
        return [head, f"= words ({words}),", "scaled to the best hit"]
    return [head, f"= meaning {e['dense_term']:.3f} ({dense})",
            f"+ words {e['lexical_term']:.3f} ({words})"]


def status(result, as_json: bool) -> None:
    doc = result.as_dict()
    if as_json:
        emit_json(doc)
        return
    from rich.text import Text

    out = _console(False)
    c = doc["counts"]
    field(out, "vault", [Text(doc["vault"])], indent=0)
    field(out, "store", [Text(doc["db"])], indent=0)
    field(out, "notes", [f"{c['notes']} (deleted {c['deleted']}),", f"chunks {c['chunks']},",
                         f"vectors {c['vectors']},", f"links {c['links']}",
                         f"({c['unresolved_links']} unresolved links to",
                         f"{c['unresolved_targets']} notes),", f"tags {c['tags']},",
                         f"ops {c['ops']}"], indent=0)
    if doc["ledger"]:
        field(out, "ledger", _joined([f"{k} {v}" for k, v in sorted(doc["ledger"].items())]),
              indent=0)
    for kind, by_status in sorted(doc["prospective"].items()):
        field(out, f"{kind}:", _joined([f"{k} {v}" for k, v in sorted(by_status.items())]),
              indent=0)
    if doc.get("multilingual"):
        field(out, "multilingual", doc["multilingual"].split(), indent=0, hang=2)
    if len(doc.get("models") or ()) > 1:  # the multilingual option, or a model switch
        field(out, "models", _joined([f"{m['model']} {m['vectors']} vectors"
                                      + ("" if m["in_use"] else " (not in use)")
                                      for m in doc["models"]]), indent=0, hang=2)
    for run in doc["last_runs"].values():
        if run:
            field(out, f"last {run['kind']}:", [f"{run['finished'] or run['started']}",
                                                f"({run['status']})"], indent=0)
    for link in doc["unresolved_links"][:20]:
        hint = (f"(an alias of {link['alias_of'][0]}: link the note by its name)"
                if link.get("alias_of") else "")
        field(out, "unresolved", [Text(f"{link['source']}:{link['line']}", style="dim"), "→",
                                  f"[[{link['target']}]]", *([hint] if hint else [])],
              indent=0, hang=2)
    for w in doc["warnings"][:50]:
        where = f"{w['path']}{':' + str(w['line']) if w['line'] else ''}:"
        field(out, "warning", [Text(where, style="dim"), w["message"]], indent=0, hang=2)


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
    from rich.text import Text

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
        field(out, "", [Text(_seen(item.action), style="bold"),
                        Text(" " + _seen(item.id), style="dim")], indent=2, hang=2)
        field(out, "why:", [_seen(item.why)])
        field(out, "notes:", _joined([_seen(n) for n in item.notes]) if item.notes
              else ["no linked notes"])


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
    for lost in getattr(result, "lost", []):
        warn(f"{lost['ledger']}: {lost['message']}")
    if not result.results:
        warn("no ledger entries")
        return
    stems = [_stem(p) for p in {n for r in result.results for n in r["notes"]}]
    shared = {stem for stem in stems if stems.count(stem) > 1}  # two notes, one name
    rows = [_ledger_row(r, shared) for r in result.results]
    out = _console(False)
    if out.width < 100:  # a table of six columns folds every word at 80: one entry, two lines
        from rich.text import Text

        for r, (when, notes) in zip(result.results, rows, strict=True):
            out.print(f"[bold]{_shown(r['id'])}[/]  {r['status']}  {_shown(when)}",
                      overflow="ellipsis", no_wrap=True, highlight=False)
            arrow = _joined([_seen(n) for n in notes])
            if arrow:
                arrow[0] = Text(" → ") + arrow[0]
            field(out, "", [Text(_seen(r["action"])), *arrow,
                            *([Text(f" ({r['revisions']} revisions)", style="dim")]
                              if r["revisions"] > 1 else [])])
        return
    table = _table("id", "status", "when", "action", "notes", "rev",
                   no_wrap=("id", "status", "rev"), wide={"when": 2, "action": 3, "notes": 2})
    for r, (when, notes) in zip(result.results, rows, strict=True):
        table.add_row(_shown(r["id"]), r["status"], _shown(when), _shown(r["action"]),
                      _shown(", ".join(notes)), str(r["revisions"]))
    out.print(table)


def _ledger_row(r: dict, shared: set[str]) -> tuple[str, list[str]]:
    """An entry's when (date, window or condition, and recurrence) and its notes, named as
    Obsidian shows a link, by path where two notes share a name (the JSON has paths); a
    list, since a name may hold ", " itself."""
    when = r["due"] or r["fires_from"] or (f"when {r['condition']}" if r["condition"] else "")
    if r["recurrence"]:
        when += f" 🔁 {r['recurrence']}"
    notes = [*(n if _stem(n) in shared else _stem(n) for n in r["notes"]),
             *(f"?{t}" for t in r["unresolved"])]
    return when, notes


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def ledger_history(result, as_json: bool) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    out = _console(False)
    out.print(f"[bold]{_shown(result.id)}[/] ({result.status}) {_shown(result.ledger)}:"
              f"{result.line}\n  {_shown(result.raw)}", highlight=False)
    for rev in result.revisions:
        out.print(f"  {rev['ts']}  [bold]{rev['kind']}[/]  {_shown(_revision_text(rev))}",
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
        return (f"{done}{due}; next {d.get('next_due') or d.get('next') or 'undated'} "
                f"(🔁 {d.get('recurrence')}); kept as {d.get('occurrence')}")
    if kind == "rescheduled":  # the dates that changed, not the window they open
        changed = d.get("fields") or {"": d}
        return "; ".join(f"{name} {f.get('from') or 'undated'} → {f.get('to') or 'undated'}"
                         .strip() for name, f in changed.items())
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
    out = _console(False)
    if out.width < 100:  # five columns fold the item one word a line at 80: two lines each
        from rich.text import Text

        for r in result.results:
            field(out, "", [Text(r["id"], style="bold"), Text(f" {r['kind']}"), Text(r["status"]),
                            Text(f" {r['path']}:{r['line']}", style="dim")], indent=0, hang=4)
            field(out, "", [Text(r["text"])])
        return
    table = _table("id", "kind", "status", "item", "note", no_wrap=("id", "kind", "status"),
                   wide={"item": 3, "note": 2})
    for r in result.results:
        table.add_row(_esc(r["id"]), r["kind"], r["status"], _esc(r["text"]),
                      _esc(f"{r['path']}:{r['line']}"))
    out.print(table)


def nudge(result, as_json: bool, verbose: bool = False) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    n = result.nudge
    if verbose:  # silence is a first-class answer; asked, it says why
        _nudge_candidates(result)
    if n is None:
        return
    notes = "".join(f"\n  → {p}" for p in n.item.notes)
    sys.stdout.write(f"{n.item.text}\n  why now: {n.why}  [{n.item.id}]{notes}\n"
                     f"  answer: vaultmem feedback {n.item.id} accept|dismiss|snooze\n")


def _nudge_candidates(result) -> None:
    """`nudge -v` on stderr: the verdict, then each top candidate's sum and what held it."""
    head = "nudged" if result.nudge else f"silent: {result.reason}"
    lines = [f"{head} ({result.open} open item(s), θ = {result.theta:.2f})"]
    for c in result.candidates:
        t = c.terms
        lines.append(
            f"  {c.item.id}  V {c.value:.2f} = base {t.base:.2f} + urgency {t.urgency:.2f} "
            f"+ hours {t.hours:.2f} + cue {t.cue:.2f} + novelty {t.novelty:.2f} "
            f"− fatigue {t.fatigue:.2f}"
            + (f" (of it, other nudges dismissed today {t.day:.2f})" if t.day else "")
            + f"  [{c.held or 'nudged'}]")
    warn("\n".join(lines))


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
    dates = ", ".join(f"{name} {day}" for name, day in (
        ("from", result.start), ("scheduled", result.scheduled), ("due", result.due)) if day)
    warn(f"added to {result.ledger}:{result.line}: {result.text}"
         + (f"\n  {dates}" if dates else ""))
    for name in result.unresolved:
        warn(f"warning: [[{name}]] names no note in the vault (yet): the link is written as "
             "given; check the name, or create the note")
    _not_indexed(result.indexed)


def _not_indexed(indexed: bool) -> None:
    if not indexed:
        warn("note: another vaultmem run is writing the index: it was not brought in step; "
             "the next `vaultmem index` reads the new line")


def revised(result, as_json: bool) -> None:
    """`ledger done`, `cancel`, `move`: the id on stdout, the line written on stderr."""
    if as_json:
        emit_json(result.as_dict())
        return
    sys.stdout.write(f"{result.id}\n")
    warn(f"{result.kind}: {_seen(result.ledger)}:{result.line}: {_seen(result.text)}")
    if result.occurrence:
        kept = result.occurrence["id"] or "an occurrence of its own"
        warn(f"  the done occurrence is kept as {kept} at {_seen(result.ledger)}:"
             f"{result.occurrence['line']}: {_seen(result.occurrence['text'])}")
    _not_indexed(result.indexed)


def restored(result, as_json: bool) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    sys.stdout.write(f"{result.id}\n")
    if result.action == "dropped":
        warn(f"{result.id}: forgotten; the line stays out of {result.ledger}")
    else:
        warn(f"put back in {result.ledger}:{result.line}: {result.text}\n"
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
    for d in result.results:
        if d.status == "accepted":
            sys.stdout.write(f"{d.entry}\n")
            warn(f"{d.id} accepted: added to {d.ledger}:{d.line}: {d.text}")
        else:
            warn(f"{d.id} rejected: it will not be suggested again")
    _not_indexed(result.indexed)


def note(result, as_json: bool) -> None:
    doc = result.as_dict()
    if as_json:
        emit_json(doc)
        return
    from rich.text import Text

    out = _console(False)
    state = "deleted since indexed" if not doc["on_disk"] else (
        "changed since indexed" if doc["changed_since_index"] else "indexed")
    field(out, "", [Text(doc["title"], style="bold"), Text(" " + doc["path"], style="dim"),
                    Text(f"({state})", style="dim")], indent=0, hang=2)
    if doc["tags"]:
        field(out, "tags", _joined(doc["tags"]), indent=0)
    if doc["aliases"]:
        field(out, "aliases", _joined(doc["aliases"]), indent=0)
    for c in doc["commitments"]:
        when = c["due"] or (f"when {c['condition']}" if c["condition"] else "")
        field(out, "commitment", [Text(f"{c['id']} ({c['status']})", style="yellow"),
                                  Text(c["action"] + (" ·" if when else "")),
                                  *([Text(when)] if when else [])], indent=0, hang=2)
    links = [link["path"] or f"?{link['target']}" for link in doc["links"]]
    if links:
        field(out, "links →", _joined(list(dict.fromkeys(links))), indent=0)
    back = list(dict.fromkeys(b["path"] for b in doc["backlinks"]))
    if back:
        field(out, "linked from ←", _joined(back), indent=0)
    if doc["text"] is not None:
        out.print("")
        sys.stdout.flush()
        out.file.flush()
        sys.stdout.write(doc["text"] if doc["text"].endswith("\n") else doc["text"] + "\n")
