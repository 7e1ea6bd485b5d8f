"""Exact fingerprints: the numbers a call's fingerprint binds to their value alone (docs/receipts.md).

RFC 8785 writes every number as the IEEE double it denotes, so ``2**60 + 1`` has the fingerprint of
``2**60``, and the text ``0.10000000000000001`` that of ``0.1``: a receipt for one would hold for
the other. The console refuses such numbers, and so does a verifier, with ``ambiguous_arguments``:

* an ``int`` is accepted iff a double holds it exactly (``2**60`` is, ``2**60 + 1`` is not);
* a ``float`` is a double already: accepted as the number it is;
* read from JSON text (``loads_exact``), a literal with a fraction or an exponent whose value is an
  integer (``1.5e3``) is accepted iff a double holds that integer exactly; any other is accepted
  iff it is written as its double's shortest form (``0.1``, not ``0.10000000000000001``); one out of
  the doubles' range (``1e400``) never. Such a literal reads as an ``InexactNumber``.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from .jcs import loads_strict

__all__ = ["InexactNumber", "exact_literal", "inexact_paths", "loads_exact"]

_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")


class InexactNumber:
    """A number of JSON text that no fingerprint binds, kept as written (``literal``)."""

    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal

    def __repr__(self) -> str:
        return f"InexactNumber({self.literal!r})"


def exact_literal(text: str) -> bool:
    """Whether the JSON number ``text`` is one its fingerprint binds to its value (rule above);
    text that is no JSON number is not."""
    if not _NUMBER.match(text):
        return False
    try:
        written = Decimal(text)
    except InvalidOperation:  # an exponent beyond Decimal's: out of range, or rounding to zero
        return not any(c in "123456789" for c in text.lower().partition("e")[0])
    number = float(text)
    if math.isinf(number) or math.isnan(number):
        return False
    if written == written.to_integral_value():
        return Decimal(number) == written  # the double's exact value
    return Decimal(repr(number)) == written  # repr: the shortest digits that read back as it


def _float(text: str) -> Any:
    return float(text) if exact_literal(text) else InexactNumber(text)


def _int(text: str) -> Any:
    return int(text) if exact_literal(text) else InexactNumber(text)


def loads_exact(text: str | bytes) -> Any:
    """``loads_strict`` (no NaN, no duplicate names) that reads each number no fingerprint binds as
    an ``InexactNumber`` instead of rounding it: ``verify_receipt`` refuses those arguments."""
    return loads_strict(text, parse_float=_float, parse_int=_int)


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def inexact_paths(value: Any, at: str = "") -> list[str]:
    """JSON Pointers to the numbers in ``value`` that no fingerprint binds: ``InexactNumber``s, and
    ``int``s a double does not hold exactly."""
    if isinstance(value, InexactNumber):
        return [at]
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return [] if int(float(value)) == value else [at]
        except OverflowError:
            return [at]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in inexact_paths(v, f"{at}/{_escape(str(k))}")]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in inexact_paths(v, f"{at}/{i}")]
    return []
