"""PNG plots of a run_all result: keystroke latency per scenario (CDF + boxplot) and decode vs bandwidth floor."""

from __future__ import annotations

from pathlib import Path
from typing import Any


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
            series[f"laya LSP {row['scenario']} {row['kind']}"] = row["latencies_ms"]
    for name, section in result.get("peers", {}).items():
        for label, run in section.items():
            if isinstance(run, dict) and run.get("latencies_ms"):
                series[f"{name} {label}"] = run["latencies_ms"]
    return series


def plot_latency(result: dict[str, Any], out: Path) -> Path:
    plt = _mpl()
    series = latency_series(result)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(15, 6.5), gridspec_kw={"width_ratios": [1.1, 1]})
    for label, ms in series.items():
        s = sorted(ms)
        ax1.step(s, [(i + 1) / len(s) for i in range(len(s))], where="post", label=f"{label} (n={len(s)})")
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
