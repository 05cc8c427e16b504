"""The cattrs converter pygls structures params with, made strict: a string must be a string and a number a
number, so wrong param types are answered InvalidParams (rpc_admission.py) instead of guessed at.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cattrs import Converter
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, default_converter


def _strict(kind: type, name: str) -> Callable[[Any, Any], Any]:
    def hook(value: Any, _type: Any) -> Any:
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return value
        raise TypeError(f"expected {name}, got {type(value).__name__} {json.dumps(value)[:40]}")

    return hook


# Custom requests and notifications whose params reach the handler as plain JSON, structured there into typed
# params (params.py): pygls would turn objects into namedtuples, which rename keys that are not identifiers
# ("$ref", "not", "if", ...) and so corrupt a JSON Schema.
RAW_PARAMS_METHODS = {"laya/decide", "laya/structured", "laya/stats", "laya/documentText", "laya/focus"}


def strict_converter() -> Converter:
    """pygls' converter, but a string must be a string and a number a number (cattrs would coerce 5 → "5",
    1.5 → 1 and true → 1), so wrong param types are answered with InvalidParams instead of guessed at; and the
    params of RAW_PARAMS_METHODS stay plain JSON."""
    conv = default_converter()
    conv.register_structure_hook(str, _strict(str, "a string"))
    conv.register_structure_hook(int, _strict(int, "an integer"))
    conv.register_structure_hook(bool, _strict(bool, "a boolean"))
    for message in (JsonRPCRequestMessage, JsonRPCNotification):
        conv.register_structure_hook(message, _raw_params(conv.get_structure_hook(message)))
    return conv


def _raw_params(structure: Callable[[Any, type], Any]) -> Callable[[dict[str, Any], type], Any]:
    def structure_message(obj: dict[str, Any], cls: type) -> Any:
        if obj.get("method") in RAW_PARAMS_METHODS:
            return cls(**obj)
        return structure(obj, cls)

    return structure_message
