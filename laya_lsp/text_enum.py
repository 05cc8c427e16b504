"""`TextEnum`: an enum whose members read as their strings, for the values records and reports carry."""

from __future__ import annotations

from enum import Enum


class TextEnum(str, Enum):
    """An enum whose members read as their strings: in f-strings, comparisons and JSON alike."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)
