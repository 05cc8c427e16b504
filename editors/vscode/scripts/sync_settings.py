"""Write the `laya.*` settings of package.json (contributes.configuration) from laya_lsp/config.py.

    python editors/vscode/scripts/sync_settings.py          # rewrite package.json
    python editors/vscode/scripts/sync_settings.py --check  # exit 1 if a server setting is missing or differs

package.sh runs it before packaging, so a .vsix always lists every server setting; tests/test_editor_vscode.py
runs
the check (keys, types, defaults and limits; not descriptions), so the committed package.json keeps up too.
"""

from __future__ import annotations

import json
import sys
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from laya_lsp.config import CHOICES, FallbackSettings, PauseSettings, Settings, _camel, limits_of

PACKAGE = Path(__file__).resolve().parents[1] / "package.json"

DESCRIPTIONS = {
    "model": "mlx-lm model directory or Hugging Face repo id; empty uses the embedded default model.",
    "allow_download": "Let laya.model name a Hugging Face repo id to download (default: offline).",
    "candidates": "Number of candidates per explicit request (Ctrl+Space, Show Inline Suggestion).",
    "typing_candidates": "Number of candidates per request made while typing (fewer arrive sooner).",
    "max_tokens": "Most tokens generated per candidate.",
    "debounce_ms": "Milliseconds to wait for more keystrokes before running the model.",
    "context_tokens": "Prompt budget in tokens around the cursor.",
    "threads": "CPU threads for MLX/BLAS; 0 keeps their defaults.",
    "cache_budget_mb": "Memory for the per-document KV caches in MB; the least recently used go first.",
    "prefill_chunk": "Prompt tokens computed per step (smaller answers cancellation sooner).",
    "fixed_shapes": "Warm every model step shape at load and keep caches at one size (auto: on with a GPU).",
    "inline_max_lines": "Most lines of a ghost-text (inline) completion.",
    "complete_in_comments": "Offer completions inside comments.",
    "complete_in_strings": "Offer completions inside string literals.",
    "trigger_rules": "Let the syntax rules decline to complete (mid-word, code right after the cursor, ...).",
    "postprocess": "Clean candidates with tree-sitter; off gives the model's raw lines.",
    "typed_through": "Answer from a shown candidate while you type through it, without running the model.",
    "speculative": "After an answer, precompute the next one as if its first line were accepted.",
    "warm_up": "Prefill a file's cache when it is opened or focused, so the first completion is fast.",
    "cross_file_tokens": "Prompt budget for chunks of other recently used files; 0 turns it off.",
    "outline_tokens": "Prompt budget for an outline of the file above the prompt's window; 0 turns it off.",
    "decision_tokens": "Token budget for laya/decide answers.",
    "decision_threshold": "Confidence under which a decision is handed to the fallback model.",
    "fallback.url": "OpenAI-compatible server for low-confidence work; empty: no fallback.",
    "fallback.model": "Model name on the fallback server.",
    "fallback.threshold": "Confidence under which requests go to the fallback server.",
    "fallback.timeout_ms": "Fallback request timeout in milliseconds.",
    "fallback.api_key": "API key for the fallback server.",
    "fallback.completions": "Completions the fallback server is asked for: where the local answer is unsure, "
                            "at every model run, or never.",
    "fallback.fim": "Prompt format of the fallback server's model (qwen, starcoder, ...; /spm: suffix first), "
                    "suffix (servers whose /v1/completions take a suffix field) or prefix (no FIM).",
    "fallback.deadline_ms": "Milliseconds a completion's hand-off may take; later, the local answer stands.",
    "fallback.context_chars": "Characters of the document around the cursor a completion's hand-off sends "
                              "(fit them to the server model's context).",
    "pause.model": "The pause tier: a larger local model that answers where the keystroke model is unsure; "
                   "empty: the embedded one where shipped, off: none, else a model directory or repo id.",
    "pause.min_confidence": "Confidence the pause tier's answer is cut at (under its own calibration); below 0: "
                            "its calibration's threshold.",
    "pause.deadline_ms": "Milliseconds a request whose keystroke answer is unsure waits for the pause tier.",
}

# Settings of the extension itself (never sent to the server).
CLIENT_SETTINGS: dict[str, dict[str, Any]] = {
    "laya.serverPath": {
        "type": "string",
        "default": "laya-lsp",
        "description": "The laya-lsp program: a name on PATH or a full path.",
    },
    "laya.serverArgs": {
        "type": "array",
        "items": {"type": "string"},
        "default": [],
        "description": 'Extra arguments for laya-lsp, e.g. ["--log-level", "INFO"].',
    },
    "laya.inlineCompletions": {
        "type": "boolean",
        "default": True,
        "description": "Show ghost-text (inline) completions; the completion list stays on.",
    },
    "laya.trace.server": {
        "type": "string",
        "enum": ["off", "messages", "verbose"],
        "default": "off",
        "description": "Log the LSP traffic with laya-lsp in the 'laya' output channel.",
    },
}

_JSON_TYPES = {"str": "string", "bool": "boolean", "int": "integer", "float": "number"}


def _default(f: Any) -> Any:
    if f.default is not MISSING:
        return f.default
    return f.default_factory()


def server_properties() -> dict[str, dict[str, Any]]:
    """One entry per server setting, in config.py's order, with its default and limits."""
    props: dict[str, dict[str, Any]] = {}
    groups = [("", Settings), ("fallback.", FallbackSettings), ("pause.", PauseSettings)]
    for prefix, cls in groups:
        for f in fields(cls):
            if f.name in ("fallback", "pause"):
                continue
            key = prefix + f.name
            prop: dict[str, Any] = {
                "type": _JSON_TYPES[str(f.type)],
                "default": _default(f),
                "description": DESCRIPTIONS.get(key, "See the Configuration section of the laya-lsp README."),
            }
            if f.name in CHOICES:
                prop["enum"] = list(CHOICES[f.name])
            bounds = limits_of(prefix.rstrip("."), f.name)
            if bounds is not None:
                prop["minimum"], prop["maximum"] = bounds
            props["laya." + prefix + _camel(f.name)] = prop
    return props


def properties() -> dict[str, dict[str, Any]]:
    return {**CLIENT_SETTINGS, **server_properties()}


def _essentials(props: dict[str, dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    """What must match between package.json and config.py: the keys, types, defaults and limits."""
    return {
        k: (p.get("type"), json.dumps(p.get("default")), p.get("minimum"), p.get("maximum"))
        for k, p in props.items()
    }


def main(argv: list[str]) -> int:
    pkg = json.loads(PACKAGE.read_text())
    wanted = properties()
    current = pkg["contributes"]["configuration"]["properties"]
    if "--check" in argv:
        want, have = _essentials(wanted), _essentials(current)
        if want != have:
            missing = sorted(set(want) - set(have))
            extra = sorted(set(have) - set(want))
            changed = sorted(k for k in set(want) & set(have) if want[k] != have[k])
            print(
                f"package.json settings out of date: missing {missing}, extra {extra}, changed {changed}; "
                "run: python editors/vscode/scripts/sync_settings.py",
                file=sys.stderr,
            )
            return 1
        return 0
    pkg["contributes"]["configuration"]["properties"] = wanted
    PACKAGE.write_text(json.dumps(pkg, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
