"""Presenting a run_all result: PNG plots (latency CDF + boxplot per scenario, decode vs bandwidth floor), an SVG
flamegraph from py-spy's folded stacks, and the headline numbers as a markdown table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _mpl() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def latency_series(result: dict[str, Any]) -> dict[str, list[float]]:
    """Per-request latencies by label, from every section that kept them."""
    series: dict[str, list[float]] = {}
    for row in result.get("typing", {}).get("rows", []):
        if row.get("latencies_ms"):
            series[f"laya LSP {row['scenario']} {row['kind']}, answered"] = row["latencies_ms"]
        if row.get("all_latencies_ms"):
            series[f"laya LSP {row['scenario']} {row['kind']}, all responses"] = row["all_latencies_ms"]
    for name, section in result.get("peers", {}).items():
        for label, run in section.items():
            if isinstance(run, dict) and run.get("latencies_ms"):
                series[f"{name} {label}"] = run["latencies_ms"]
    return series


def plot_latency(result: dict[str, Any], out: Path) -> Path:
    plt = _mpl()
    series = latency_series(result)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(15, 6.5), gridspec_kw={"width_ratios": [1.1, 1]})
    colors = plt.get_cmap("tab20").colors
    styles = {"laya LSP": "-", "laya-engine": "--", "naive-mlx": ":", "llama.cpp": "-."}
    for n, (label, ms) in enumerate(series.items()):
        s = sorted(ms)
        style = next((v for k, v in styles.items() if label.startswith(k)), "-")
        ax1.step(s, [(i + 1) / len(s) for i in range(len(s))], where="post", label=f"{label} (n={len(s)})",
                 color=colors[n % len(colors)], ls=style, lw=1.6)
    ax1.set_xscale("log")
    ax1.set_xlabel("keystroke → response (ms, log)")
    ax1.set_ylabel("share of requests")
    ax1.axvline(25, color="grey", ls=":", lw=1)
    ax1.axvline(60, color="grey", ls="--", lw=1)
    ax1.set_title("latency CDF (dotted 25 ms, dashed 60 ms)")
    ax1.legend(fontsize=7, loc="lower right")
    ax1.grid(alpha=0.3)
    labels = list(series)
    ax2.boxplot([series[k] for k in labels], vert=False, showfliers=True)
    ax2.set_yticks(range(1, len(labels) + 1), labels, fontsize=7)
    ax2.set_xscale("log")
    ax2.set_xlabel("ms (log)")
    ax2.set_title("per scenario")
    ax2.grid(alpha=0.3, axis="x")
    m = result.get("machine", {})
    fig.suptitle(f"laya-lsp keystroke latency, {result.get('date', '')[:10]}, {m.get('host')} "
                 f"({m.get('cpu')}, {m.get('cores')} cores), model {result.get('model', {}).get('name')}")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_decode(result: dict[str, Any], out: Path) -> Path:
    plt = _mpl()
    rows = [r for r in result.get("shapes", {}).get("rows", []) if "ms_per_token" in r]
    shapes = list(dict.fromkeys(r["shape"] for r in rows))
    dtypes = ["fp32", "bf16", "4bit"]
    fig, axes = plt.subplots(1, max(1, len(shapes)), figsize=(5 * max(1, len(shapes)), 4.8), squeeze=False)
    for ax, shape in zip(axes[0], shapes):
        xs, measured, floor = [], [], []
        for d in dtypes:
            r = next((r for r in rows if r["shape"] == shape and r["dtype"] == d), None)
            if r:
                xs.append(d)
                measured.append(r["ms_per_token"])
                floor.append(r["floor_ms_per_token"])
        pos = range(len(xs))
        ax.bar([p - 0.2 for p in pos], measured, 0.4, label="measured decode")
        ax.bar([p + 0.2 for p in pos], floor, 0.4, label="floor: weight bytes / bandwidth")
        for p, m, f in zip(pos, measured, floor):
            ax.text(p - 0.2, m, f"{m:.1f}", ha="center", va="bottom", fontsize=8)
            ax.text(p + 0.2, f, f"{f:.1f}", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(list(pos), xs)
        ax.set_yscale("log")
        ax.set_ylabel("ms / token (log)")
        ax.set_title(shape, fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    axes[0][0].legend(fontsize=8)
    bw = result.get("shapes", {}).get("bandwidth", {}).get("gbs")
    fig.suptitle(f"decode ms/token vs bandwidth floor (measured read bandwidth {bw} GB/s)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_all(result: dict[str, Any], stem: Path) -> list[Path]:
    """Write `<stem>-latency.png` and `<stem>-decode.png`; returns the paths written."""
    out = []
    if latency_series(result):
        out.append(plot_latency(result, stem.with_name(stem.name + "-latency.png")))
    if result.get("shapes", {}).get("rows"):
        out.append(plot_decode(result, stem.with_name(stem.name + "-decode.png")))
    return out


def flamegraph_svg(folded: str, out: Path, title: str = "laya-lsp server, typing replay (py-spy)") -> Path:
    """A plain SVG flamegraph (hover a box for its name and share) from py-spy's folded stacks."""
    from html import escape

    root: dict[str, Any] = {"n": 0, "kids": {}}
    for line in folded.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        node = root
        node["n"] += int(count)
        for frame in stack.split(";"):
            node = node["kids"].setdefault(frame, {"n": 0, "kids": {}})
            node["n"] += int(count)
    total = max(root["n"], 1)
    width, row = 1800.0, 17
    boxes: list[str] = []
    max_depth = 0

    def walk(node: dict[str, Any], x: float, depth: int) -> None:
        nonlocal max_depth
        max_depth = max(max_depth, depth)
        for name, kid in sorted(node["kids"].items(), key=lambda kv: -kv[1]["n"]):
            w = kid["n"] / total * width
            if w >= 0.5:
                short = name.split(" (")[0]
                hue = 20 + (hash(short) % 40)
                label = escape(short[: int(w / 7)]) if w > 30 else ""
                boxes.append(f'<g><title>{escape(name)} — {kid["n"] / total:.1%}</title>'
                             f'<rect x="{x:.1f}" y="{{y{depth}}}" width="{w:.1f}" height="{row - 1}" '
                             f'fill="hsl({hue},85%,60%)"/><text x="{x + 3:.1f}" y="{{t{depth}}}" '
                             f'font-size="11">{label}</text></g>')
                walk(kid, x, depth + 1)
            x += w

    walk(root, 0.0, 0)
    height = (max_depth + 2) * row + 30
    svg = "\n".join(boxes)
    for d in range(max_depth + 1):  # icicle: root row at the top
        svg = svg.replace(f"{{y{d}}}", str(30 + d * row)).replace(f"{{t{d}}}", str(30 + d * row + row - 5))
    out.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
                   f'font-family="monospace"><text x="5" y="18" font-size="14">{escape(title)} — {total} samples'
                   f'</text>\n{svg}\n</svg>\n')
    return out


# -- the table for docs/benchmarks.md ------------------------------------------------------------------------
def headline(result: dict[str, Any]) -> dict[str, Any]:
    """The numbers issue #8 asks for, with targets and ratios."""
    h: dict[str, Any] = {}
    rows = {(r["scenario"], r["kind"]): r for r in result.get("typing", {}).get("rows", [])}
    c1, c3 = rows.get(("1-buffer", "completion")), rows.get(("3-buffers", "completion"))
    if c1:
        h["typing_1buf_completion_p50_ms"] = c1.get("p50_ms")
        h["typing_1buf_completion_p95_ms"] = c1.get("p95_ms")
        h["reuse_ratio_1buf"] = c1.get("reuse_ratio")
        h["typing_1buf_answered_share"] = round(c1.get("answered", 0) / max(c1.get("keystrokes", 0), 1), 3)
    if c3:
        h["typing_3buf_completion_p50_ms"] = c3.get("p50_ms")
        h["typing_3buf_completion_p95_ms"] = c3.get("p95_ms")
        h["reuse_ratio_3buf"] = c3.get("reuse_ratio")
        h["typing_3buf_answered_share"] = round(c3.get("answered", 0) / max(c3.get("keystrokes", 0), 1), 3)
    peers = result.get("peers", {})
    naive = peers.get("naive-mlx", {}).get("1-buffer", {})
    if naive.get("p50_ms"):
        h["naive_p50_ms"] = naive["p50_ms"]
    if naive.get("p50_ms") and c1 and c1.get("p50_ms"):
        h["naive_over_laya_lsp_p50"] = round(naive["p50_ms"] / c1["p50_ms"], 2)
    eng = peers.get("laya-engine", {})
    e1 = eng.get("1-buffer k=1", {})
    for name in ("1-buffer", "3-buffers"):
        k1, k5 = eng.get(f"{name} k=1", {}).get("p50_ms"), eng.get(f"{name} k=5", {}).get("p50_ms")
        if k1 and k5:
            h[f"laya_engine_k5_over_k1_{name[0]}buf"] = round(k5 / k1, 2)
    for name in ("1-buffer", "3-buffers"):  # speculation (issue 28): the engine alone, drafts on and off
        on, off = eng.get(f"{name} k=1", {}), eng.get(f"{name} k=1 no drafts", {})
        if on.get("decode_ms_per_token") and off.get("decode_ms_per_token"):
            h[f"effective_decode_ms_per_token_{name[0]}buf"] = on["decode_ms_per_token"]
            h[f"plain_decode_ms_per_token_{name[0]}buf"] = off["decode_ms_per_token"]
            h[f"tokens_per_forward_{name[0]}buf"] = on.get("tokens_per_forward")
            h[f"draft_acceptance_{name[0]}buf"] = on.get("acceptance")
    if naive.get("p50_ms") and e1.get("p50_ms"):
        h["naive_over_laya_engine_k1_p50"] = round(naive["p50_ms"] / e1["p50_ms"], 2)
    lc = result.get("llamacpp", {}) or {}
    if lc.get("config"):
        h["llamacpp_config"] = lc["config"]
    for quant in ("f32", "f16"):
        runs = lc.get(quant, {})
        for name, row in (("1buf", c1), ("3buf", c3)):
            peer = runs.get("1-buffer" if name == "1buf" else "3-buffers", {})
            if peer.get("p50_ms"):
                h[f"llamacpp_{quant}_{name}_p50_ms"] = peer["p50_ms"]
                if row and row.get("p50_ms"):
                    h[f"laya_lsp_over_llamacpp_{quant}_{name}"] = round(row["p50_ms"] / peer["p50_ms"], 2)
                if row and row.get("all_responses_p50_ms"):
                    h[f"laya_lsp_all_over_llamacpp_{quant}_{name}"] = round(row["all_responses_p50_ms"]
                                                                            / peer["p50_ms"], 2)
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
    # The server's own step (decode section: laya's compiled step, k=1) is the headline when it was measured;
    # the shapes table times mlx-lm's plain step for every shape alike.
    decode = result.get("decode", {})
    for r in decode.get("rows", []):
        if r.get("variant") == "laya" and r.get("k") == 1:
            h[f"decode_ms_per_token_ctx{1024 if r['context'] >= 1000 else r['context']}"] = r["ms_per_token"]
        if r.get("variant") == "laya" and r.get("k") == 5 and r.get("context") == 64:
            h["decode_k5_ms_per_token_ctx64"] = r["ms_per_token"]
    if decode.get("floor_ms_per_token"):
        h["decode_floor_ms_per_token"] = decode["floor_ms_per_token"]
    if c1:
        h["decode_ms_per_token_in_replay"] = c1.get("decode_ms_per_token")
    mem = result.get("memory", {})
    if mem:
        h["rss_idle_mb"] = mem["memory"]["idle"]["rss_mb"]
        h["rss_20_docs_mb"] = mem["memory"]["with_docs"]["rss_mb"]
        h["rss_docs"] = mem["memory"]["docs"]
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
        (f"| typing replay p50 / p95, completion list, 1 buffer (answered keystrokes; share answered) | "
         f"{_f(h.get('typing_1buf_completion_p50_ms'))} / {_f(h.get('typing_1buf_completion_p95_ms'))} ms "
         f"({_f(h.get('typing_1buf_answered_share'), '{:.0%}')}) | ≤ 25 / ≤ 60 ms (≥ 90 % answered) |"),
        (f"| typing replay p50 / p95, completion list, 3 buffers (answered keystrokes; share answered) | "
         f"{_f(h.get('typing_3buf_completion_p50_ms'))} / {_f(h.get('typing_3buf_completion_p95_ms'))} ms "
         f"({_f(h.get('typing_3buf_answered_share'), '{:.0%}')}) | |"),
        (f"| prompt tokens reused (1 / 3 buffers) | {_f(h.get('reuse_ratio_1buf'), '{:.1%}')} / "
         f"{_f(h.get('reuse_ratio_3buf'), '{:.1%}')} | ≥ 95 % |"),
        (f"| naive mlx-lm p50 (full prompt per request) ÷ laya p50, ~1,500-token file: LSP replay / engine alone k=1 | "
         f"{_f(h.get('naive_p50_ms'))} ms → {_f(h.get('naive_over_laya_lsp_p50'), '{:.1f}x')} / "
         f"{_f(h.get('naive_over_laya_engine_k1_p50'), '{:.1f}x')} | ≥ 10x |"),
        (f"| laya engine alone, k=5 ÷ k=1 p50 (1 / 3 buffers) | "
         f"{_f(h.get('laya_engine_k5_over_k1_1buf'), '{:.2f}x')} / "
         f"{_f(h.get('laya_engine_k5_over_k1_3buf'), '{:.2f}x')}"
         f" | ≤ 1.5x |"),
    ]
    if result.get("pauses"):
        from benchmarks.pause_replay import table_row

        lines.append(table_row(result["pauses"]))
    for q in ("f32", "f16"):
        if h.get(f"llamacpp_{q}_3buf_p50_ms") is not None:
            lines.append(
                f"| llama.cpp {q} p50 (threads:wait {h.get('llamacpp_config', '2:passive')}), 1 / 3 buffers; laya ÷ "
                "llama.cpp (1 / 3 buffers): engine alone k=1; "
                f"LSP answered keystrokes; LSP all responses | "
                f"{_f(h.get(f'llamacpp_{q}_1buf_p50_ms'))} / {_f(h.get(f'llamacpp_{q}_3buf_p50_ms'))} ms; "
                f"{_f(h.get(f'laya_engine_k1_over_llamacpp_{q}_1buf'), '{:.2f}x')} / "
                f"{_f(h.get(f'laya_engine_k1_over_llamacpp_{q}_3buf'), '{:.2f}x')}; "
                f"{_f(h.get(f'laya_lsp_over_llamacpp_{q}_1buf'), '{:.2f}x')} / "
                f"{_f(h.get(f'laya_lsp_over_llamacpp_{q}_3buf'), '{:.2f}x')}; "
                f"{_f(h.get(f'laya_lsp_all_over_llamacpp_{q}_1buf'), '{:.2f}x')} / "
                f"{_f(h.get(f'laya_lsp_all_over_llamacpp_{q}_3buf'), '{:.2f}x')} | ≤ 1.0x (3 buffers) |")
    if h.get("llamacpp_f32_decode_ms_per_token_ctx64") is not None:
        lines.append(f"| llama.cpp decode ms/token f32 / f16 (context 64 / 1024) | "
                     f"{_f(h.get('llamacpp_f32_decode_ms_per_token_ctx64'), '{:.2f}')} / "
                     f"{_f(h.get('llamacpp_f32_decode_ms_per_token_ctx1024'), '{:.2f}')}; "
                     f"{_f(h.get('llamacpp_f16_decode_ms_per_token_ctx64'), '{:.2f}')} / "
                     f"{_f(h.get('llamacpp_f16_decode_ms_per_token_ctx1024'), '{:.2f}')} ms | |")
    lines += [
        (f"| effective decode ms/token on the replay's prompts, engine alone k=1, drafts on / off (1 buffer; 3 "
         f"buffers); tokens per forward, draft acceptance (1 / 3 buffers) | "
         f"{_f(h.get('effective_decode_ms_per_token_1buf'), '{:.2f}')} / "
         f"{_f(h.get('plain_decode_ms_per_token_1buf'), '{:.2f}')}; "
         f"{_f(h.get('effective_decode_ms_per_token_3buf'), '{:.2f}')} / "
         f"{_f(h.get('plain_decode_ms_per_token_3buf'), '{:.2f}')}; "
         f"{_f(h.get('tokens_per_forward_1buf'), '{:.2f}')} / {_f(h.get('tokens_per_forward_3buf'), '{:.2f}')}, "
         f"{_f(h.get('draft_acceptance_1buf'), '{:.0%}')} / {_f(h.get('draft_acceptance_3buf'), '{:.0%}')} | ≤ 2.5 ms "
         "|"),
        (f"| decode ms/token, default model fp32, the server's step k=1 (context 64 / ~1000; floor) | "
         f"{_f(h.get('decode_ms_per_token_ctx64'), '{:.2f}')} / {_f(h.get('decode_ms_per_token_ctx1024'), '{:.2f}')}"
         f" ms ({_f(h.get('decode_floor_ms_per_token'), '{:.2f}')} ms) | ≤ 2.5 ms (≤ 1.4x the floor) |"),
        (f"| RSS idle / {h.get('rss_docs', 20)} documents open | {_f(h.get('rss_idle_mb'), '{:.0f}')} / "
         f"{_f(h.get('rss_20_docs_mb'), '{:.0f}')} MB | ≤ 400 MB |"),
        f"| cold start to first answer | {_f(h.get('cold_start_to_first_answer_ms'), '{:.0f}')} ms | ≤ 1,000 ms |",
    ]
    trows = result.get("typing", {}).get("rows", [])
    if trows:
        lines += ["", "Typing replay through the LSP (per answered keystroke; server-side split from `laya/stats`):",
                  "",
                  ("| buffers | request | p50 ms | p95 ms | max ms | answered / keystrokes | p50 / p95 ms, all "
                   "responses "
                   "| reuse | answered without a model run | server prefill / decode p50 ms |"),
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in trows:
            sv = r.get("server", {})
            lines.append(f"| {r['buffers']} | {r['kind']} | {_f(r.get('p50_ms'))} | {_f(r.get('p95_ms'))} | "
                         f"{_f(r.get('max_ms'))} | {r.get('answered', 0)} / {r.get('keystrokes')} | "
                         f"{_f(r.get('all_responses_p50_ms'))} / {_f(r.get('all_responses_p95_ms'))} | "
                         f"{_f(r.get('reuse_ratio'), '{:.1%}')} | "
                         f"{_f(sv.get('answered_without_model_share'), '{:.0%}')}"
                         f" | {_f(sv.get('prefill_ms_p50'))} / {_f(sv.get('decode_ms_p50'))} |")
    peer_rows = []
    for system, runs in result.get("peers", {}).items():
        if system == "prompts":
            continue
        for label, run in runs.items():
            if isinstance(run, dict) and run.get("p50_ms") is not None:
                peer_rows.append(f"| {system} | {label} | {run.get('n')} | {_f(run.get('p50_ms'))} | "
                                 f"{_f(run.get('p95_ms'))} | {_f(run.get('reuse_ratio'), '{:.1%}')} |")
    if peer_rows:
        prompts = result.get("peers", {}).get("prompts", {})
        sizes = ", ".join(f"{k}: {v.get('n')} prompts, median {v.get('prompt_tokens_p50')} tokens, "
                          f"{_f(v.get('server_prompts_matched'), '{:.0%}')} identical to the server's"
                          for k, v in prompts.items())
        lines += ["", f"The same prompts, one request at a time ({sizes}):", "",
                  "| system | run | n | p50 ms | p95 ms | prompt reuse |", "| --- | --- | --- | --- | --- | --- |",
                  *peer_rows]
    shapes = result.get("shapes", {})
    if shapes.get("rows"):
        bw = shapes["bandwidth"]
        lines += ["", (f"Decode and prefill per shape (memory read bandwidth {bw['gbs']} GB/s; cache-resident "
                       f"{bw.get('cache_resident_gbs', '—')} GB/s, last-level cache {bw.get('llc_mb', '—')} MiB):"), "",
                  ("| shape | dtype | params | weights | prefill tok/s | decode ms/token | floor ms/token (memory; "
                   "in cache) | × memory floor |"),
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in shapes["rows"]:
            if "ms_per_token" in r:
                cache = f"; {r['cache_floor_ms_per_token']}" if r.get("cache_floor_ms_per_token") else ""
                lines.append(f"| {r['shape']} | {r['dtype']} | {r['params'] / 1e6:.0f}M | "
                             f"{r['weight_bytes'] / 2**20:.0f} MiB | {r['prefill_tokens_per_s']} | "
                             f"{r['ms_per_token']} | "
                             f"{r['floor_ms_per_token']}{cache} | {r['x_floor']} |")
            else:
                lines.append(f"| {r['shape']} | {r['dtype']} | | | | {r.get('error')} | | |")
    return "\n".join(lines + _brought_lines(result.get("brought") or [])) + "\n"


def _brought_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The models users bring (benchmarks/vocab_cost.py): a row per quantization."""
    if not rows:
        return []
    out = ["", ("Models users bring: Qwen2.5-Coder-0.5B-shape checkpoints as mlx-community publishes them (random "
                "weights, Qwen's tokenizer), through laya's loader; on a CPU it dequantizes a model whose float copy "
                "fits a quarter of the memory, the row 'kept quantized' runs MLX's quantized kernels:"), "",
           "| model | quantization | runs as | decode ms/token (k=1) | floor ms/token | keystroke p50 / max ms (LSP) |",
           "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        t = r.get("typing") or {}
        out.append(f"| {r.get('shape')} | {r.get('quantization')} | {r.get('dtype', '')} | "
                   f"{r.get('ms_per_token', r.get('error'))} | "
                   f"{r.get('floor_ms_per_token', '—')} | {t.get('p50_ms', t.get('error', '—'))} / "
                   f"{t.get('max_ms', '—')} |")
    return out


def update_docs(table: str, images: list[Path]) -> None:
    doc = ROOT / "docs" / "benchmarks.md"
    start, end = "<!-- bench:table:start -->", "<!-- bench:table:end -->"
    text = doc.read_text() if doc.exists() else f"# Benchmarks\n\n{start}\n{end}\n"
    pics = "".join(f"\n![{p.stem}](../benchmarks/results/{p.name})\n" for p in images)
    a, b = text.index(start) + len(start), text.index(end)
    doc.write_text(text[:a] + "\n" + table + pics + text[b:])
