"""Checking a decision receipt, exactly in the order of docs/receipts.md ("Checking a receipt")."""

from __future__ import annotations

import time
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ._b64 import b64url_decode
from .exact import inexact_paths
from .fingerprint import fingerprint
from .jcs import CanonicalizationError, loads_strict
from .jwks import as_key_source
from .stores import ReceiptStore

__all__ = ["ReceiptError", "verify_receipt", "ERROR_CODES", "RECEIPT_TYPE"]

RECEIPT_TYPE = "approval-receipt"

MALFORMED = "malformed"
UNKNOWN_KEY = "unknown_key"
BAD_SIGNATURE = "bad_signature"
UNSUPPORTED_VERSION = "unsupported_version"
KEY_RETIRED = "key_retired"
EXPIRED = "expired"
NOT_APPROVED = "not_approved"
TOOL_MISMATCH = "tool_mismatch"
CALL_MISMATCH = "call_mismatch"
AMBIGUOUS_ARGUMENTS = "ambiguous_arguments"
FINGERPRINT_MISMATCH = "fingerprint_mismatch"
REPLAYED = "replayed"

#: Every code ``ReceiptError.code`` can take, in the order the checks run.
ERROR_CODES = (MALFORMED, UNKNOWN_KEY, BAD_SIGNATURE, UNSUPPORTED_VERSION, KEY_RETIRED, EXPIRED,
               NOT_APPROVED, TOOL_MISMATCH, CALL_MISMATCH, AMBIGUOUS_ARGUMENTS, FINGERPRINT_MISMATCH,
               REPLAYED)


class ReceiptError(Exception):
    """The receipt is refused. ``code`` is one of ``ERROR_CODES``; ``message`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"ReceiptError({self.code!r}, {self.message!r})"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _parse_json(data: bytes, what: str) -> Any:
    try:
        return loads_strict(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ReceiptError(MALFORMED, f"the {what} is not JSON: {exc}") from exc


def _public_key(jwk: dict[str, Any]) -> Ed25519PublicKey | None:
    if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
        return None
    try:
        raw = b64url_decode(jwk.get("x"))
    except ValueError:
        return None
    if len(raw) != 32:
        return None
    try:
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        return None


# Claims this verifier reads, with the check of their type (step 4: a payload without them, or
# with another type, is malformed). Optional ones are checked only when present.
_REQUIRED = {"id": str, "decision": str, "tool": str, "issuedAt": int, "expiresAt": int}
_OPTIONAL = {"executedFingerprint": str, "runId": str, "toolCallId": str}


def _check_claim_types(claims: dict[str, Any]) -> None:
    for name in _REQUIRED:
        if name not in claims:
            raise ReceiptError(MALFORMED, f"the payload has no {name!r} claim")
    for name, kind in {**_REQUIRED, **_OPTIONAL}.items():
        if name in claims:
            value = claims[name]
            ok = _is_int(value) if kind is int else isinstance(value, kind)
            if not ok:
                raise ReceiptError(MALFORMED, f"the {name!r} claim is not a{'n integer' if kind is int else ' string'}")


def verify_receipt(receipt: str | bytes, *, jwks: Any, tool: str, args: Any, store: ReceiptStore,
                   run_id: str | None = None, tool_call_id: str | None = None,
                   now: float | None = None) -> dict[str, Any]:
    """Checks ``receipt`` for the call about to run — ``tool`` with ``args`` (and, when given, the
    run and tool-call ids it must carry) — and records its id as used in ``store``.

    ``jwks`` is a parsed JWKS ``{"keys": [...]}``, or a ``KeySet``/``RemoteKeySet`` (anything with
    ``find(kid)``). ``args`` read from JSON text with ``loads_exact`` are judged as written. ``now`` is Unix seconds (default: the clock). Returns the receipt's claims;
    raises ``ReceiptError`` with the code of the first check that failed.
    """
    # 1. Three base64url segments; the header is JSON with alg EdDSA, a string kid, typ if any.
    if isinstance(receipt, (bytes, bytearray)):
        try:
            receipt = bytes(receipt).decode("ascii")
        except UnicodeDecodeError as exc:
            raise ReceiptError(MALFORMED, "a receipt is ASCII text") from exc
    if not isinstance(receipt, str):
        raise ReceiptError(MALFORMED, "a receipt is a string")
    segments = receipt.strip().split(".")
    if len(segments) != 3:
        raise ReceiptError(MALFORMED, "a receipt is three base64url segments joined by '.'")
    decoded = []
    for name, segment in zip(("header", "payload", "signature"), segments):
        try:
            decoded.append(b64url_decode(segment))
        except ValueError as exc:
            raise ReceiptError(MALFORMED, f"the {name} segment: {exc}") from exc
    header_bytes, payload_bytes, signature = decoded
    header = _parse_json(header_bytes, "header")
    if not isinstance(header, dict):
        raise ReceiptError(MALFORMED, "the header is not a JSON object")
    if header.get("alg") != "EdDSA":
        raise ReceiptError(MALFORMED, f"the header's alg is {header.get('alg')!r}, not 'EdDSA'")
    kid = header.get("kid")
    if not isinstance(kid, str):
        raise ReceiptError(MALFORMED, "the header has no string kid")
    if "typ" in header and header["typ"] != RECEIPT_TYPE:
        raise ReceiptError(MALFORMED, f"the header's typ is {header['typ']!r}, not {RECEIPT_TYPE!r}")

    # 2. A key with that kid, kty OKP, crv Ed25519.
    jwk = as_key_source(jwks).find(kid)
    key = _public_key(jwk) if isinstance(jwk, dict) else None
    if key is None:
        raise ReceiptError(UNKNOWN_KEY, f"no Ed25519 key {kid!r} in the key set")

    # 3. The signature over the ASCII of header.payload, as received.
    signed = (segments[0] + "." + segments[1]).encode("ascii")
    try:
        if len(signature) != 64:
            raise InvalidSignature
        key.verify(signature, signed)
    except InvalidSignature:
        raise ReceiptError(BAD_SIGNATURE, f"the signature does not verify with key {kid!r}") from None

    # 4. The payload: a JSON object, version 1.
    claims = _parse_json(payload_bytes, "payload")
    if not isinstance(claims, dict):
        raise ReceiptError(MALFORMED, "the payload is not a JSON object")
    version = claims.get("version")
    if not _is_int(version) or version < 0:
        raise ReceiptError(MALFORMED, "the payload has no 'version' (a non-negative integer)")
    if version != 1:
        raise ReceiptError(UNSUPPORTED_VERSION, f"receipt version {version} is not supported (1 is)")
    _check_claim_types(claims)

    # 5. A retired key signs nothing issued after its retiredAt.
    if "retiredAt" in jwk:
        retired_at = jwk["retiredAt"]
        if not isinstance(retired_at, (int, float)) or isinstance(retired_at, bool):
            raise ReceiptError(KEY_RETIRED, f"key {kid!r} has an unreadable retiredAt")
        if claims["issuedAt"] > retired_at:
            raise ReceiptError(KEY_RETIRED, f"key {kid!r} was retired at {retired_at}, "
                               f"before the receipt's issuedAt {claims['issuedAt']}")

    # 6. Not expired.
    current = time.time() if now is None else now
    if not current < claims["expiresAt"]:
        raise ReceiptError(EXPIRED, f"the receipt expired at {claims['expiresAt']}")

    # 7. A decision that lets the tool run.
    if claims["decision"] not in ("approved", "answered"):
        raise ReceiptError(NOT_APPROVED, f"the decision is {claims['decision']!r}")

    # 8. The tool, and the call's ids when the caller expects some.
    if claims["tool"] != tool:
        raise ReceiptError(TOOL_MISMATCH, f"the receipt is for tool {claims['tool']!r}, not {tool!r}")
    if run_id is not None and claims.get("runId") != run_id:
        raise ReceiptError(CALL_MISMATCH, f"the receipt's runId is {claims.get('runId')!r}, not {run_id!r}")
    if tool_call_id is not None and claims.get("toolCallId") != tool_call_id:
        raise ReceiptError(CALL_MISMATCH, f"the receipt's toolCallId is {claims.get('toolCallId')!r}, "
                           f"not {tool_call_id!r}")

    # 9. The arguments about to run are the ones approved: first that their fingerprint binds them
    # (no number a double cannot hold exactly, exact fingerprints), then the fingerprint, computed here.
    ambiguous = inexact_paths(args)
    if ambiguous:
        raise ReceiptError(AMBIGUOUS_ARGUMENTS, "the arguments hold numbers a fingerprint cannot bind, at "
                           f"{', '.join(repr(p) for p in ambiguous)}: no receipt holds for them")
    try:
        expected = fingerprint(tool, args)
    except CanonicalizationError as exc:
        raise ReceiptError(FINGERPRINT_MISMATCH, f"the arguments have no canonical form: {exc}") from exc
    if claims.get("executedFingerprint") != expected:
        raise ReceiptError(FINGERPRINT_MISMATCH, "the arguments are not the ones approved: "
                           f"receipt {claims.get('executedFingerprint')!r}, these {expected!r}")

    # 10. Used once: recorded now, atomically.
    if not store.consume(claims["id"], claims["expiresAt"]):
        raise ReceiptError(REPLAYED, f"receipt {claims['id']!r} was already used")
    return claims
