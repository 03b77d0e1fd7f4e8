"""Crash test: SIGKILL an index run at a random moment, then check the store heals.

Each run builds a generated vault (notes in folders, wiki and markdown links,
prospective items, a root Ledger.md and a `type: ledger` note), starts an index
run in a child process and kills it with SIGKILL. Then it checks that SQLite
still says `PRAGMA integrity_check` = ok, runs the index to completion and
compares the store with a reference built, without any kill, in another folder
from the same files and the same history: live notes (path, hash, title), links
(source, target_raw, resolved path), ledger entries (id, status, action,
present), their links and ops, note ops, chunk texts, prospective items, and
that every live chunk has a vector.

Half the runs kill a first (full) index of a fresh vault, half an incremental
run after notes were edited, added, deleted and moved and the ledgers edited.

    python scripts/crash_test.py --runs 20 --notes 200        # for humans
    python scripts/crash_test.py --short                      # 4 runs, 40 notes
    python scripts/crash_test.py --real --runs 4 --notes 60   # the real CLI and model
    python scripts/crash_test.py --stage sync_ledgers         # kill on entering a stage

By default the child indexes through the core API with the fake embedder of
tests/conftest.py, slowed by `--sleep` seconds per embed batch of `--group`
texts, so that the kill lands anywhere in the run. `--stage NAME` makes the
child SIGKILL itself on entering one stage instead (deterministic). Exit status
1 on any mismatch.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOW = "2026-08-15T09:00:00"
# Each stage is the function the child replaces by a SIGKILL: (module, attribute).
TARGETS = {"index_file": ("vaultmem.indexer", "_index_file"),
           "sync_ledgers": ("vaultmem.indexer", "_sync_ledger"),
           "resolve_links": ("vaultmem.indexer", "_resolve_links"),
           "embed": ("vaultmem.indexer", "embed_missing"),
           "lifecycle": ("vaultmem.prospective", "refresh_lifecycle"),
           "finish": ("vaultmem.store", "Store.finish_run")}
STAGES = tuple(TARGETS)
NO_HOOK = 3  # the child's exit status when its kill target does not exist

WORDS = ("boiler radiator invoice vendor quote estimate kitchen valve garden ferry passport "
         "plumber budget review meeting notes draft chapter harvest tomato ladder roof paint "
         "insurance renewal tax receipt school trip dentist bicycle tyre library loan").split()

# The child: index one vault, optionally slowed, optionally killing itself at a stage.
CHILD = r"""
import os, signal, sys, time
from datetime import datetime
root, vault, sleep, group, stage, now = sys.argv[1:7]
sys.path.insert(0, root)
from tests.conftest import FakeEmbedder
from vaultmem import config, indexer, prospective
from vaultmem.text import parse
from vaultmem.store import Store

class Slow(FakeEmbedder):
    def embed(self, texts):
        time.sleep(float(sleep))
        return super().embed(texts)

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

indexer.EMBED_GROUP = int(group)
real_parse = parse.parse_note
def slow_parse(*args, **kwargs):
    time.sleep(float(sleep) / 50)
    return real_parse(*args, **kwargs)
parse.parse_note = slow_parse
if stage != "-":
    # A renamed target must not pass silently: setattr would just add a new attribute.
    import importlib
    module_name, _, attr = stage.partition(":")
    owner = importlib.import_module(module_name)
    *path, name = attr.split(".")
    for part in path:
        owner = getattr(owner, part)
    if not callable(getattr(owner, name, None)):
        print(f"no kill hook: {module_name}.{attr} does not exist", file=sys.stderr, flush=True)
        sys.exit(3)
    setattr(owner, name, die)
settings = config.load(vault)
store = Store.open(settings.db, create=True)
print("start", flush=True)
with store.writer_lock("index"):
    indexer.index_vault(store, settings, Slow(), now=datetime.fromisoformat(now))
print("done", flush=True)
"""


# -- the vault --------------------------------------------------------------------------


def note_name(i: int) -> str:
    return f"area{i % 4}/note {i}.md" if i % 3 else f"area{i % 4}/deep/Topic-{i}.md"


def note_text(rng: random.Random, i: int, count: int, version: int = 0) -> str:
    """One note: an H1, a front-matter title or neither (the title is then its name)."""
    words = lambda n: " ".join(rng.choice(WORDS) for _ in range(n))  # noqa: E731
    head = ""
    if i % 5 == 1:
        head = f"---\ntitle: Titled {i}\ntags: [t{i % 3}]\n---\n"
    elif i % 5 == 2:
        head = f"# Heading {i}\n\n"
    elif i % 7 == 3:
        head = "---\ntype: idea\nstatus: open\ncreated: 2026-01-05\n---\n"
    links = [f"[[{Path(note_name(rng.randrange(count))).stem}]]" for _ in range(rng.randrange(4))]
    if rng.random() < 0.3:
        links.append(f"[[Missing {rng.randrange(20)}]]")
    if rng.random() < 0.2:  # a reference keeps a prospective item from going stale
        j = 6 * rng.randrange(count // 6 or 1)
        links.append(f"[[Topic-{j}#^plan{j}]]")
    if rng.random() < 0.3:
        links.append(f"[md](../area{rng.randrange(4)}/note%20{rng.randrange(count)}.md)")
    body = f"{words(30)} {' '.join(links)} #tag{i % 5}\n"
    if i % 4 == 0:  # long: several chunks
        body += "".join(f"\n## Part {k}\n\n{words(120)}\n" for k in range(3))
    if i % 6 == 0:
        body += f"\n- #plan {words(5)} ^plan{i}\n- #idea {words(4)}\n"
    if i % 12 == 6 and not head:  # old enough to go stale unless referenced
        body = "---\ncreated: 2026-02-01\n---\n" + body
    if version:
        body += f"\nEdited v{version}: {words(12)}\n"
    return head + body


def ledger_line(rng: random.Random, k: int, count: int, status: str = " ") -> str:
    target = Path(note_name(rng.randrange(count))).stem
    day = f"2026-0{rng.randrange(6, 10)}-{rng.randrange(10, 28)}"
    word = rng.choice(WORDS)
    box = f"- [{status}]"
    return [
        f"{box} Pay invoice number {k} for the {word} 📅 {day} [[{target}]]",
        f"{box} When the vendor quote {k} arrives, reconcile it against estimate {k} [[{target}]]",
        f"{box} Call about the {word} {k} [due:: {day}] [[{target}]] ^blk{k}",
        f"{box} Review {word} plan {k} [when:: {rng.choice(WORDS)} news] #project/p{k}",
    ][k % 4]


def build_vault(vault: Path, seed: int, count: int) -> dict:
    """Write the initial vault; return the state the incremental edits need."""
    rng = random.Random(seed)
    vault.mkdir(parents=True)
    for i in range(count):
        path = vault / note_name(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note_text(rng, i, count), encoding="utf-8")
    lines = [ledger_line(rng, k, count) for k in range(max(6, count // 4))]
    (vault / "Ledger.md").write_text("# Ledger\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    side = [ledger_line(rng, 100 + k, count) for k in range(4)]
    (vault / "projects").mkdir()
    (vault / "projects" / "Side ledger.md").write_text(
        "---\ntype: ledger\n---\n" + "\n".join(side) + "\n", encoding="utf-8")
    return {"lines": lines}


def edit_vault(vault: Path, seed: int, count: int, state: dict) -> None:
    """Edit, add, delete and move notes; complete, reschedule, reword, add, remove entries."""
    rng = random.Random(seed * 7 + 1)
    picks = rng.sample(range(count), max(8, count // 4))
    step = max(2, len(picks) // 4)
    modify, delete = picks[:step], picks[step:step + step // 2]
    # Moved notes titled by their file name change title with the move: mostly those.
    rest = [i for i in rng.sample(range(count), count) if i not in modify + delete]
    move = ([i for i in rest if i % 5 not in (1, 2)][:max(1, step - 1)]
            + [i for i in rest if i % 5 in (1, 2)][:1])
    for i in modify:
        (vault / note_name(i)).write_text(note_text(rng, i, count, version=1), encoding="utf-8")
    for i in delete:
        (vault / note_name(i)).unlink()
    (vault / "moved").mkdir(exist_ok=True)
    for i in move:
        src = vault / note_name(i)
        os.rename(src, vault / "moved" / f"renamed {i}.md")  # keeps size and mtime
    for i in range(count, count + max(2, count // 10)):
        path = vault / note_name(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note_text(rng, i, count + 5), encoding="utf-8")
    lines = list(state["lines"])
    lines[0] = lines[0].replace("[ ]", "[x]", 1) + " ✅ 2026-08-14"
    lines[1] = lines[1].replace("[ ]", "[-]", 1) + " ❌ 2026-08-14"
    lines[2] = lines[2].replace("2026-0", "2027-0")
    lines[3] = lines[3].replace("Review", "Re-review")
    del lines[4]
    lines.append(ledger_line(rng, 999, count))
    rng.shuffle(lines)
    (vault / "Ledger.md").write_text("# Ledger\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    (vault / "projects" / "Side ledger.md").unlink()


# -- running the index ----------------------------------------------------------------------


def start_child(vault: Path, args, stage: str = "-") -> subprocess.Popen:
    if args.real:
        cmd = [sys.executable, "-m", "vaultmem", "index", str(vault), "--now", NOW, "--json"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        proc.started = time.monotonic()
        return proc
    hook = ":".join(TARGETS[stage]) if stage != "-" else "-"
    cmd = [sys.executable, "-c", CHILD, str(ROOT), str(vault), str(args.sleep), str(args.group),
           hook, NOW]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.readline()  # "start": the store is open, the run begins now
    proc.started = time.monotonic()
    return proc


def index_now(vault: Path, args) -> float:
    """Index to completion; return how long the run took (after start-up)."""
    proc = start_child(vault, args)
    _, err = proc.communicate(timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"index of {vault} failed ({proc.returncode}): {err[-2000:]}")
    return time.monotonic() - proc.started


def index_in_process(vault: Path) -> None:
    """The healing run, as a user would run `vaultmem index` again (fake embedder)."""
    sys.path.insert(0, str(ROOT))
    from tests.conftest import FakeEmbedder
    from vaultmem import config
    from vaultmem.indexer import index_vault
    from vaultmem.store import Store

    settings = config.load(vault)
    store = Store.open(settings.db, create=True)
    try:
        index_vault(store, settings, FakeEmbedder(), now=datetime.fromisoformat(NOW))
    finally:
        store.close()


def heal(vault: Path, args) -> None:
    if args.real:
        index_now(vault, args)
    else:
        index_in_process(vault)


# -- checking ------------------------------------------------------------------------------------

QUERIES = {
    "notes": "SELECT path, hash, title FROM notes WHERE deleted = 0",
    "deleted": "SELECT path FROM notes WHERE deleted = 1",
    "links": "SELECT s.path, l.target_raw, t.path FROM links l JOIN notes s ON s.id = l.source_id "
             "LEFT JOIN notes t ON t.id = l.target_id WHERE s.deleted = 0",
    "entries": "SELECT id, status, action, present FROM entries",
    "entry_links": "SELECT l.entry_id, l.target_raw, t.path FROM entry_links l "
                   "LEFT JOIN notes t ON t.id = l.target_id",
    "entry_ops": "SELECT entry_id, op FROM ops WHERE entry_id IS NOT NULL "
                 "AND op NOT LIKE 'item-%'",
    "note_ops": "SELECT o.op, n.path FROM ops o JOIN notes n ON n.id = o.note_id "
                "WHERE o.entry_id IS NULL",
    "chunks": "SELECT n.path, c.ord, c.heading, c.text FROM chunks c "
              "JOIN notes n ON n.id = c.note_id WHERE n.deleted = 0",
    "prospective": "SELECT p.id, p.status, p.present, n.path FROM prospective p "
                   "JOIN notes n ON n.id = p.note_id",
    "fts": "SELECT n.path, c.ord, f.title, f.body FROM chunks_fts f "
           "LEFT JOIN chunks c ON c.id = f.rowid LEFT JOIN notes n ON n.id = c.note_id",
    "unembedded": "SELECT c.hash FROM chunks c JOIN notes n ON n.id = c.note_id AND "
                  "n.deleted = 0 WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.hash)",
}


def integrity(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        result = conn.execute("PRAGMA integrity_check").fetchall()
        return "ok" if result == [("ok",)] else repr(result[:5])
    finally:
        conn.close()


def snapshot(db: Path) -> dict[str, Counter]:
    conn = sqlite3.connect(db)
    try:
        return {name: _rows(conn, sql) for name, sql in QUERIES.items()}
    finally:
        conn.close()


def _rows(conn: sqlite3.Connection, sql: str) -> Counter:
    try:
        return Counter(conn.execute(sql).fetchall())
    except sqlite3.OperationalError as exc:  # a table this version does not have
        return Counter({("query failed", str(exc)): 1})


def compare(got: dict, want: dict, only: set[str] | None) -> list[str]:
    """One line per category that differs: a few rows missing and extra."""
    problems = []
    for name in QUERIES:
        if only and name not in only:
            continue
        missing, extra = want[name] - got[name], got[name] - want[name]
        if missing or extra:
            problems.append(f"{name}: missing {sorted(missing, key=str)[:3]} "
                            f"extra {sorted(extra, key=str)[:3]}")
    return problems


# -- one run ----------------------------------------------------------------------------------


def one_run(n: int, kind: str, args, rng: random.Random, work: Path) -> tuple[bool, str]:
    seed = rng.randrange(1 << 30)
    killed, ref = work / f"run{n}" / "vault", work / f"run{n}" / "reference"
    state = build_vault(killed, seed, args.notes)
    build_vault(ref, seed, args.notes)
    if kind == "incremental":
        for vault in (killed, ref):
            heal(vault, args)  # the earlier, complete index
            edit_vault(vault, seed, args.notes, state)
    if args.stage:  # no timing needed: the reference can be built in-process
        heal(ref, args)
    else:
        took = index_now(ref, args)
    proc = start_child(killed, args, args.stage or "-")
    when = "-"
    if not args.stage:
        delay = rng.uniform(0, took * 0.95)
        time.sleep(max(0.0, delay - (time.monotonic() - proc.started)))
        when = f"{delay:.2f}s/{took:.2f}s"
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
    proc.wait()
    outcome = "killed" if proc.returncode == -signal.SIGKILL else f"exit {proc.returncode}"
    db = killed / ".vaultmem" / "vaultmem.db"
    check = integrity(db) if db.exists() else "ok (no store yet)"
    problems = [] if check.startswith("ok") else [f"integrity_check: {check}"]
    if args.stage and proc.returncode != -signal.SIGKILL:
        # A stage kill that did not happen tests nothing: the run counts as failed.
        problems.append(f"not killed at stage {args.stage} ({outcome}): "
                        f"{proc.stderr.read().strip()[-300:]}")
    heal(killed, args)
    problems += compare(snapshot(db), snapshot(ref / ".vaultmem" / "vaultmem.db"), args.only)
    line = (f"run {n:3d} {kind:11s} kill at {args.stage or when:>14s} {outcome:8s} "
            f"integrity {check[:20]:20s} {'OK' if not problems else 'MISMATCH'}")
    for problem in problems:
        line += f"\n    {problem}"
    if not args.keep:
        shutil.rmtree(work / f"run{n}", ignore_errors=True)
    return not problems, line


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--short", action="store_true", help="4 runs of 40 notes (for tests)")
    parser.add_argument("--real", action="store_true", help="the real CLI and model")
    parser.add_argument("--kind", choices=("both", "full", "incremental"), default="both")
    parser.add_argument("--stage", choices=STAGES, help="kill on entering this stage instead")
    parser.add_argument("--only", help="compare only these categories (comma-separated)")
    parser.add_argument("--sleep", type=float, default=0.15, help="seconds per embed batch")
    parser.add_argument("--group", type=int, default=8, help="texts per embed batch")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep", help="keep the vaults in this folder (for debugging)")
    args = parser.parse_args(argv)
    if args.short:
        args.runs, args.notes = min(args.runs, 4), min(args.notes, 40)
    if args.real and args.stage:
        parser.error("--stage needs the core API child, not --real")
    args.only = set(args.only.split(",")) if args.only else None
    if args.only and args.only - set(QUERIES):
        parser.error(f"--only takes {', '.join(QUERIES)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    print(f"crash test: {args.runs} runs, {args.notes} notes, seed {seed}", flush=True)
    kinds = {"both": ("full", "incremental"), "full": ("full",),
             "incremental": ("incremental",)}[args.kind]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="vaultmem-crash-"))
    failed = 0
    try:
        for n in range(args.runs):
            ok, line = one_run(n, kinds[n % len(kinds)], args, rng, work)
            failed += not ok
            print(line, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"summary: {args.runs - failed}/{args.runs} runs healed to the reference "
          f"(seed {seed})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
