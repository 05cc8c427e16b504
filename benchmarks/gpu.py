"""The GPU section of the benchmarks: `make bench`'s measurements on an NVIDIA GPU, through MLX's CUDA backend.

    python -m benchmarks.gpu [--out DIR] [--budget 420]

Needs a `pip install 'laya-lsp[cuda]'` environment (on a lent machine without network, benchmarks/gpu_device.sh
stages the wheels; docs/benchmarks.md, "GPU section", says how). Each step runs in its own process:
  1. `laya-lsp doctor --json`: the GPU, MLX's backend, the dtype the device defaults choose;
  2. run_all on the embedded model: typing replay through the LSP, the engine alone (k=1 and k=5) and the naive
     mlx-lm peer on the same prompts, the decode step, the shapes table;
  3. run_all's typing replay and engine-alone runs on Qwen2.5-Coder-0.5B- and -1.5B-shape models (random weights
     stored in bf16, the embedded model's tokenizer): the latency of those shapes, not the quality of their text.
llama.cpp with CUDA is not built: compiling its CUDA kernels takes longer than a device call allows.
Results land in DIR: one JSON per run (plus run_all's plots and tables) and DIR/summary.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import machine
from benchmarks.shapes import COMMON, QWEN_SHAPES

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = ROOT / "laya_lsp" / "models" / "default"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
RUN_ALL = [sys.executable, "-m", "benchmarks.run_all", "--quick", "--skip", "llamacpp,profile"]


def make_shape_model(name: str, out: Path) -> Path:
    """A model directory of a Qwen2.5-Coder shape: random weights in bf16, the embedded model's tokenizer and FIM.

    Embedding rows past the tokenizer's vocabulary are zero, so greedy decoding picks tokens the tokenizer can
    spell (candidates are text, as a real model's are) while every step still reads the whole vocabulary head."""
    import mlx.core as mx
    from mlx.utils import tree_flatten

    from benchmarks.shapes import _build

    base = json.loads((DEFAULT_MODEL / "config.json").read_text())
    model, config = _build({"config": QWEN_SHAPES[name], "dtype": "bf16"})
    embed = model.model.embed_tokens
    keep = (mx.arange(embed.weight.shape[0]) < base["vocab_size"])[:, None]
    embed.weight = mx.where(keep, embed.weight, mx.zeros_like(embed.weight))
    out.mkdir(parents=True, exist_ok=True)
    mx.save_safetensors(str(out / "model.safetensors"), dict(tree_flatten(model.parameters())))
    config.pop("_params", None)
    config = {**COMMON, **config, "torch_dtype": "bfloat16", "eos_token_id": base["eos_token_id"],
              "laya": base["laya"]}
    (out / "config.json").write_text(json.dumps(config, indent=1))
    for f in TOKENIZER_FILES:
        shutil.copy(DEFAULT_MODEL / f, out / f)
    return out


def run(cmd: list[str], timeout: float, log_path: Path) -> dict[str, Any]:
    """Run one step with a time limit; its output goes to `log_path` and the console."""
    t0 = time.perf_counter()
    print(f"$ {' '.join(cmd)}  (limit {timeout:.0f} s)", flush=True)
    with log_path.open("w") as log:
        try:
            proc = subprocess.run(cmd, check=False, stdout=log, stderr=subprocess.STDOUT, timeout=timeout,
                                  cwd=ROOT)
            rc: int | str = proc.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    print(log_path.read_text()[-3000:], flush=True)
    return {"cmd": cmd, "rc": rc, "seconds": round(time.perf_counter() - t0, 1), "log": log_path.name}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "gpu")
    p.add_argument("--budget", type=float, default=420.0, help="seconds for the whole section")
    p.add_argument("--shapes", default=",".join(QWEN_SHAPES), help="Qwen shapes for the typing/engine runs")
    p.add_argument("--models-dir", type=Path, default=Path("/tmp/laya-gpu-models"))
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()

    def left(share: float) -> float:
        return max(30.0, (args.budget - (time.perf_counter() - t0)) * share)

    summary: dict[str, Any] = {"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(), "steps": {}}
    doctor = subprocess.run([sys.executable, "-m", "laya_lsp", "doctor", "--json"], check=False,
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    summary["doctor"] = json.loads(doctor.stdout) if doctor.returncode == 0 else {"error": doctor.stderr[-2000:]}
    print(json.dumps(summary["doctor"], indent=1), flush=True)
    limit = left(0.55)  # run_all fits its own sections into a little less, so it always writes its results
    summary["steps"]["default"] = run(RUN_ALL + ["--budget", str(int(limit - 30)),
                                                 "--out", str(args.out / "default.json")], limit, args.out / "default.log")
    shapes = [s for s in args.shapes.split(",") if s]
    for i, name in enumerate(shapes):
        t = time.perf_counter()
        model_dir = make_shape_model(name, args.models_dir / name)
        build_s = round(time.perf_counter() - t, 1)
        limit = left(1 / (len(shapes) - i))
        step = run(RUN_ALL + ["--only", "typing,peers", "--naive-limit", "2", "--model", str(model_dir),
                              "--budget", str(int(limit - 30)), "--out", str(args.out / f"{name}.json")], limit,
                   args.out / f"{name}.log")
        summary["steps"][name] = {**step, "build_s": build_s}
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(f"saved {args.out} in {summary['seconds']} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
