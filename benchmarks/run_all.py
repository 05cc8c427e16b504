"""Every benchmark of issue #8 in one process tree and one run: `make bench`.

    python -m benchmarks.run_all [--model DIR] [--quick] [--skip llamacpp,profile,...] [--update-docs]

Sections (each timed; the whole run is budgeted at 15 minutes on a 2-core machine, `--quick` at ~4):
  typing    keystroke→response through the real LSP over stdio (1 buffer on a ~1,500-token file, 3 buffers
            switching every 5 keystrokes; completion list and inline), reuse ratio, answers without a model run
  peers     the same FIM prompts (rebuilt with laya's own prompt code, checked against the server's prompt
            hashes) answered by laya's engine in-process, the naive mlx-lm peer (full prompt per request) and
            llama.cpp (llama-cpp-python, GGUF f32/f16 of the same weights, prompt cache on, 2 threads)
  decode    the decode step side by side: mlx-lm's plain step vs laya's compiled step, k=1 vs k=5, context 64
            and ~1000, × the memory floor, what each part buys, op by op (benchmarks/decode_step.py)
  brought   Qwen2.5-Coder-0.5B-shape checkpoints as mlx-community publishes them, 4- and 8-bit (`--quick`: 4):
            decode ms/token, keystroke latency through the LSP, bandwidth floor (benchmarks/vocab_cost.py)
  shapes    decode ms/token and prefill tokens/s per shape/dtype next to the memory-bandwidth floor
  memory    server RSS idle and with 20 documents; cold start to first answer
  profile   py-spy on the server during a typing replay: flamegraph SVG + top functions
  pauses    after opening a held-out file and resting 1 s mid-file, typing a line: the first pause and every
            pause's p50/p95, with and without the client's laya/focus, beside llama.cpp on the same prompts
Writes benchmarks/results/<date>-<host>.json, -latency.png, -decode.png, -profile.svg/.txt and a markdown table
(-table.md; `--update-docs` also puts it into docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# Candidates for the ~1,500-token file (picked with the model's own tokenizer) and the other two buffers.
NEAR_1500 = [STDLIB / n for n in ("genericpath.py", "linecache.py", "sched.py", "codeop.py", "bisect.py", "colorsys.py",
                                  "fnmatch.py", "glob.py", "copy.py", "shlex.py", "string.py", "json/decoder.py")]
OTHER_BUFFERS = [STDLIB / "json" / "decoder.py", ROOT / "examples" / "inventory.py"]
SECTIONS = ("typing", "pauses", "peers", "llamacpp", "decode", "brought", "shapes", "memory", "profile")
TARGETS = {"p50_ms": 25.0, "p95_ms": 60.0, "answered_share": 0.90, "reuse": 0.95, "naive_x": 10.0, "llamacpp_x": 1.0,
           "k5_over_k1": 1.5, "decode_ms": 2.5, "rss_mb": 400.0, "cold_start_ms": 1000.0}


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
        self.hints: dict[str, float] = {}  # Buffer.from_file line hint per file

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
    for key in ("draft_tokens", "accepted_tokens"):
        out[key] = int(sum(float(r.get(key, 0)) for r in runs))
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
    times: dict[str, list[float]] = {}
    for kind in ("completion", "inline"):
        for name, files in (("1-buffer", files1), ("3-buffers", files3)):
            buffers = [Buffer.from_file(f, args.chars, line_hint=run.hints[str(f)]) for f in files]
            r = asyncio.run(lsp_replay(buffers, server_command(args.model), json.loads(args.settings), kind,
                                       switch_every=5, interval_ms=args.interval_ms))
            s = r.replay.summary()
            lat = r.replay.latencies(kind)
            every = sorted(r.replay.latencies(kind, answered_only=False))
            row = {"scenario": name, "kind": kind, "buffers": len(files), "keystrokes": s["keystrokes"],
                   **s.get(kind, {"answered": 0}), "reuse_ratio": s["reuse_ratio"],
                   "decode_ms_per_token": s["decode_ms_per_token"],
                   "cold_start_to_first_answer_ms": s["cold_start_to_first_answer_ms"],
                   "by_source": s["by_source"], "by_status": s["by_status"],
                   "server": record_breakdown(r.records, kind), "latencies_ms": [round(x, 2) for x in lat],
                   # Every response, empty ones included (superseded by the next keystroke, nothing kept by
                   # post-processing, plan declined): what a user waits for whether or not text comes back.
                   "all_latencies_ms": [round(x, 2) for x in every],
                   "all_responses_p50_ms": round(statistics.median(every), 2) if every else None,
                   "all_responses_p95_ms": round(every[min(len(every) - 1, int(0.95 * len(every)))], 2)
                   if every else None}
            hashes[f"{name}/{kind}"] = [x.get("prompt_hash", "") for x in r.records
                                        if x.get("kind") == kind and x.get("prompt_hash")]
            row["open_to_typing_s"] = round((r.replay.start_ms - r.opened_ms) / 1000, 2)
            times[f"{name}/{kind}"] = r.key_times_s
            rows.append(row)
            log(f"{name:<10} {kind:<10} p50 {row.get('p50_ms', float('nan')):8.1f}  p95 "
                f"{row.get('p95_ms', float('nan')):8.1f}  max {row.get('max_ms', float('nan')):8.1f} ms  answered "
                f"{row['answered']}/{row['keystrokes']}  reuse {row['reuse_ratio']:.3f}  without model "
                f"{row['server']['answered_without_model_share']:.0%}  decode {row['decode_ms_per_token']:.2f} ms/tok")
    return {"rows": rows, "files_1": [str(f) for f in files1], "files_3": [str(f) for f in files3],
            "_hashes": hashes, "_times": times}


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
        # k=1 with drafts off beside it: what speculation buys on the same prompts (issue 28)
        for label, k, drafts in (("k=1", 1, None), ("k=1 no drafts", 1, 0), (f"k={args.candidates}", args.candidates,
                                                                              None)):
            res = engine_direct(lm, ps, k=k, limit=limit, draft_tokens=drafts)
            engine[f"{name} {label}"] = res
            log(f"laya engine in-process {name} {label}: p50 {res['p50_ms']:.1f} ms  p95 {res['p95_ms']:.1f}  "
                f"(prefill p50 {res['prefill_p50_ms']:.1f}, decode p50 {res['decode_p50_ms']:.1f}, "
                f"{res['decode_ms_per_token']:.2f} ms/tok, reuse {res['reuse_ratio']:.3f}; tokens/forward "
                f"{res['tokens_per_forward']}, acceptance {res['acceptance']})")
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
    """GGUF export + llama-cpp-python in a subprocess per thread setting (its own threads, no MLX in that
    process). Which setting is fastest depends on the machine's load (spinning OpenMP barriers win on an idle
    machine and lose badly on a busy one), so each runs and the peer is reported at its fastest (lowest p50 on
    the 3-buffer f32 prompts); every setting's figures stay in the result under `configs`."""
    configs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="laya-bench-") as tmp:
        pfile = Path(tmp) / "prompts.json"
        payload: dict[str, Any] = {k: v.to_dict() for k, v in prompt_sets.items()}
        if reference:
            payload["_parity"] = reference
        pfile.write_text(json.dumps(payload))
        for config in [c.strip() for c in run.args.llamacpp_configs.split(",") if c.strip()]:
            threads, _, wait = config.partition(":")
            out_file = Path(tmp) / "out.json"
            cmd = [sys.executable, "-m", "benchmarks.peers.llamacpp", "--model", str(model_path), "--prompts",
                   str(pfile), "--out", str(out_file), "--threads", threads, "--limit", str(run.args.peer_limit),
                   "--gguf-dir", tmp, "--omp-wait", wait or "default"]
            t = time.perf_counter()
            proc = subprocess.run(cmd, cwd=ROOT, timeout=run.args.llamacpp_timeout, text=True, capture_output=True,
                                  check=False)
            sys.stdout.write(proc.stdout)
            log(f"(llama.cpp peer subprocess, {config}: {time.perf_counter() - t:.1f} s)")
            if proc.returncode != 0:
                raise RuntimeError("llama.cpp peer failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:400])
            configs[config] = json.loads(out_file.read_text())

    def p50(result: dict[str, Any]) -> float:
        return float(result.get("f32", {}).get("3-buffers", {}).get("p50_ms") or float("inf"))

    best = min(configs, key=lambda c: p50(configs[c]))
    log(f"llama.cpp is reported at its fastest setting here: {best} "
        f"({', '.join(f'{c}: {p50(r):.1f} ms' for c, r in configs.items())}, 3-buffer f32 p50)")
    return {**configs[best], "config": best, "configs": configs}


# -- profile ---------------------------------------------------------------------------------------------------
def profile_section(run: Run, files: list[Path], stem: Path) -> dict[str, Any]:
    """py-spy record on the server during a completion replay over `files`: SVG flamegraph + top functions."""
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

    buffers = [Buffer.from_file(f, run.args.profile_chars, line_hint=run.hints[str(f)]) for f in files]
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
    from benchmarks.peers.laya import format_profile, render_flamegraph, summarise_folded

    summary = summarise_folded(raw.read_text())
    render_flamegraph(raw, svg)
    txt = stem.with_name(stem.name + "-profile.txt")
    txt.write_text(format_profile(summary))
    log(format_profile(summary, top=12))
    return {"folded": raw.name, "svg": svg.name if svg.exists() else None, "text": txt.name, **summary}


# -- main -----------------------------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", help="model directory (default: LAYA_MODEL, else the embedded model)")
    p.add_argument("--quick", action="store_true", help="short everything (~4 minutes): for development")
    p.add_argument("--skip", default="", help=f"comma-separated sections to skip: {', '.join(SECTIONS)}")
    p.add_argument("--only", default="", help="comma-separated sections to run (default all)")
    p.add_argument("--chars", type=int, default=None, help="characters typed per buffer in the replays")
    p.add_argument("--interval-ms", type=float, default=100.0, help="typing pace (100 ms ≈ 120 wpm)")
    p.add_argument("--settings", default="{}", help="extra laya settings JSON for the server")
    p.add_argument("--candidates", type=int, default=5, help="k for the in-process engine comparison")
    p.add_argument("--peer-limit", type=int, default=None, help="prompts per peer run (0 = all)")
    p.add_argument("--naive-limit", type=int, default=None, help="prompts for the naive peer")
    p.add_argument("--profile-chars", type=int, default=None, help="characters typed under the profiler")
    p.add_argument("--profile-rate", type=int, default=200, help="py-spy samples per second")
    p.add_argument("--llamacpp-timeout", type=float, default=300)
    p.add_argument("--llamacpp-configs", default="1:passive,2:passive,2:active",
                   help="llama.cpp threads:OMP_WAIT_POLICY settings to run; the peer is reported at its fastest")
    p.add_argument("--docs", type=int, default=20, help="documents for the memory measurement")
    p.add_argument("--shapes-budget", type=float, default=None, help="most seconds for the shapes section")
    p.add_argument("--budget", type=float, default=None,
                   help="seconds for the whole run (default 840, --quick 360); shapes get what is left")
    p.add_argument("--update-docs", action="store_true", help="write the table into docs/benchmarks.md")
    p.add_argument("--out", type=Path, help="result JSON path (default benchmarks/results/<date>-<host>.json)")
    args = p.parse_args(argv)
    args.skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    args.only = {s.strip() for s in args.only.split(",") if s.strip()}
    # Defaults, full run / --quick (explicit flags win).
    for key, full, quick in (("chars", 40, 12), ("peer_limit", 40, 12), ("naive_limit", 12, 4),
                             ("profile_chars", 30, 15), ("shapes_budget", 300.0, 150.0), ("budget", 840.0, 360.0)):
        if getattr(args, key) is None:
            setattr(args, key, quick if args.quick else full)
    return args


def main(argv: list[str] | None = None) -> int:
    from laya_lsp import bootstrap

    bootstrap.use_fast_blas()  # the same BLAS set-up as `laya-lsp` (same numbers)
    args = parse_args(argv)
    from benchmarks.common import RESULTS, machine
    from benchmarks.peers.prompts import file_near_tokens, keystroke_prompts, line_hint_for
    from laya_lsp.blas import active_blas
    from laya_lsp.engine import resolve_model
    from laya_lsp.engine.loading.model import load_model

    settings = bootstrap.resolve_settings(args.settings, args.model)
    model_path = resolve_model(settings.model or None, settings.allow_download)
    args.model = str(model_path)
    run = Run(args)
    # The peers (naive mlx-lm, the engine alone, llama.cpp parity) drive the raw model; the server under test
    # and the prompt reconstruction load it through the bootstrap like every command.
    lm = load_model(str(model_path))
    near, ntok = file_near_tokens(lm, NEAR_1500, 1500)
    files1, files3 = [near], [near] + [f for f in OTHER_BUFFERS if f != near]
    # A line per file with at least --chars characters to type (short lines would give few keystrokes).
    run.hints = {str(f): line_hint_for(f, max(args.chars, args.profile_chars)) for f in files3}
    stamp = time.strftime("%Y-%m-%d")
    out = args.out or RESULTS / f"{stamp}-{machine()['host']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    stem = out.with_suffix("")
    res = run.result
    res.update({"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(), "blas": active_blas(),
                "targets": TARGETS,
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
    from benchmarks.pause_replay import pause_section

    pauses = run.section("pauses", lambda: pause_section(settings=json.loads(args.settings), model=args.model, log=log))
    if pauses:
        res["pauses"] = pauses
    prompt_sets = {}
    if not ({"peers", "llamacpp"} <= args.skip) and (not args.only or args.only & {"peers", "llamacpp"}):
        settings = json.loads(args.settings)
        starts = {r["scenario"]: r["open_to_typing_s"] for r in (typing or {}).get("rows", [])
                  if r["kind"] == "completion"}
        times = (typing or {}).get("_times", {})
        prompt_sets = {name: keystroke_prompts(lm, files, args.chars, raw_settings=settings, line_hint=run.hints,
                                               start_s=starts.get(name, 3.0), interval_s=args.interval_ms / 1000,
                                               key_times_s=times.get(f"{name}/completion"))
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
    from benchmarks.decode_step import run_decode
    from benchmarks.memory import run_memory
    from benchmarks.shapes import run_shapes

    decode = run.section("decode", lambda: run_decode(str(model_path), args.quick, log=log))
    if decode:
        res["decode"] = decode

    mem = run.section("memory", lambda: run_memory(args.model, args.docs, log=log))
    if mem:
        res["memory"] = mem
    prof = run.section("profile", lambda: profile_section(run, files3, stem))
    if prof:
        res["profile"] = prof
    from benchmarks.vocab_cost import brought_section

    brought = run.section("brought", lambda: brought_section(log, args.quick))
    if brought:
        res["brought"] = brought
    # Shapes go last and get what is left of the run's time budget (the big shapes are the expendable part).
    left = args.budget - (time.perf_counter() - run.t0) - 20
    shapes_budget = max(60.0, min(args.shapes_budget, left))
    shapes = run.section("shapes", lambda: run_shapes(str(model_path), args.quick, log=log, budget_s=shapes_budget))
    if shapes:
        res["shapes"] = shapes
    res["total_seconds"] = round(time.perf_counter() - run.t0, 1)
    res["load_end"] = load_snapshot()
    from benchmarks.plots import headline

    res["headline"] = headline(res)
    out.write_text(json.dumps(res, indent=1))
    from benchmarks.plots import markdown_table, plot_all, update_docs

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
