"""The typer app: parse options, call the core, hand results to `render`.

No SQL and no math here. Heavy modules (numpy, sqlite-utils, fastembed) are
imported inside the commands so `vaultmem --help` stays light.
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from .errors import VaultmemError

app = typer.Typer(
    help="A forward-looking memory for a markdown notes vault.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
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
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show tracebacks.")]


def parse_now(value: str | None) -> datetime:
    if not value:
        return datetime.now().replace(microsecond=0)
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not an ISO date or datetime, e.g. 2026-08-15 "
                                 "or 2026-08-15T09:30", param_hint="--now") from None


def _settings(vault, db, **flags):
    from . import config

    return config.load(vault, db, **flags)


def _open(settings, create: bool = False):
    from .store import Store

    return Store.open(settings.db, create=create, vault=settings.vault)


@app.command()
def index(
    vault_arg: Annotated[Path | None, typer.Argument(
        metavar="[VAULT]", help="Vault folder (or --vault).", show_default=False)] = None,
    full: Annotated[bool, typer.Option("--full", help="Re-read and re-parse every file.")] = False,
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Parse the vault into the store (incremental; --full re-parses everything)."""
    from . import render
    from .embed import FastEmbedder
    from .indexer import index_vault

    when = parse_now(now)
    settings = _settings(vault_arg or vault, db)
    if not settings.vault.is_dir():
        raise VaultmemError(f"vault {settings.vault} is not a folder: pass the vault path")
    store = _open(settings, create=True)
    with store.writer_lock("index"), render.progress(not json_) as bar:
        report = index_vault(store, settings, FastEmbedder(settings), now=when,
                             full=full, progress=bar)
    render.index_report(report, json_)


@app.command()
def query(
    text: Annotated[str, typer.Argument(help="What you are looking for, or the current context.")],
    limit: Annotated[int, typer.Option("-k", "--limit", min=1, help="How many results.")] = 10,
    prefix: Annotated[str | None, typer.Option(
        "--in", help="Only notes under this vault-relative folder.", show_default=False)] = None,
    weight: Annotated[float | None, typer.Option(
        "--weight", min=0.0, help="W: the standing-salience blend (default from config).",
        show_default=False)] = None,
    no_prospective: Annotated[bool, typer.Option(
        "--no-prospective", help="Pure cosine: no salience, no firing boost.")] = False,
    floor: Annotated[bool, typer.Option("--floor", help="Pin firing items first.")] = False,
    include_closed: Annotated[bool, typer.Option(
        "--include-closed", help="Include closed and stale prospective items.")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Show every score component.")] = False,
    mode: Annotated[str | None, typer.Option(
        "--mode", help="hybrid (default), dense or lexical.", show_default=False)] = None,
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Rank notes for TEXT."""
    from . import render
    from .embed import FastEmbedder
    from .rank import QueryOptions, run_query

    when = parse_now(now)
    if mode not in (None, "hybrid", "dense", "lexical"):
        raise typer.BadParameter(f"{mode!r}: use hybrid, dense or lexical", param_hint="--mode")
    settings = _settings(vault, db, weight=weight, mode=mode)
    store = _open(settings)
    opts = QueryOptions(limit=limit, prefix=prefix, weight=settings.weight,
                        fire_weight=settings.fire_weight, prospective=not no_prospective,
                        floor=floor, include_closed=include_closed, explain=explain,
                        log_mentions=settings.query_mentions, mode=settings.mode,
                        fusion=settings.fusion, rrf_k=settings.rrf_k,
                        lexical_weight=settings.lexical_weight)
    result = run_query(store, FastEmbedder(settings), text, opts, when, settings)
    render.query_result(result, json_, explain)


@app.command()
def salience(vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
             debug: DebugOpt = False) -> None:
    """Recompute every note's standing salience and its components (nightly, from cron)."""
    from . import render
    from .salience import run_salience

    when = parse_now(now)
    settings = _settings(vault, db)
    store = _open(settings)
    with store.writer_lock("salience"):
        run_id = store.start_run("salience", when.isoformat(timespec="seconds"))
        report = run_salience(store, settings, when)
    store.finish_run(run_id, datetime.now().isoformat(timespec="seconds"), "ok",
                     {"notes": report.notes, "seconds": report.seconds})
    render.salience_report(report, json_)


@app.command()
def due(
    context: Annotated[str | None, typer.Option(
        "--context", help="The current situation, matched against trigger conditions.",
        show_default=False)] = None,
    show_all: Annotated[bool, typer.Option(
        "--all", help="Also entries already reported today.")] = False,
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """The due set now: open ledger entries that fire, and why."""
    from . import render
    from .commitments import due_set, note_paths

    when = parse_now(now)
    settings = _settings(vault, db)
    store = _open(settings)
    vec, fingerprint = None, None
    from .embed import FastEmbedder, fingerprint_for

    fingerprint = fingerprint_for(settings)
    if context:
        vec = FastEmbedder(settings).embed([context])[0]
    firings = due_set(store, settings, when, context, vec, fingerprint, show_all)
    rows = [{"id": f.entry.id, "action": f.entry.action, "why": f.why, "kind": f.kind,
             "condition": f.entry.condition,
             "due": f.entry.due.isoformat() if f.entry.due else None,
             "ledger": f.entry.ledger_path, "line": f.entry.line,
             "notes": note_paths(store, f.entry.note_ids), **f.details} for f in firings]
    render.due(rows, when, context, json_)


ledger_app = typer.Typer(help="List ledger entries; `ledger show ID` prints one entry's history.",
                         invoke_without_command=True, no_args_is_help=False)
app.add_typer(ledger_app, name="ledger")


@ledger_app.callback()
def ledger_list(
    ctx: typer.Context,
    show_all: Annotated[bool, typer.Option(
        "--all", help="Include done, cancelled and removed entries.")] = False,
    prospective: Annotated[bool, typer.Option(
        "--prospective", help="List plans, ideas, decisions, questions and insights.")] = False,
    vault: VaultOpt = None, db: DbOpt = None, json_: JsonOpt = False, debug: DebugOpt = False,
) -> None:
    """List ledger entries with status and history counts."""
    if ctx.invoked_subcommand:
        return
    from . import render

    settings = _settings(vault, db)
    store = _open(settings)
    if prospective:
        from .prospective import list_items_view

        render.prospective_list(list_items_view(store, show_all), json_)
        return
    from .commitments import list_entries

    render.ledger_list(list_entries(store, show_all), json_)


@ledger_app.command("show")
def ledger_show(
    entry_id: Annotated[str, typer.Argument(metavar="ID", help="An entry id from `ledger`.")],
    vault: VaultOpt = None, db: DbOpt = None, json_: JsonOpt = False, debug: DebugOpt = False,
) -> None:
    """One entry's full history of revisions."""
    from . import render
    from .commitments import history

    settings = _settings(vault, db)
    doc = history(_open(settings), entry_id)
    if doc is None:
        raise VaultmemError(f"no ledger entry {entry_id!r}: `vaultmem ledger --all` lists them")
    render.ledger_history(doc, json_)


@app.command()
def nudge(vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
          debug: DebugOpt = False) -> None:
    """One proactive tick: print at most one nudge, or nothing (run it every 15 minutes)."""
    from . import render
    from .nudge import tick

    when = parse_now(now)
    settings = _settings(vault, db)
    store = _open(settings)
    result = tick(store, settings, when, oscillation=settings.nudge_oscillation)
    render.nudge(result, json_)


@app.command()
def feedback(
    item_id: Annotated[str, typer.Argument(metavar="ID", help="The id printed with the nudge.")],
    answer: Annotated[str, typer.Argument(metavar="accept|dismiss|snooze")],
    for_: Annotated[str, typer.Option("--for", help="Snooze length: 30m, 2h, 1d.")] = "3h",
    vault: VaultOpt = None, db: DbOpt = None, now: NowOpt = None, json_: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Record your answer to a nudge: accept, dismiss (raises fatigue) or snooze."""
    from . import render
    from .nudge import FEEDBACK_KINDS, record_feedback

    if answer not in FEEDBACK_KINDS:
        raise typer.BadParameter(f"{answer!r}: use accept, dismiss or snooze",
                                 param_hint="ANSWER")
    when = parse_now(now)
    settings = _settings(vault, db)
    doc = record_feedback(_open(settings), item_id, answer, when, parse_duration(for_))
    if not doc:
        raise VaultmemError(f"no nudge was ever shown for {item_id!r}: nothing to answer")
    render.feedback(doc, json_)


def parse_duration(text: str):
    from datetime import timedelta

    units = {"m": "minutes", "h": "hours", "d": "days"}
    try:
        return timedelta(**{units[text[-1]]: float(text[:-1])})
    except (KeyError, ValueError, IndexError):
        raise typer.BadParameter(f"{text!r}: use a number and m, h or d, e.g. 2h",
                                 param_hint="--for") from None


@app.command()
def cron(vault: VaultOpt = None, db: DbOpt = None) -> None:
    """Print crontab lines for this vault: index hourly, salience nightly, nudge every 15 min."""
    import shutil

    settings = _settings(vault, db)
    exe = shutil.which("vaultmem") or f"{sys.executable} -m vaultmem"
    target = f"--vault {_quote(settings.vault)}"
    if settings.db != settings.vault / ".vaultmem" / "vaultmem.db":
        target += f" --db {_quote(settings.db)}"
    sys.stdout.write(
        f"# vaultmem for {settings.vault}\n"
        f"0 * * * *    {exe} index {target} --json >/dev/null\n"
        f"30 3 * * *   {exe} salience {target} >/dev/null\n"
        f"*/15 * * * * {exe} nudge {target}\n")


def _quote(path) -> str:
    import shlex

    return shlex.quote(str(path))


@app.command()
def status(vault: VaultOpt = None, db: DbOpt = None, json_: JsonOpt = False,
           debug: DebugOpt = False) -> None:
    """What is indexed: counts, last runs, unresolved links, warnings, settings."""
    from . import render
    from .status import gather

    settings = _settings(vault, db)
    render.status(gather(_open(settings), settings), json_)


def main(argv: list[str] | None = None) -> int:
    """Console entry point: domain errors exit 1 with one line, usage errors exit 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv or bool(_env_debug())
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
        sys.stderr.write(f"vaultmem: {exc}\n")
        return 1
    except Exception as exc:  # noqa: BLE001 - last resort: one line, not a traceback
        if _is_usage_error(exc):  # typer vendors click: match its exceptions by shape
            exc.show()
            return exc.exit_code
        if debug:
            raise
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
    sys.exit(main())
