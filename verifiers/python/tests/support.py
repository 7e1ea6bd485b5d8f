"""Test support: an independent signer that builds receipts by hand with `cryptography`.

Nothing here uses the library under test: the payload is written with json.dumps(sort_keys=True)
(the canonical form for the plain ASCII claims used here) and fingerprints are hashed by hand.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import time
import uuid

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)  # verifiers/python
REPO_ROOT = os.path.dirname(os.path.dirname(PACKAGE_ROOT))
JCS_DATA = os.path.join(REPO_ROOT, "tests", "data", "jcs")
if PACKAGE_ROOT not in sys.path:
    sys.path.insert(0, PACKAGE_ROOT)


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def compact(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def hand_fingerprint(tool: str, args) -> str:
    """Fingerprint of ASCII-only args whose canonical form json.dumps(sort_keys=True) already is."""
    return "sha256:" + hashlib.sha256(compact({"toolName": tool, "args": args}).encode()).hexdigest()


class Signer:
    def __init__(self, created_at: int = 1_700_000_000, retired_at: int | None = None) -> None:
        self.private = Ed25519PrivateKey.generate()
        self.public_raw = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.kid = "ed25519-" + hashlib.sha256(self.public_raw).hexdigest()[:16]
        self.created_at = created_at
        self.retired_at = retired_at

    def jwk(self) -> dict:
        key = {"kty": "OKP", "crv": "Ed25519", "x": b64u(self.public_raw), "kid": self.kid,
               "alg": "EdDSA", "use": "sig", "createdAt": self.created_at}
        if self.retired_at is not None:
            key["retiredAt"] = self.retired_at
        return key

    def header(self, **changes) -> dict:
        header = {"alg": "EdDSA", "kid": self.kid, "typ": "approval-receipt"}
        header.update(changes)
        return {k: v for k, v in header.items() if v is not None}

    def sign_segments(self, header_b64: str, payload_b64: str) -> str:
        signature = self.private.sign(f"{header_b64}.{payload_b64}".encode("ascii"))
        return f"{header_b64}.{payload_b64}.{b64u(signature)}"

    def sign(self, claims, header: dict | None = None, raw_payload: bytes | None = None) -> str:
        header_b64 = b64u(compact(header or self.header()).encode())
        payload = raw_payload if raw_payload is not None else compact(claims).encode()
        return self.sign_segments(header_b64, b64u(payload))


def jwks(*signers: Signer) -> dict:
    return {"keys": [s.jwk() for s in signers]}


TOOL = "delete_record"
ARGS = {"id": "rec-1"}


def make_claims(tool: str = TOOL, args=ARGS, now: int | None = None, **changes) -> dict:
    now = int(time.time()) if now is None else now
    fp = hand_fingerprint(tool, args)
    claims = {
        "version": 1,
        "id": "rct_" + uuid.uuid4().hex,
        "decision": "approved",
        "edited": False,
        "fingerprint": fp,
        "executedFingerprint": fp,
        "tool": tool,
        "source": "local",
        "engine": "local@7f3a",
        "agent": "ops",
        "runId": "run_12",
        "toolCallId": "call_1",
        "callId": "itm_0b5e",
        "approvers": ["local:admin"],
        "policyVersion": "pv_91ab",
        "issuedAt": now - 60,
        "expiresAt": now + 3600,
    }
    claims.update(changes)
    return {k: v for k, v in claims.items() if v is not None}
