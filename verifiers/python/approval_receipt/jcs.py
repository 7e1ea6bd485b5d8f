"""RFC 8785 JSON Canonicalization Scheme (JCS), and a strict JSON reader.

``canonicalize(value)`` writes a JSON value (``dict`` with ``str`` keys, ``list``/``tuple``,
``str``, ``int``, ``float``, ``bool``, ``None``) in the canonical form of RFC 8785:

* no whitespace;
* object members sorted by their names as arrays of UTF-16 code units;
* strings with only the escapes RFC 8785 prescribes (``\\b \\t \\n \\f \\r \\" \\\\`` and
  ``\\u00xx`` in lower-case hex for the other control characters), everything else literal;
* numbers as ECMAScript's ``Number.prototype.toString`` writes the IEEE-754 double they denote.
  An integer that a double cannot hold exactly is written as the double it becomes (as a JSON
  parser following I-JSON would read it); one beyond the doubles' range, NaN and the infinities
  are refused.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable

__all__ = ["CanonicalizationError", "canonicalize", "canonicalize_bytes", "loads_strict"]


class CanonicalizationError(ValueError):
    """The value has no RFC 8785 canonical form (NaN, infinity, a lone surrogate, a non-JSON type…)."""


_TWO_53 = 2**53

# The escapes of RFC 8785 section 3.2.2.2: short forms where JSON has them, else \u00xx (lower case).
_ESCAPES = {i: "\\u%04x" % i for i in range(0x20)}
_ESCAPES.update({0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"})
_ESCAPES[ord('"')] = '\\"'
_ESCAPES[ord("\\")] = "\\\\"


def _string(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate: not Unicode text, no UTF-8 form
        raise CanonicalizationError(f"string is not valid Unicode: {text!r}") from exc
    return '"' + text.translate(_ESCAPES) + '"'


def _es_number(value: float) -> str:
    """ECMAScript Number::toString(value) for a finite double (ECMA-262, 7.1.12.1)."""
    if math.isnan(value) or math.isinf(value):
        raise CanonicalizationError(f"{value} is not allowed in JSON (RFC 8785)")
    if value == 0:
        return "0"  # also -0
    sign = "-" if value < 0 else ""
    # repr() gives the shortest digits that read back as the same double (closest one on a tie),
    # which is the digit string ECMAScript asks for; only their placement differs.
    mantissa, _, exp = repr(abs(value)).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    digits = int_part + frac_part
    # value = 0.<digits> * 10**n
    n = len(int_part) + (int(exp) if exp else 0)
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        exp_text = ("+" if e >= 0 else "-") + str(abs(e))
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + exp_text
    return sign + text


def _number(value: int | float) -> str:
    if isinstance(value, int):
        if -_TWO_53 <= value <= _TWO_53:
            return str(value)  # exactly a double, written without exponent below 1e21
        try:
            value = float(value)  # the double the integer becomes (round half to even)
        except OverflowError as exc:
            raise CanonicalizationError("integer beyond the range of an IEEE-754 double") from exc
    return _es_number(value)


def _write(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (int, float)):
        out.append(_number(value))
    elif isinstance(value, dict):
        items = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise CanonicalizationError(f"object key is not a string: {key!r}")
            _string(key)  # refuses a lone surrogate before it reaches the UTF-16 sort key
            items.append((key.encode("utf-16-be"), key, item))
        items.sort(key=lambda entry: entry[0])
        out.append("{")
        for i, (_, key, item) in enumerate(items):
            if i:
                out.append(",")
            out.append(_string(key))
            out.append(":")
            _write(item, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise CanonicalizationError(f"not a JSON value: {type(value).__name__}")


def canonicalize(value: Any) -> str:
    """The RFC 8785 canonical JSON text of ``value``."""
    out: list[str] = []
    try:
        _write(value, out)
    except RecursionError as exc:
        raise CanonicalizationError("value nested too deeply") from exc
    return "".join(out)


def canonicalize_bytes(value: Any) -> bytes:
    """``canonicalize(value)`` as UTF-8, the bytes that are hashed or signed."""
    return canonicalize(value).encode("utf-8")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, item in pairs:
        if key in result:
            raise ValueError(f"duplicate object member {key!r}")
        result[key] = item
    return result


def _finite_float(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise ValueError(f"number out of the range of a double: {text}")
    return number


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads_strict(text: str | bytes, *, parse_float: Callable[[str], Any] = _finite_float,
                 parse_int: Callable[[str], Any] = int) -> Any:
    """``json.loads`` without Python's extensions: no NaN/Infinity, no number that overflows a
    double, no duplicate member names (I-JSON, RFC 7493). Raises ``ValueError``. ``parse_float``
    and ``parse_int`` read numbers as ``json.loads``'s do (``loads_exact`` judges them)."""
    try:
        return json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_float=parse_float,
            parse_int=parse_int,
            parse_constant=_refuse_constant,
        )
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc
