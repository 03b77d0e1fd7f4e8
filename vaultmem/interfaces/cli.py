"""The typer app: parse options, call the core, hand results to `render`.

No SQL and no math here. Heavy modules (numpy, sqlite-utils, fastembed) are
imported inside the commands so `vaultmem --help` stays light.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError, VaultmemError, in_terms

app = typer.Typer(
    help="A forward-looking memory for a markdown notes vault.",
    no_args_is_help=True, pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

VaultOpt = Annotated[Path | None, typer.Option(
    "--vault", envvar="VAULTMEM_VAULT", help="Vault folder (default: current directory).",
    show_default=False)]
DbOpt = Annotated[Path | None, typer.Option(
    "--db", envvar="VAULTMEM_DB", help="Store path (default: <vault>/.vaultmem/vaultmem.db).",
    show_default=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
NowOpt = Annotated[str | None, typer.Option(
    "--now", help="The current time, ISO date or datetime (default: the system clock).",
    show_default=False)]
DebugOpt = Annotated[bool, typer.Option(
    "--debug", help="Show the traceback of a failure (also VAULTMEM_DEBUG=1); taken before "
                    "or after the command.")]


def _complete_note(ctx: typer.Context, incomplete: str):
    from .completion import note_names

    return note_names(ctx, incomplete)


def _complete_entry(ctx: typer.Context, incomplete: str):
    from .completion import entry_ids

    return entry_ids(ctx, incomplete)


def parse_now(value: str | None) -> datetime | None:
    """--now as naive local time (aware input converted: clock.py); None (the clock) when
    the option was not given."""
    if value is None:
        return None
    from .. import clock

    try:
        return clock.parse_now(value)
    except ValueError as exc:
        raise typer.BadParameter(in_terms(str(exc), "cli"), param_hint="--now") from None


def parse_day(value: str | None, flag: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not a date: use YYYY-MM-DD",
                                 param_hint=flag) from None


def _vault(vault, db, *, create: bool = False, preload: bool = False):
    """Open the vault (the library does the folder check and finds the root). Options of
    a call go to the call, as the MCP server passes them: one route for every face."""
    from ..api import Vault

    return Vault.open(vault, db, create=create, preload=preload)


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        sys.stdout.write(f"vaultmem {__version__}\n")
        raise typer.Exit()


@app.callback()
def _root(ctx: typer.Context, version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print the version and exit.")] = False, debug: DebugOpt = False) -> None:
    """A forward-looking memory for a markdown notes vault."""
    ctx.obj = {"debug": debug}  # for the commands that pass it on (`mcp`)


def _take_debug(argv: list[str]) -> tuple[bool, list[str]]:
    """`--debug` is the root's option, written anywhere before `--` (after the command
    too): it is moved in front of the command, where the root reads it."""
    end = argv.index("--") if "--" in argv else len(argv)
    if "--debug" not in argv[:end]:
        return False, argv
    rest = [a for a in argv[:end] if a != "--debug"]
    return True, ["--debug", *rest, *argv[end:]]


@app.command()
def index(
    vault_arg: Annotated[Path | None, typer.Argument(
        metavar="[VAULT]", help="Vault folder (or --vault).", show_default=False)] = None,
    full: Annotated[bool, typer.Option("--full", help="Re-read and re-parse every file.")] = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Move the store aside (kept) and "
                                          "rebuild it from the vault with its history.")] = False,
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
) -> None:
    """Parse the vault into the store (incremental; --full re-parses everything)."""
    from . import render

    when = parse_now(now)
    if rebuild:  # the store may not even open: recover never opens it before moving it
        from ..recover import rebuild_vault

        with render.progress(not json_) as bar:
            report = rebuild_vault(vault_arg or vault, db, now=when, progress=bar)
        return render.index_report(report, json_)
    with _stop_on_sigterm("index"), _vault(vault_arg or vault, db, create=True) as v, \
            render.progress(not json_) as bar:
        report = v.index(full=full, now=when, progress=bar)
    render.index_report(report, json_)


FormatOpt = Annotated[str | None, typer.Option(
    "--format", help="For scripts: paths (one per line), md, csv or json (as --json).",
    show_default=False)]
FORMATS = ("paths", "md", "csv", "json")


def output_format(fmt: str | None, json_: bool) -> str | None:
    """--format, with --json as `--format json`; None is the terminal view."""
    if fmt is not None and fmt not in FORMATS:
        raise typer.BadParameter(f"{fmt!r}: use {', '.join(FORMATS)}", param_hint="--format")
    if json_ and fmt not in (None, "json"):
        raise typer.BadParameter(f"--json and --format {fmt} ask for two formats: give one",
                                 param_hint="--format")
    return "json" if json_ else fmt


def _many(values: list[str] | None) -> list[str] | None:
    return values or None


@contextmanager
def _stop_on_sigterm(what: str):
    """SIGTERM (a service manager, `kill`) stops a run as Ctrl-C does: between two
    statements, the open transaction rolled back, the run recorded as interrupted, one
    line and exit 1, instead of dying with the run still marked running."""
    import signal
    import threading

    def stop(signum, frame):
        raise KeyboardInterrupt

    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, stop) if main_thread else None
    try:
        yield
    except KeyboardInterrupt:
        raise VaultmemError(f"stopped: the {what} run was interrupted; what it committed is "
                            f"kept, and the next `vaultmem {what}` finishes the rest") from None
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


@app.command()
def query(
    text: Annotated[str, typer.Argument(help="What you are looking for, or the current context.")],
    limit: Annotated[int, typer.Option("-k", "--limit", min=1, help="How many results.")] = 10,
    folders: Annotated[list[str] | None, typer.Option(
        "--in", metavar="FOLDER", help="Only notes under this vault-relative folder "
        "(repeat for several).", show_default=False)] = None,
    not_folders: Annotated[list[str] | None, typer.Option(
        "--not-in", metavar="FOLDER", help="Leave out notes under this folder (repeatable).",
        show_default=False)] = None,
    tags: Annotated[list[str] | None, typer.Option(
        "--tag", metavar="TAG", help="Only notes tagged TAG or a tag under it (repeat: all "
        "of them); -TAG leaves them out.", show_default=False)] = None,
    not_tags: Annotated[list[str] | None, typer.Option(
        "--not-tag", metavar="TAG", help="Leave out notes tagged TAG or under it.",
        show_default=False)] = None,
    where: Annotated[list[str] | None, typer.Option(
        "--where", metavar="KEY=VALUE", help="Only notes whose front matter has KEY=VALUE "
        "(a list: among its items), or KEY!=VALUE; repeat: all of them.",
        show_default=False)] = None,
    changed_since: Annotated[str | None, typer.Option(
        "--changed-since", metavar="DATE", help="Only notes whose file changed on or after "
        "DATE (YYYY-MM-DD or a datetime).", show_default=False)] = None,
    changed_before: Annotated[str | None, typer.Option(
        "--changed-before", metavar="DATE", help="Only notes whose file changed before DATE.",
        show_default=False)] = None,
    include_ledger: Annotated[bool, typer.Option(
        "--include-ledger", help="Ledger notes as results too (the firing strip speaks for "
        "their commitments).")] = False,
    weight: Annotated[float | None, typer.Option(
        "--weight", min=0.0, help="W: the standing-salience blend (default from config).",
        show_default=False)] = None,
    no_prospective: Annotated[bool, typer.Option(
        "--no-prospective", help="Relevance alone (words and meaning, as --mode says): "
                                 "no salience, no firing boost.")] = False,
    floor: Annotated[bool, typer.Option(
        "--floor", help="Pin the notes of commitments that fire on the query first.")] = False,
    include_closed: Annotated[bool, typer.Option(
        "--include-closed", help="Include closed and stale prospective items.")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Show every score component.")] = False,
    mode: Annotated[str | None, typer.Option(
        "--mode", help="hybrid (default), dense or lexical.", show_default=False)] = None,
    no_log: Annotated[bool, typer.Option(
        "--no-log", help="Do not log the top results as mentions for salience.")] = False,
    open_: Annotated[bool, typer.Option(
        "--open", help="Open the first result in Obsidian.")] = False,
    editor: Annotated[bool, typer.Option(
        "--editor", help="Open the first result in $EDITOR instead (implies --open).")] = False,
    fmt: FormatOpt = None,
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
) -> None:
    """Rank notes for TEXT."""
    from . import render

    when = parse_now(now)
    fmt = output_format(fmt, json_)
    if mode not in (None, "hybrid", "dense", "lexical"):
        raise typer.BadParameter(f"{mode!r}: use hybrid, dense or lexical", param_hint="--mode")
    with _vault(vault, db, preload=True) as v:
        result = v.query(text, now=when, log=not no_log, limit=limit, weight=weight, mode=mode,
                         folders=_many(folders), not_folders=_many(not_folders),
                         tags=_many(tags), not_tags=_many(not_tags), where=_many(where),
                         changed_since=changed_since, changed_before=changed_before,
                         include_ledger=include_ledger,
                         prospective=not no_prospective, floor=floor,
                         include_closed=include_closed, explain=explain)
        root = v.settings.vault
    render.query_result(result, explain=explain, fmt=fmt, vault=root)
    if open_ or editor:
        _open_first(root, result, editor)


def _open_first(root: Path, result, editor: bool) -> None:
    """Open the first result where its user reads it (`opener`)."""
    from .. import opener

    if not result.results:
        raise VaultmemError("nothing to open: the query returned no note")
    path = result.results[0].path
    where = opener.open_note(root, path, editor=editor)
    sys.stderr.write(f"opened {path} in {where}\n")


@app.command()
def salience(vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None,
             json_: JsonOpt = False) -> None:
    """Recompute every note's standing salience and its components (nightly, from cron)."""
    from . import render

    when = parse_now(now)
    with _stop_on_sigterm("salience"), _vault(vault, db) as v:
        report = v.salience(now=when)
    render.salience_report(report, json_)


@app.command()
def due(
    context: Annotated[str | None, typer.Option(
        "--context", help="The current situation, matched against trigger conditions.",
        show_default=False)] = None,
    horizon: Annotated[int, typer.Option(
        "--horizon", min=0, help="Also list what comes up within this many days.")] = 7,
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
) -> None:
    """The due set now: overdue, due today, triggered by --context, and upcoming; and why."""
    from . import render

    when = parse_now(now)
    with _vault(vault, db, preload=bool(context)) as v:
        result = v.due(context=context, now=when, horizon=horizon)
    render.due(result, json_)


ledger_app = typer.Typer(
    help="List ledger entries; `ledger show ID` prints one entry's history; `ledger add` "
         "appends a commitment; `ledger done`, `cancel` and `move` close or reschedule one; "
         "`ledger suggest` offers the ones found in your notes.",
    invoke_without_command=True, no_args_is_help=False)
app.add_typer(ledger_app, name="ledger")


@ledger_app.callback()
def ledger_list(
    ctx: typer.Context,
    show_all: Annotated[bool, typer.Option(
        "--all", help="Include done, cancelled and removed entries.")] = False,
    prospective: Annotated[bool, typer.Option(
        "--prospective", help="List plans, ideas, decisions, questions and insights.")] = False,
    vault: VaultOpt = None, db: DbOpt = None, json_: JsonOpt = False,
) -> None:
    """List ledger entries with status and history counts."""
    if ctx.invoked_subcommand:
        return
    from . import render

    with _vault(vault, db) as v:
        if prospective:
            render.prospective_list(v.items(include_closed=show_all), json_)
        else:
            render.ledger_list(v.ledger(include_closed=show_all), json_)


@ledger_app.command("show")
def ledger_show(
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="An entry id from `ledger`.",
                                            autocompletion=_complete_entry)],
    vault: VaultOpt = None, db: DbOpt = None, json_: JsonOpt = False,
) -> None:
    """One entry's full history of revisions."""
    from . import render

    with _vault(vault, db) as v:
        render.ledger_history(v.history(entry_id), json_)


@ledger_app.command("add")
def ledger_add(
    text: Annotated[str, typer.Argument(help="What to do, e.g. 'Pay the plumber'.")],
    due_on: Annotated[str | None, typer.Option(
        "--due", help="Due date: YYYY-MM-DD or words ('next friday', 'end of the month').",
        show_default=False)] = None,
    start: Annotated[str | None, typer.Option(
        "--start", help="Start date (🛫), when the firing window opens: a date or words.",
        show_default=False)] = None,
    scheduled: Annotated[str | None, typer.Option(
        "--scheduled", help="Scheduled date (⏳): a date or words.", show_default=False)] = None,
    when: Annotated[str | None, typer.Option(
        "--when", help="Trigger condition, e.g. 'the invoice arrives'.",
        show_default=False)] = None,
    keywords: Annotated[str | None, typer.Option(
        "--keywords", help="Words that fire it, comma-separated: 'invoice, plumber'.",
        show_default=False)] = None,
    link: Annotated[list[str] | None, typer.Option(
        "--link", help="A note it concerns (repeat for several).", show_default=False)] = None,
    project: Annotated[str | None, typer.Option(
        "--project", help="Its project.", show_default=False)] = None,
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
) -> None:
    """Append one commitment to the ledger note, with a new block id (other lines untouched),
    and bring the index in step with it."""
    from . import render

    when_ = parse_now(now)
    words = tuple(w.strip() for w in (keywords or "").split(",") if w.strip())
    with _vault(vault, db) as v:
        added = v.add_commitment(text, due=due_on, when=when, links=tuple(link or ()),
                                 project=project, start=start, scheduled=scheduled,
                                 keywords=words, now=when_)
    render.added(added, json_)


EntryArg = Annotated[str, typer.Argument(metavar="ID", help="An entry id from `ledger`.",
                                         autocompletion=_complete_entry)]
OnOpt = Annotated[str | None, typer.Option(
    "--on", help="The day it happened, today or before: YYYY-MM-DD or words ('friday': "
                 "the last Friday; default: today).",
    show_default=False)]


@ledger_app.command("done")
def ledger_done(entry_id: EntryArg, on: OnOpt = None, vault: VaultOpt = None,
                db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False) -> None:
    """Check a commitment off: its line gets ✅ and the day, as Obsidian Tasks writes it (a
    recurring one also gets its next occurrence)."""
    from . import render

    when_ = parse_now(now)
    with _vault(vault, db) as v:
        render.revised(v.complete_commitment(entry_id, on=on, now=when_), json_)


@ledger_app.command("cancel")
def ledger_cancel(entry_id: EntryArg, on: OnOpt = None, vault: VaultOpt = None,
                  db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False) -> None:
    """Cancel a commitment: its line gets [-] and ❌ with the day, as Obsidian Tasks writes it."""
    from . import render

    when_ = parse_now(now)
    with _vault(vault, db) as v:
        render.revised(v.cancel_commitment(entry_id, on=on, now=when_), json_)


@ledger_app.command("move")
def ledger_move(
    entry_id: EntryArg,
    due_on: Annotated[str, typer.Option(
        "--due", help="The new due date: YYYY-MM-DD or words ('next friday').")],
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
) -> None:
    """Reschedule a commitment: its line gets the new 📅 due date (nothing else changes)."""
    from . import render

    when_ = parse_now(now)
    with _vault(vault, db) as v:
        render.revised(v.reschedule_commitment(entry_id, due_on, now=when_), json_)


@ledger_app.command("restore")
def ledger_restore(
    entry_id: Annotated[str, typer.Argument(
        metavar="ID", help="A lost line's id, from `ledger` (or `status`).")],
    drop: Annotated[bool, typer.Option(
        "--drop", help="Forget it instead: the line was removed on purpose.")] = False,
    vault: VaultOpt = None, db: DbOpt = None, json_: JsonOpt = False,
) -> None:
    """Put back a line `ledger add` appended that the ledger was saved without (an editor
    holding an older copy), or --drop the offer."""
    from . import render

    with _vault(vault, db) as v:
        render.restored(v.restore(entry_id, drop=drop), json_)


@ledger_app.command("suggest")
def ledger_suggest(
    since: Annotated[str | None, typer.Option(
        "--since", help="Only notes written on or after this day, YYYY-MM-DD.",
        show_default=False)] = None,
    min_confidence: Annotated[float | None, typer.Option(
        "--min-confidence", min=0.0, max=1.0,
        help="Offer candidates down to this confidence (default: form_confidence).",
        show_default=False)] = None,
    vault: VaultOpt = None, db: DbOpt = None, json_: JsonOpt = False,
) -> None:
    """Commitments found in your notes that are not in the ledger yet, each with the line
    `ledger accept` would append."""
    from . import render

    day = parse_day(since, "--since")
    with _vault(vault, db) as v:
        render.suggestions(v.suggestions(day, min_confidence=min_confidence), json_)


@ledger_app.command("accept")
def ledger_accept(
    cands: Annotated[list[str], typer.Argument(
        metavar="CAND...", help="Candidate ids from `ledger suggest` (one or more).")],
    edit: Annotated[str | None, typer.Option(
        "--edit", help="Your own wording of the commitment (replaces the action; one CAND).",
        show_default=False)] = None,
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
) -> None:
    """Append suggested commitments to the ledger (as `ledger add` does) and mark them
    accepted."""
    from . import render

    when = parse_now(now)
    with _vault(vault, db) as v:
        render.decision(v.accept(cands, edit, now=when), json_)


@ledger_app.command("reject")
def ledger_reject(
    cand: Annotated[str, typer.Argument(metavar="CAND", help="A candidate id from `ledger "
                                        "suggest`.")],
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
) -> None:
    """Hide a suggested commitment for good (it is kept, marked rejected)."""
    from . import render

    when = parse_now(now)
    with _vault(vault, db) as v:
        render.decision(v.reject(cand, now=when), json_)


@app.command()
def get(
    path: Annotated[str, typer.Argument(
        metavar="PATH", help="A vault-relative path, or a note name as a link writes it.",
        autocompletion=_complete_note)],
    vault: VaultOpt = None, db: DbOpt = None, json_: JsonOpt = False,
) -> None:
    """One note as stored and on disk: front matter, text, links, backlinks, commitments."""
    from . import render

    with _vault(vault, db) as v:
        render.note(v.get(path), json_)


@app.command()
def related(
    note: Annotated[str, typer.Argument(
        metavar="NOTE", help="A vault-relative path, or a note name as a link writes it.",
        autocompletion=_complete_note)],
    limit: Annotated[int, typer.Option("-k", "--limit", min=1, help="How many notes.")] = 10,
    depth: Annotated[int, typer.Option(
        "--depth", min=1, max=2, help="Follow links 1 or 2 steps.")] = 2,
    fmt: FormatOpt = None,
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
) -> None:
    """Notes close to NOTE by meaning, links (1-2 steps) and shared tags, each with its
    reasons; and NOTE's open commitments, with what fires on them now."""
    from . import render

    when = parse_now(now)
    fmt = output_format(fmt, json_)
    with _vault(vault, db) as v:
        result = v.related(note, limit=limit, depth=depth, now=when)
        root = v.settings.vault
    render.related(result, fmt, vault=root)


@app.command()
def nudge(
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="On stderr: why it is silent, and the top candidates with "
        "their terms and the rule that held each back.")] = False,
    context: Annotated[str | None, typer.Option(
        "--context", help="What you are doing now: an entry whose trigger it matches may "
        "nudge on that cue (the matcher of `due --context`).", show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Record nothing: what a tick would show (for trying --now).")] = False,
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
) -> None:
    """One proactive tick: print at most one nudge, or nothing (run it every 15 minutes).
    What it shows is recorded (fatigue and the daily cap count it), --now included;
    --dry-run records nothing."""
    from . import render

    when = parse_now(now)
    with _vault(vault, db) as v:
        result = v.nudge(now=when, context=context, record=not dry_run)
    render.nudge(result, json_, verbose)


@app.command()
def feedback(
    item_id: Annotated[str, typer.Argument(metavar="ID", help="The id printed with the nudge.")],
    answer: Annotated[str, typer.Argument(
        metavar="ANSWER", help="accept, dismiss (raises fatigue) or snooze.")],
    for_: Annotated[str | None, typer.Option(
        "--for", help="Snooze length: 30m, 2h, 1d (default 3h).", show_default=False)] = None,
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
) -> None:
    """Record your answer to a nudge: accept, dismiss (raises fatigue) or snooze."""
    from ..nudge import parse_duration
    from . import render

    when = parse_now(now)
    snooze = parse_duration(for_) if for_ is not None else None
    with _vault(vault, db) as v:
        render.feedback(v.feedback(item_id, answer, snooze=snooze, now=when), json_)


@app.command()
def cron(vault: VaultOpt = None, db: DbOpt = None) -> None:
    """Print crontab lines for this vault: index hourly, salience nightly, nudge every 15 min."""
    import shutil

    from ..api import locate

    settings = locate(vault, db)
    exe = _own_script() or shutil.which("vaultmem") or f"{sys.executable} -m vaultmem"
    target = f"--vault {_quote(settings.vault)}"
    if settings.db != settings.vault / ".vaultmem" / "vaultmem.db":
        target += f" --db {_quote(settings.db)}"
    sys.stdout.write(
        f"# vaultmem for {settings.vault}\n"
        f"0 * * * *    {exe} index {target} --json >/dev/null\n"
        f"30 3 * * *   {exe} salience {target} >/dev/null\n"
        f"*/15 * * * * {exe} nudge {target}\n")


def _own_script() -> str | None:
    """The `vaultmem` script of the Python running this one (a venv's bin/), so that
    cron runs this install whatever else is on its PATH."""
    script = Path(sys.executable).parent / ("vaultmem.exe" if sys.platform == "win32"
                                            else "vaultmem")
    return str(script) if script.is_file() else None


def _quote(path) -> str:
    import shlex

    return shlex.quote(str(path))


@app.command()
def status(vault: VaultOpt = None, db: DbOpt = None, json_: JsonOpt = False) -> None:
    """What is indexed: counts, last runs, unresolved links, warnings, settings."""
    from . import render

    with _vault(vault, db) as v:
        render.status(v.status(), json_)


def main(argv: list[str] | None = None) -> int:
    """Console entry point: domain errors exit 1 with one line, usage errors exit 2."""
    debug, argv = _take_debug(list(sys.argv[1:] if argv is None else argv))
    debug = debug or bool(_env_debug())
    try:
        result = app(args=argv, prog_name="vaultmem", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        sys.stderr.write("aborted\n")
        return 1
    except VaultmemError as exc:
        if debug:
            raise
        sys.stderr.write(f"vaultmem: {in_terms(str(exc), 'cli')}\n")
        return 2 if isinstance(exc, UsageError) else 1
    except Exception as exc:  # noqa: BLE001 - last resort: one line, not a traceback
        if _is_usage_error(exc):  # typer vendors click: match its exceptions by shape
            exc.show()
            return exc.exit_code
        if debug:
            raise
        from ..store import explain  # a damaged or read-only store: one line, what to do

        if (known := explain(exc)) is not None:
            sys.stderr.write(f"vaultmem: {in_terms(str(known), 'cli')}\n")
            return 1
        sys.stderr.write(f"vaultmem: internal error: {type(exc).__name__}: {exc} "
                         "(run with --debug for the traceback)\n")
        return 1


def _is_usage_error(exc: Exception) -> bool:
    return any(cls.__name__ in ("ClickException", "UsageError") for cls in type(exc).__mro__) \
        and hasattr(exc, "show")


def _env_debug() -> str | None:
    import os

    return os.environ.get("VAULTMEM_DEBUG")


def entry() -> None:
    """The console script: `main()`, then an exit without the interpreter's teardown."""
    finish(main())


def finish(code: int) -> None:
    """End the process once everything a run owes is done, skipping the teardown.

    Freeing every module, onnxruntime's session and arena and numpy's buffers at exit
    costs a cold query ~0.4 s and does nothing the user needs. What normal exit would do
    is done first: every store still open is closed (closing checkpoints the WAL, and
    commands commit as they go, so nothing is pending; closing them by name costs
    nothing, where collecting the garbage that may hold one costs a cold query ~15 ms of
    CPU), atexit handlers run and stdout/stderr are flushed. With another non-daemon
    thread still running (`watch`, the MCP server), the normal exit (which waits for it)
    is taken instead. In-process callers of `main()` (tests, scripts) never come here.
    """
    import atexit
    import os
    import threading

    store = sys.modules.get("vaultmem.store.connection")  # not imported: no store was opened
    if store is not None:
        store.close_all()
    main_thread = threading.main_thread()
    if any(t is not main_thread and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: Python's own exit reports 120
        code = code or 120
    os._exit(code)


@app.command("mcp")
def mcp_server(
    ctx: typer.Context,
    no_watch: Annotated[bool, typer.Option(
        "--no-watch", help="Check the vault with a walk before each answer instead of a file "
                           "watcher (for file systems without change notification).")] = False,
    no_index: Annotated[bool, typer.Option(
        "--no-index", help="Do not build an index for a vault never indexed (exit 1 "
                           "instead).")] = False,
    vault: VaultOpt = None, db: DbOpt = None,
) -> None:
    """Serve the vault to agents: an MCP server on stdio, the index kept fresh.

    Tools: search, get_note, related, due, ledger, ledger_history, add_commitment,
    complete_commitment, cancel_commitment, reschedule_commitment, status. The model
    loads once; a vault never indexed is indexed first (progress on stderr); before each
    answer, edits made on disk are indexed. SIGTERM or Ctrl-C at any moment: exit 0.
    """
    _stop_at_once("starting")  # until the server takes over; its SDK takes a while to load
    sys.stderr.write("vaultmem mcp: starting\n")
    sys.stderr.flush()
    from .mcp_server import serve

    debug = bool((ctx.obj or {}).get("debug"))  # the root's --debug
    serve(vault, db, watch=not no_watch, debug=debug, index=not no_index)


def _stop_at_once(doing: str) -> None:
    """SIGTERM or SIGINT from now on: say so and exit 0 at once (nothing is open yet)."""
    import os
    import signal

    def handle(signum, frame):
        os.write(2, f"vaultmem mcp: stopped by {signal.Signals(signum).name} while "
                    f"{doing}\n".encode())
        os._exit(0)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handle)


@app.command("watch")
def watch(
    vault_arg: Annotated[Path | None, typer.Argument(
        metavar="[VAULT]", help="Vault folder (or --vault).", show_default=False)] = None,
    debounce: Annotated[int, typer.Option(
        "--debounce", min=10, help="Milliseconds the vault must stay quiet before an "
                                   "index run.")] = 500,
    vault: VaultOpt = None, db: DbOpt = None,
) -> None:
    """Stay running and index as files change (debounced); Ctrl-C or SIGTERM stops it.

    One line per index run on stderr. If the vault folder is renamed, moved or unmounted,
    it waits for the same folder to come back; a different folder at that path exits 1.
    """
    from .watch import run

    raise typer.Exit(run(vault_arg or vault, db, debounce_ms=debounce))
