"""Every benchmark of issue #8 in one process tree and one run: `make bench`.

    python benchmarks/run_all.py [--model DIR] [--quick] [--skip llamacpp,profile,...] [--update-docs]

Sections (each timed; the whole run is budgeted at 15 minutes on a 2-core machine, `--quick` at ~4):
  typing    keystroke→response through the real LSP over stdio (1 buffer on a ~1,500-token file, 3 buffers
            switching every 5 keystrokes; completion list and inline), reuse ratio, answers without a model run
  peers     the same FIM prompts (rebuilt with laya's own prompt code, checked against the server's prompt
            hashes) answered by laya's engine in-process, the naive mlx-lm peer (full prompt per request) and
            llama.cpp (llama-cpp-python, GGUF f32/f16 of the same weights, prompt cache on, 2 threads)
  shapes    decode ms/token and prefill tokens/s per shape/dtype next to the memory-bandwidth floor
  memory    server RSS idle and with 20 documents; cold start to first answer
  profile   py-spy on the server during a typing replay: flamegraph SVG + top functions
Writes benchmarks/results/<date>-<host>.json, -latency.png, -decode.png, -profile.svg/.txt and a markdown table
(-table.md; `--update-docs` also puts it into docs/benchmarks.md).
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]  # benchmarks/typing.py shadows typing

import argparse
import asyncio
import functools
import json
import statistics
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# Candidates for the ~1,500-token file (picked with the model's own tokenizer) and the other two buffers.
NEAR_1500 = [STDLIB / n for n in ("bisect.py", "colorsys.py", "fnmatch.py", "keyword.py", "glob.py", "copy.py",
                                  "shlex.py", "string.py", "json/decoder.py", "textwrap.py")]
OTHER_BUFFERS = [STDLIB / "json" / "decoder.py", ROOT / "examples" / "inventory.py"]
SECTIONS = ("typing", "peers", "llamacpp", "shapes", "memory", "profile")
TARGETS = {"p50_ms": 25.0, "p95_ms": 60.0, "reuse": 0.95, "naive_x": 10.0, "llamacpp_x": 1.0,
           "decode_ms": 7.4, "rss_mb": 400.0, "cold_start_ms": 2000.0}


def ensure_fast_blas() -> None:
    """Re-execute this script once with OpenBLAS preloaded, as `laya-lsp` does for itself (same numbers)."""
    from laya_lsp.blas import PRELOADED_MARK, find_openblas

    if sys.platform != "linux" or os.environ.get(PRELOADED_MARK) or os.environ.get("LAYA_NO_BLAS_PRELOAD"):
        return
    lib = find_openblas()
    if lib is None:
        print("warning: no OpenBLAS found; MLX uses its slow reference BLAS", file=sys.stderr)
        return
    env = dict(os.environ, LD_PRELOAD=":".join(x for x in (lib, os.environ.get("LD_PRELOAD", "")) if x))
    env[PRELOADED_MARK] = lib
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)  # the same command (script or -m)


def log(msg: str) -> None:
    print(msg, flush=True)


def load_snapshot() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class Run:
    """The result being built, with per-section timing and the machine load around each section."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.t0 = time.perf_counter()
        self.result: dict[str, Any] = {"sections": {}}

    def section(self, name: str, fn: Callable[[], Any]) -> Any:
        if name in self.args.skip or (self.args.only and name not in self.args.only):
            return None
        log(f"\n== {name} ==")
        t, load0 = time.perf_counter(), load_snapshot()
        try:
            value = fn()
            err = None
        except Exception as exc:  # noqa: BLE001 - one failing section must not lose the others
            import traceback

            traceback.print_exc()
            value, err = None, f"{type(exc).__name__}: {exc}"
        self.result["sections"][name] = {"seconds": round(time.perf_counter() - t, 1), "load_before": load0,
                                         "load_after": load_snapshot(), **({"error": err} if err else {})}
        log(f"-- {name}: {time.perf_counter() - t:.1f} s")
        return value


# -- typing replay through the LSP ---------------------------------------------------------------------------
def record_breakdown(records: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    """Where the server's time went for the replay's own requests that ran the model."""
    runs = [r for r in records if r.get("kind") == kind and r.get("source") == "model" and r.get("status") == "ok"]
    answered = [r for r in records if r.get("kind") == kind and r.get("status") == "ok"]
    no_model = [r for r in answered if r.get("source") in ("typed-through", "speculative")]
    out: dict[str, Any] = {"model_runs": len(runs), "answers": len(answered),
                           "answered_without_model_share": round(len(no_model) / max(len(answered), 1), 3)}
    for key in ("queue_ms", "debounce_ms", "prefill_ms", "decode_ms", "postprocess_ms", "total_ms",
                "prompt_tokens", "decode_tokens"):
        vals = [float(r.get(key, 0)) for r in runs]
        if vals:
            out[f"{key}_p50"] = round(statistics.median(vals), 2)
    computed = [float(r["prompt_tokens"]) - float(r["reused_tokens"]) for r in runs]
    if computed:
        out["computed_tokens_p50"] = statistics.median(computed)
    return out


def typing_section(run: Run, files1: list[Path], files3: list[Path]) -> dict[str, Any]:
    from benchmarks.peers.laya import lsp_replay
    from laya_lsp.replay import Buffer, server_command

    args = run.args
    rows = []
    hashes: dict[str, list[str]] = {}
    for kind in ("completion", "inline"):
        for name, files in (("1-buffer", files1), ("3-buffers", files3)):
            buffers = [Buffer.from_file(f, args.chars, line_hint=0.6) for f in files]
            r = asyncio.run(lsp_replay(buffers, server_command(args.model), json.loads(args.settings), kind,
                                       switch_every=5, interval_ms=args.interval_ms))
            s = r.replay.summary()
            lat = r.replay.latencies(kind)
            row = {"scenario": name, "kind": kind, "buffers": len(files), "keystrokes": s["keystrokes"],
                   **s.get(kind, {"answered": 0}), "reuse_ratio": s["reuse_ratio"],
                   "decode_ms_per_token": s["decode_ms_per_token"],
                   "cold_start_to_first_answer_ms": s["cold_start_to_first_answer_ms"],
                   "by_source": s["by_source"], "by_status": s["by_status"],
                   "server": record_breakdown(r.records, kind), "latencies_ms": [round(x, 2) for x in lat]}
            hashes[f"{name}/{kind}"] = [x.get("prompt_hash", "") for x in r.records
                                        if x.get("kind") == kind and x.get("prompt_hash")]
            row["open_to_typing_s"] = round((r.replay.start_ms - r.opened_ms) / 1000, 2)
            rows.append(row)
            log(f"{name:<10} {kind:<10} p50 {row.get('p50_ms', float('nan')):8.1f}  p95 "
                f"{row.get('p95_ms', float('nan')):8.1f}  max {row.get('max_ms', float('nan')):8.1f} ms  answered "
                f"{row['answered']}/{row['keystrokes']}  reuse {row['reuse_ratio']:.3f}  without model "
                f"{row['server']['answered_without_model_share']:.0%}  decode {row['decode_ms_per_token']:.2f} ms/tok")
    return {"rows": rows, "files_1": [str(f) for f in files1], "files_3": [str(f) for f in files3],
            "_hashes": hashes}


# -- peers on the same prompts ------------------------------------------------------------------------------
def peers_section(run: Run, lm: Any, prompt_sets: dict[str, Any], typing: dict[str, Any] | None) -> dict[str, Any]:
    from benchmarks.peers.laya import engine_direct
    from benchmarks.peers.naive import run_naive

    args = run.args
    out: dict[str, Any] = {"prompts": {}}
    for name, ps in prompt_sets.items():
        lens = [len(p.ids) for p in ps.prompts]
        info: dict[str, Any] = {"n": len(ps.prompts), "skipped_by_plan": ps.skipped,
                                "prompt_tokens_p50": statistics.median(lens) if lens else 0, "files": ps.files}
        if typing:
            logged = set(typing["_hashes"].get(f"{name}/completion", []))
            if logged:
                ours = {p.prompt_hash for p in ps.prompts}
                info["server_prompts_matched"] = round(len(logged & ours) / len(logged), 3)
        out["prompts"][name] = info
        log(f"prompts {name}: {info}")
    limit = args.peer_limit
    engine: dict[str, Any] = {}
    for name, ps in prompt_sets.items():
        for k in (1, args.candidates):
            res = engine_direct(lm, ps, k=k, limit=limit)
            engine[f"{name} k={k}"] = res
            log(f"laya engine in-process {name} k={k}: p50 {res['p50_ms']:.1f} ms  p95 {res['p95_ms']:.1f}  "
                f"(prefill p50 {res['prefill_p50_ms']:.1f}, decode p50 {res['decode_p50_ms']:.1f}, "
                f"{res['decode_ms_per_token']:.2f} ms/tok, reuse {res['reuse_ratio']:.3f})")
    out["laya-engine"] = engine
    res = run_naive(lm, prompt_sets["1-buffer"], limit=args.naive_limit)
    out["naive-mlx"] = {"1-buffer": res}
    log(f"naive mlx-lm 1-buffer: p50 {res['p50_ms']:.1f} ms  p95 {res['p95_ms']:.1f}  (n={res['n']}, prompt "
        f"{res['prompt_tokens_mean']:.0f} tokens)")
    return out


def parity_reference(lm: Any, ids: list[int]) -> dict[str, Any]:
    """MLX logits after `ids` (the engine's model as loaded), for the llama.cpp parity check."""
    import mlx.core as mx

    logits = lm.model(mx.array(ids)[None])[0, -1].astype(mx.float32)
    return {"ids": ids, "logits": [round(float(x), 5) for x in logits.tolist()]}


def llamacpp_section(run: Run, model_path: Path, prompt_sets: dict[str, Any],
                     reference: dict[str, Any] | None) -> dict[str, Any]:
    """GGUF export + llama-cpp-python in a subprocess (its own threads, no MLX in that process)."""
    with tempfile.TemporaryDirectory(prefix="laya-bench-") as tmp:
        pfile = Path(tmp) / "prompts.json"
        payload: dict[str, Any] = {k: v.to_dict() for k, v in prompt_sets.items()}
        if reference:
            payload["_parity"] = reference
        pfile.write_text(json.dumps(payload))
        out_file = Path(tmp) / "out.json"
        cmd = [sys.executable, "-m", "benchmarks.peers.llamacpp", "--model", str(model_path), "--prompts", str(pfile),
               "--out", str(out_file), "--threads", str(run.args.threads), "--limit", str(run.args.peer_limit),
               "--gguf-dir", tmp]
        t = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, timeout=run.args.llamacpp_timeout, text=True, capture_output=True,
                              check=False)
        sys.stdout.write(proc.stdout)
        log(f"(llama.cpp peer subprocess {time.perf_counter() - t:.1f} s)")
        if proc.returncode != 0:
            raise RuntimeError("llama.cpp peer failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:400])
        return json.loads(out_file.read_text())


# -- profile ---------------------------------------------------------------------------------------------------
def profile_section(run: Run, files1: list[Path], stem: Path) -> dict[str, Any]:
    """py-spy record on the server during a 1-buffer completion replay: SVG flamegraph + top functions."""
    import shutil
    import threading

    from benchmarks.peers.laya import lsp_replay
    from laya_lsp.replay import Buffer, server_command

    pyspy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(pyspy).exists():
        raise RuntimeError("py-spy is not installed (pip install py-spy)")
    procs: list[subprocess.Popen] = []
    raw = stem.with_name(stem.name + "-profile.folded")
    svg = stem.with_name(stem.name + "-profile.svg")

    def attach(pid: int | None) -> None:  # after the first answer: the profile covers typing, not loading
        if pid is None:
            return
        for fmt, path in (("raw", raw), ("flamegraph", svg)):
            # --native shows where MLX's C++ spends the time; it needs blocking sampling (~1 ms pauses).
            procs.append(subprocess.Popen([pyspy, "record", "--pid", str(pid), "--rate", str(run.args.profile_rate),
                                           "--format", fmt, "--output", str(path), "--threads", "--native"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
            break  # py-spy writes one format per run: the SVG is drawn from the folded stacks below
        time.sleep(0.5)

    buffers = [Buffer.from_file(f, run.args.profile_chars, line_hint=0.6) for f in files1]
    asyncio.run(lsp_replay(buffers, server_command(run.args.model), json.loads(run.args.settings), "completion",
                           interval_ms=run.args.interval_ms, on_ready=attach))
    for p in procs:
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
    threading.Event().wait(0.1)
    if not raw.exists():
        err = procs[0].stderr.read() if procs and procs[0].stderr else ""
        raise RuntimeError(f"py-spy wrote nothing: {err[-400:]}")
    summary = summarise_folded(raw.read_text())
    render_flamegraph(raw, svg)
    txt = stem.with_name(stem.name + "-profile.txt")
    txt.write_text(format_profile(summary))
    log(format_profile(summary, top=12))
    return {"folded": raw.name, "svg": svg.name if svg.exists() else None, "text": txt.name, **summary}


def _frame_name(frame: str) -> str:
    """'fn (path/to/file.py:123)' → 'fn (file.py)'; native frames as they are."""
    if "(" in frame and frame.endswith(")"):
        fn, loc = frame[:-1].split(" (", 1)
        return f"{fn} ({loc.rsplit('/', 1)[-1].split(':')[0]})"
    return frame


_IDLE_MARKS = ("select_epoll", "EpollSelector.select", "os_read", "SimpleQueue_get", "Condition.wait", "Event.wait",
               "epoll_wait", "Queue.get", "Semaphore.acquire")


def is_idle(frames: list[str]) -> bool:
    """A sample of a thread waiting for work (not for MLX compute, which counts as busy)."""
    tail = " ".join(frames[-8:])
    return "mlx::core" not in tail and any(m in tail for m in _IDLE_MARKS)


def summarise_folded(text: str) -> dict[str, Any]:
    """Busy samples only: share per thread, per deepest laya_lsp function (with what it calls), per leaf."""
    per_thread: dict[str, int] = {}
    by_laya: dict[str, int] = {}
    self_t: dict[str, int] = {}
    incl: dict[str, int] = {}
    busy = idle = 0
    for line in text.splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        count = int(n)
        frames = stack.split(";")
        thread = frames[0].split(": ", 1)[-1] if frames[0].startswith("thread") else "?"
        frames = [f for f in frames if not f.startswith(("thread", "process"))]
        if is_idle(frames):
            idle += count
            continue
        busy += count
        per_thread[thread] = per_thread.get(thread, 0) + count
        ours = [f for f in frames if "laya_lsp/" in f]
        key = f"{thread}: {ours[-1].split('laya_lsp/', 1)[-1].rstrip(')') if ours else '(outside laya_lsp)'}"
        if any("mlx::core" in f for f in frames[frames.index(ours[-1]) if ours else 0:]):
            key += " → MLX"
        by_laya[key] = by_laya.get(key, 0) + count
        if frames:
            leaf = _frame_name(frames[-1])
            self_t[leaf] = self_t.get(leaf, 0) + count
        for f in {_frame_name(f) for f in frames}:
            incl[f] = incl.get(f, 0) + count

    def top(d: dict[str, int], n: int = 25) -> list[tuple[str, float]]:
        return [(k, round(v / max(busy, 1), 4)) for k, v in sorted(d.items(), key=lambda x: -x[1])[:n]]

    return {"samples": busy + idle, "busy_samples": busy,
            "threads": {k: round(v / max(busy, 1), 3) for k, v in sorted(per_thread.items(), key=lambda x: -x[1])[:6]},
            "by_laya_function": top(by_laya, 30), "top_self": top(self_t), "top_inclusive": top(incl)}


def format_profile(s: dict[str, Any], top: int = 25) -> str:
    lines = [f"py-spy samples: {s['samples']} ({s['busy_samples']} busy; threads waiting for work left out)",
             f"busy share by thread: {s['threads']}", "",
             "by deepest laya_lsp function (→ MLX: the thread waits in mlx::core::eval for MLX's compute thread):"]
    lines += [f"  {share:6.1%}  {name}" for name, share in s["by_laya_function"][:top]]
    lines += ["", "top self time (leaf frames):"]
    lines += [f"  {share:6.1%}  {name}" for name, share in s["top_self"][:top]]
    lines += ["", "top inclusive time:"]
    lines += [f"  {share:6.1%}  {name}" for name, share in s["top_inclusive"][:top]]
    return "\n".join(lines) + "\n"


def render_flamegraph(folded: Path, svg: Path) -> None:
    from benchmarks.plots import flamegraph_svg

    flamegraph_svg(folded.read_text(), svg)


# -- report ---------------------------------------------------------------------------------------------------
def headline(result: dict[str, Any]) -> dict[str, Any]:
    """The numbers issue #8 asks for, with targets and ratios."""
    h: dict[str, Any] = {}
    rows = {(r["scenario"], r["kind"]): r for r in result.get("typing", {}).get("rows", [])}
    c1, c3 = rows.get(("1-buffer", "completion")), rows.get(("3-buffers", "completion"))
    if c1:
        h["typing_1buf_completion_p50_ms"] = c1.get("p50_ms")
        h["typing_1buf_completion_p95_ms"] = c1.get("p95_ms")
        h["reuse_ratio_1buf"] = c1.get("reuse_ratio")
    if c3:
        h["typing_3buf_completion_p50_ms"] = c3.get("p50_ms")
        h["typing_3buf_completion_p95_ms"] = c3.get("p95_ms")
        h["reuse_ratio_3buf"] = c3.get("reuse_ratio")
    peers = result.get("peers", {})
    naive = peers.get("naive-mlx", {}).get("1-buffer", {})
    if naive.get("p50_ms") and c1 and c1.get("p50_ms"):
        h["naive_p50_ms"] = naive["p50_ms"]
        h["naive_over_laya_lsp_p50"] = round(naive["p50_ms"] / c1["p50_ms"], 2)
    eng = peers.get("laya-engine", {})
    e1 = eng.get("1-buffer k=1", {})
    if naive.get("p50_ms") and e1.get("p50_ms"):
        h["naive_over_laya_engine_k1_p50"] = round(naive["p50_ms"] / e1["p50_ms"], 2)
    lc = result.get("llamacpp", {}) or {}
    for quant in ("f32", "f16"):
        runs = lc.get(quant, {})
        for name, row in (("1buf", c1), ("3buf", c3)):
            peer = runs.get("1-buffer" if name == "1buf" else "3-buffers", {})
            if peer.get("p50_ms"):
                h[f"llamacpp_{quant}_{name}_p50_ms"] = peer["p50_ms"]
                if row and row.get("p50_ms"):
                    h[f"laya_lsp_over_llamacpp_{quant}_{name}"] = round(row["p50_ms"] / peer["p50_ms"], 2)
                ek = eng.get(("1-buffer" if name == "1buf" else "3-buffers") + " k=1", {})
                if ek.get("p50_ms"):
                    h[f"laya_engine_k1_over_llamacpp_{quant}_{name}"] = round(ek["p50_ms"] / peer["p50_ms"], 2)
    for quant in ("f32", "f16"):
        sec = lc.get(quant, {})
        if sec.get("parity"):
            h[f"llamacpp_{quant}_parity_max_abs_diff"] = sec["parity"]["max_abs_diff"]
            h[f"llamacpp_{quant}_parity_argmax_equal"] = sec["parity"]["argmax_equal"]
        for d in sec.get("decode", []):
            h[f"llamacpp_{quant}_decode_ms_per_token_ctx{d['context']}"] = d["ms_per_token"]
    for r in result.get("shapes", {}).get("rows", []):
        if r.get("shape") == "default" and r.get("dtype") == "fp32" and "decode" in r:
            for d in r["decode"]:
                h[f"decode_ms_per_token_ctx{d['context']}"] = d["ms_per_token"]
            h["decode_floor_ms_per_token"] = r.get("floor_ms_per_token")
    if c1:
        h["decode_ms_per_token_in_replay"] = c1.get("decode_ms_per_token")
    mem = result.get("memory", {})
    if mem:
        h["rss_idle_mb"] = mem["memory"]["idle"]["rss_mb"]
        h["rss_20_docs_mb"] = mem["memory"]["with_docs"]["rss_mb"]
        h["cold_start_to_first_answer_ms"] = mem["cold_start"]["to_first_answer_ms"]
    return h


def _f(x: Any, fmt: str = "{:.1f}") -> str:
    return "—" if x is None else fmt.format(x)


def markdown_table(result: dict[str, Any]) -> str:
    h = result.get("headline", {})
    m = result.get("machine", {})
    model = result.get("model", {})
    lines = [
        (f"Run {result.get('date')} on `{m.get('host')}` ({m.get('cpu')}, {m.get('cores')} cores, load average "
        f"{result.get('load_start')} at start), model `{model.get('name')}` ({model.get('params', 0) / 1e6:.1f}M "
        f"params, {model.get('dtype')}), {result.get('total_seconds')} s in all"
         + (" (`--quick`)" if result.get("args", {}).get("quick") else "") + "."),
        "",
        "| measure | result | target |",
        "| --- | --- | --- |",
        (f"| typing replay p50 / p95, completion list, 1 buffer | {_f(h.get('typing_1buf_completion_p50_ms'))} / "
         f"{_f(h.get('typing_1buf_completion_p95_ms'))} ms | ≤ 25 / ≤ 60 ms |"),
        (f"| typing replay p50 / p95, completion list, 3 buffers | {_f(h.get('typing_3buf_completion_p50_ms'))} / "
         f"{_f(h.get('typing_3buf_completion_p95_ms'))} ms | |"),
        (f"| prompt tokens reused (1 / 3 buffers) | {_f(h.get('reuse_ratio_1buf'), '{:.1%}')} / "
         f"{_f(h.get('reuse_ratio_3buf'), '{:.1%}')} | ≥ 95 % |"),
        (f"| naive mlx-lm p50 (full prompt per request) / laya p50, 1,500-token file | "
         f"{_f(h.get('naive_p50_ms'))} ms → {_f(h.get('naive_over_laya_lsp_p50'), '{:.1f}x')} | ≥ 10x |"),
    ]
    for q in ("f32", "f16"):
        if h.get(f"llamacpp_{q}_3buf_p50_ms") is not None:
            lines.append(
                f"| llama.cpp {q} p50, 1 / 3 buffers; laya LSP p50 ÷ llama.cpp | "
                f"{_f(h.get(f'llamacpp_{q}_1buf_p50_ms'))} / {_f(h.get(f'llamacpp_{q}_3buf_p50_ms'))} ms; "
                f"{_f(h.get(f'laya_lsp_over_llamacpp_{q}_1buf'), '{:.2f}x')} / "
                f"{_f(h.get(f'laya_lsp_over_llamacpp_{q}_3buf'), '{:.2f}x')} (engine alone, k=1: "
                f"{_f(h.get(f'laya_engine_k1_over_llamacpp_{q}_1buf'), '{:.2f}x')} / "
                f"{_f(h.get(f'laya_engine_k1_over_llamacpp_{q}_3buf'), '{:.2f}x')}) | ≤ 1.0x (3 buffers) |")
    if h.get("llamacpp_f32_decode_ms_per_token_ctx64") is not None:
        lines.append(f"| llama.cpp decode ms/token f32 / f16 (context 64 / 1024) | "
                     f"{_f(h.get('llamacpp_f32_decode_ms_per_token_ctx64'), '{:.2f}')} / "
                     f"{_f(h.get('llamacpp_f32_decode_ms_per_token_ctx1024'), '{:.2f}')}; "
                     f"{_f(h.get('llamacpp_f16_decode_ms_per_token_ctx64'), '{:.2f}')} / "
                     f"{_f(h.get('llamacpp_f16_decode_ms_per_token_ctx1024'), '{:.2f}')} ms | |")
    lines += [
        (f"| decode ms/token, default model fp32 (context 64 / 1024; floor) | "
         f"{_f(h.get('decode_ms_per_token_ctx64'), '{:.2f}')} / {_f(h.get('decode_ms_per_token_ctx1024'), '{:.2f}')}"
         f" ms ({_f(h.get('decode_floor_ms_per_token'), '{:.2f}')} ms) | ≤ 7.4 ms |"),
        (f"| RSS idle / 20 documents open | {_f(h.get('rss_idle_mb'), '{:.0f}')} / "
         f"{_f(h.get('rss_20_docs_mb'), '{:.0f}')} MB | ≤ 400 MB |"),
        f"| cold start to first answer | {_f(h.get('cold_start_to_first_answer_ms'), '{:.0f}')} ms | ≤ 2,000 ms |",
    ]
    shapes = result.get("shapes", {})
    if shapes.get("rows"):
        lines += ["", f"Decode and prefill per shape (measured read bandwidth {shapes['bandwidth']['gbs']} GB/s):", "",
                  "| shape | dtype | params | weights | prefill tok/s | decode ms/token | floor ms/token | × floor |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in shapes["rows"]:
            if "ms_per_token" in r:
                lines.append(f"| {r['shape']} | {r['dtype']} | {r['params'] / 1e6:.0f}M | "
                             f"{r['weight_bytes'] / 2**20:.0f} MiB | {r['prefill_tokens_per_s']} | {r['ms_per_token']} | "
                             f"{r['floor_ms_per_token']} | {r['x_floor']} |")
            else:
                lines.append(f"| {r['shape']} | {r['dtype']} | | | | {r.get('error')} | | |")
    return "\n".join(lines) + "\n"


def update_docs(table: str, images: list[Path]) -> None:
    doc = ROOT / "docs" / "benchmarks.md"
    start, end = "<!-- bench:table:start -->", "<!-- bench:table:end -->"
    text = doc.read_text() if doc.exists() else f"# Benchmarks\n\n{start}\n{end}\n"
    pics = "".join(f"\n![{p.stem}](../benchmarks/results/{p.name})\n" for p in images)
    a, b = text.index(start) + len(start), text.index(end)
    doc.write_text(text[:a] + "\n" + table + pics + text[b:])


# -- main -----------------------------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", help="model directory (default: the embedded model)")
    p.add_argument("--quick", action="store_true", help="short everything (~4 minutes): for development")
    p.add_argument("--skip", default="", help=f"comma-separated sections to skip: {', '.join(SECTIONS)}")
    p.add_argument("--only", default="", help="comma-separated sections to run (default all)")
    p.add_argument("--chars", type=int, default=None, help="characters typed per buffer in the replays")
    p.add_argument("--interval-ms", type=float, default=100.0, help="typing pace (100 ms ≈ 120 wpm)")
    p.add_argument("--settings", default="{}", help="extra laya settings JSON for the server")
    p.add_argument("--candidates", type=int, default=5, help="k for the in-process engine comparison")
    p.add_argument("--peer-limit", type=int, default=None, help="prompts per peer run (0 = all)")
    p.add_argument("--naive-limit", type=int, default=None, help="prompts for the naive peer")
    p.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    p.add_argument("--profile-chars", type=int, default=None, help="characters typed under the profiler")
    p.add_argument("--profile-rate", type=int, default=100, help="py-spy samples per second")
    p.add_argument("--llamacpp-timeout", type=float, default=300)
    p.add_argument("--docs", type=int, default=20, help="documents for the memory measurement")
    p.add_argument("--shapes-budget", type=float, default=None, help="seconds for the shapes section")
    p.add_argument("--update-docs", action="store_true", help="write the table into docs/benchmarks.md")
    p.add_argument("--out", type=Path, help="result JSON path (default benchmarks/results/<date>-<host>.json)")
    args = p.parse_args(argv)
    args.skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    args.only = {s.strip() for s in args.only.split(",") if s.strip()}
    # Defaults, full run / --quick (explicit flags win).
    for key, full, quick in (("chars", 40, 12), ("peer_limit", 40, 12), ("naive_limit", 12, 4),
                             ("profile_chars", 30, 15), ("shapes_budget", 240.0, 150.0)):
        if getattr(args, key) is None:
            setattr(args, key, quick if args.quick else full)
    return args


def main(argv: list[str] | None = None) -> int:
    ensure_fast_blas()
    args = parse_args(argv)
    from benchmarks.common import RESULTS, machine
    from benchmarks.peers.prompts import file_near_tokens, keystroke_prompts
    from laya_lsp.blas import active_blas
    from laya_lsp.engine.model import load_model, resolve_model

    model_path = resolve_model(args.model)
    args.model = str(model_path)
    run = Run(args)
    lm = load_model(str(model_path))
    near, ntok = file_near_tokens(lm, NEAR_1500, 1500)
    files1, files3 = [near], [near] + [f for f in OTHER_BUFFERS if f != near]
    stamp = time.strftime("%Y-%m-%d")
    out = args.out or RESULTS / f"{stamp}-{machine()['host']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    stem = out.with_suffix("")
    res = run.result
    res.update({"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(), "blas": active_blas(),
                "load_start": load_snapshot(),
                "args": {k: (sorted(v) if isinstance(v, set) else str(v) if isinstance(v, Path) else v)
                         for k, v in vars(args).items()},
                "model": {"name": lm.name, "path": lm.path, "params": lm.n_params, "dtype": lm.dtype,
                          "fim": lm.fim.name, "layout": lm.fim.preferred_layout},
                "file_1500": {"path": str(near), "tokens": ntok}})
    log(f"model {lm.name} ({lm.n_params / 1e6:.1f}M, {lm.dtype}, {lm.fim.name}/{lm.fim.preferred_layout}); "
        f"BLAS {res['blas']}; 1-buffer file {near.name} ({ntok} tokens); load average {res['load_start']}")

    typing = run.section("typing", lambda: typing_section(run, files1, files3))
    if typing:
        res["typing"] = {k: v for k, v in typing.items() if not k.startswith("_")}
    prompt_sets = {}
    if not ({"peers", "llamacpp"} <= args.skip) and (not args.only or args.only & {"peers", "llamacpp"}):
        settings = json.loads(args.settings)
        starts = {r["scenario"]: r["open_to_typing_s"] for r in (typing or {}).get("rows", [])
                  if r["kind"] == "completion"}
        prompt_sets = {name: keystroke_prompts(lm, files, args.chars, raw_settings=settings,
                                               start_s=starts.get(name, 3.0), interval_s=args.interval_ms / 1000)
                       for name, files in (("1-buffer", files1), ("3-buffers", files3))}
    peers = run.section("peers", functools.partial(peers_section, run, lm, prompt_sets, typing))
    if peers:
        res["peers"] = peers
    reference = parity_reference(lm, prompt_sets["1-buffer"].prompts[0].ids) if prompt_sets.get("1-buffer") else None
    del lm  # the remaining sections run in other processes
    llama = run.section("llamacpp", lambda: llamacpp_section(run, model_path, prompt_sets, reference))
    if llama:
        res["llamacpp"] = llama
        res.setdefault("peers", {})["llama.cpp"] = {f"{q} {n}": v for q in ("f32", "f16")
                                                    for n, v in llama.get(q, {}).items() if "buffer" in n}
    from benchmarks.memory import run_memory
    from benchmarks.shapes import run_shapes

    shapes = run.section("shapes", lambda: run_shapes(str(model_path), args.quick, log=log,
                                                      budget_s=args.shapes_budget))
    if shapes:
        res["shapes"] = shapes
    mem = run.section("memory", lambda: run_memory(args.model, args.docs, log=log))
    if mem:
        res["memory"] = mem
    prof = run.section("profile", lambda: profile_section(run, files1, stem))
    if prof:
        res["profile"] = prof
    res["total_seconds"] = round(time.perf_counter() - run.t0, 1)
    res["load_end"] = load_snapshot()
    res["headline"] = headline(res)
    out.write_text(json.dumps(res, indent=1))
    from benchmarks.plots import plot_all

    images = plot_all(res, stem)
    table = markdown_table(res)
    stem.with_name(stem.name + "-table.md").write_text(table)
    if args.update_docs:
        update_docs(table, images)
    log("\n" + table)
    log(f"saved {out} (+ {', '.join(p.name for p in images)}) in {res['total_seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
