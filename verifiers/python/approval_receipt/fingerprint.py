"""The fingerprint of a tool call, as the console computes it."""

from __future__ import annotations

import hashlib
from typing import Any

from .jcs import canonicalize_bytes

__all__ = ["fingerprint"]


def fingerprint(tool: str, args: Any) -> str:
    """``"sha256:" + hex(SHA-256(JCS({"toolName": tool, "args": args})))``.

    Raises ``CanonicalizationError`` when ``args`` has no RFC 8785 form (NaN, infinity, …).
    """
    canonical = canonicalize_bytes({"toolName": tool, "args": args})
    return "sha256:" + hashlib.sha256(canonical).hexdigest()
