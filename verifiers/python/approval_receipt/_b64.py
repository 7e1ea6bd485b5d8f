"""Base64url without padding (RFC 7515 section 2), read strictly."""

from __future__ import annotations

import base64
import re

_ALPHABET = re.compile(r"[A-Za-z0-9_-]*\Z")


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Decodes unpadded base64url; refuses padding, other characters, and non-canonical forms
    (a length of 1 mod 4, or leftover bits that are not zero). Raises ``ValueError``."""
    if not isinstance(text, str) or not _ALPHABET.match(text) or len(text) % 4 == 1:
        raise ValueError("not base64url without padding")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64url_encode(data) != text:
        raise ValueError("not the canonical base64url form")
    return data
