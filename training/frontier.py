"""Quality/latency frontier of the trained shapes: training/frontier.json -> training/frontier.svg (no plotting deps).

  python training/frontier.py

Each point of frontier.json is one checkpoint: shape, parameters, decode ms/token on the 2-core CPU
(training/bench_decode.py), validation loss (train.py's log) and, where measured, HumanEval single-line exact
match (training/eval_fim.py). Points of one run share a colour; the budget line is the issue's 7.4 ms/token.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUDGET_MS = 7.4
W, H, LEFT, RIGHT, TOP, BOTTOM = 560, 340, 60, 540, 20, 290
COLOURS = ["steelblue", "darkorange", "seagreen", "purple"]


def scale(v: float, lo: float, hi: float, a: float, b: float) -> float:
    return a + (v - lo) / (hi - lo) * (b - a)


def render(points: list[dict]) -> str:
    xs = [p["ms_per_token"] for p in points] + [BUDGET_MS]
    ys = [p["val_loss"] for p in points]
    x0, x1 = int(min(xs)) - 0.5, int(max(xs)) + 1.5
    y0, y1 = round(min(ys) - 0.03, 2), round(max(ys) + 0.03, 2)

    def X(v: float) -> float:
        return scale(v, x0, x1, LEFT, RIGHT)

    def Y(v: float) -> float:
        return scale(v, y0, y1, BOTTOM, TOP)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<line x1="{LEFT}" y1="{BOTTOM}" x2="{RIGHT}" y2="{BOTTOM}" stroke="black"/>',
           f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{BOTTOM}" stroke="black"/>',
           (f'<line x1="{X(BUDGET_MS):.1f}" y1="{TOP}" x2="{X(BUDGET_MS):.1f}" y2="{BOTTOM}" stroke="red" '
            f'stroke-dasharray="4"/>'),
           f'<text x="{X(BUDGET_MS) + 3:.1f}" y="{TOP + 12}" fill="red">budget {BUDGET_MS} ms</text>']
    t = x0 + 0.5
    while t <= x1:
        out.append(f'<text x="{X(t) - 4:.1f}" y="{BOTTOM + 15}">{t:g}</text>')
        t += 1
    for i in range(5):
        v = y0 + (y1 - y0) * i / 4
        out.append(f'<text x="22" y="{Y(v) + 4:.1f}">{v:.2f}</text>')
    out.append(f'<text x="{LEFT + 120}" y="{H - 14}">decode ms/token (MLX fp32 + OpenBLAS, 2-core CPU)</text>')
    out.append(f'<text x="12" y="{(TOP + BOTTOM) / 2 + 60}" transform="rotate(-90 12 {(TOP + BOTTOM) / 2 + 60})">'
               'validation loss (nats/token)</text>')
    runs = list(dict.fromkeys(p["run"] for p in points))
    for p in points:
        c = COLOURS[runs.index(p["run"]) % len(COLOURS)]
        label = f'{p["shape"]} {p["params_M"]}M' + (f', EM {p["humaneval_em"]:.3f}' if "humaneval_em" in p else "")
        label += " (shipped)" if p.get("shipped") else ""
        out.append(f'<circle cx="{X(p["ms_per_token"]):.1f}" cy="{Y(p["val_loss"]):.1f}" r="5" fill="{c}"/>')
        left = p.get("label_side") == "left"  # a neighbour's label on the right would overlap
        anchor = ' text-anchor="end"' if left else ""
        out.append(f'<text x="{X(p["ms_per_token"]) + (-8 if left else 8):.1f}" y="{Y(p["val_loss"]) + 4:.1f}"'
                   f'{anchor}>{label}</text>')
    for i, run in enumerate(runs):
        y = BOTTOM - 14 * (len(runs) - i)
        out.append(f'<circle cx="{LEFT + 14}" cy="{y - 4}" r="4" fill="{COLOURS[i % len(COLOURS)]}"/>')
        out.append(f'<text x="{LEFT + 22}" y="{y}">{run}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    points = json.loads((HERE / "frontier.json").read_text())["points"]
    (HERE / "frontier.svg").write_text(render(points))
    print(f"{len(points)} points -> {HERE / 'frontier.svg'}")


if __name__ == "__main__":
    main()
