#!/usr/bin/env python3
"""Peak memory and speed of embedding a store's chunks with onnxruntime's CPU arena on or off.

    python scripts/arena_memory.py DB on 1024 longest    # the 1,024 longest chunk texts
    python scripts/arena_memory.py DB off 2048 median    # 2,048 texts around the median length

Run each setting in a fresh process: the arena keeps what it grew. Prints the embedding
time, chunks per second and this process's peak resident memory (VmHWM from /proc).
"""

from __future__ import annotations

import sqlite3
import sys
import time

from fastembed import TextEmbedding

from vaultmem.embed import bundled_model_dir, embed_text


def main() -> None:
    db, arena, n, which = sys.argv[1], sys.argv[2] == "on", int(sys.argv[3]), sys.argv[4]
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = conn.execute("SELECT n.title, c.heading, c.text FROM chunks c "
                        "JOIN notes n ON n.id = c.note_id").fetchall()
    texts = sorted((embed_text(*r) for r in rows), key=len)
    del rows
    mid = len(texts) // 2
    texts = texts[-n:] if which == "longest" else texts[mid - n // 2: mid + n // 2]
    options = {} if arena else {"enable_cpu_mem_arena": False}
    model = TextEmbedding("sentence-transformers/all-MiniLM-L6-v2",
                          specific_model_path=str(bundled_model_dir()), **options)
    started = time.perf_counter()
    for _ in model.embed(texts, batch_size=32):
        pass
    seconds = time.perf_counter() - started
    with open("/proc/self/status") as fh:
        hwm = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM"))
    print(f"arena {'on' if arena else 'off'}, {which} {len(texts):,} chunks: {seconds:.1f} s, "
          f"{len(texts) / seconds:.1f} chunks/s, peak RSS {hwm // 1024} MB")


if __name__ == "__main__":
    main()
