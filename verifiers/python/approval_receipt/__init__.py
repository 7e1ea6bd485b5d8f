"""Verify the Approval Console's decision receipts (Ed25519 JWS) before a tool runs.

    from approval_receipt import verify_receipt, load_jwks, SqliteStore, ReceiptError

    claims = verify_receipt(receipt, jwks=load_jwks("jwks.json"), tool="delete_record",
                            args={"id": "rec-1"}, store=SqliteStore("used-receipts.db"))

The format and the checks are docs/receipts.md of the Approval Console.
"""

from .exact import InexactNumber, exact_literal, inexact_paths, loads_exact
from .fingerprint import fingerprint
from .jcs import CanonicalizationError, canonicalize, canonicalize_bytes
from .jwks import JwksError, KeySet, KeySource, RemoteKeySet, fetch_jwks, load_jwks
from .stores import FileStore, MemoryStore, ReceiptStore, SqliteStore, open_store
from .verify import ERROR_CODES, RECEIPT_TYPE, ReceiptError, verify_receipt

__all__ = [
    "verify_receipt", "ReceiptError", "ERROR_CODES", "RECEIPT_TYPE",
    "fingerprint", "canonicalize", "canonicalize_bytes", "CanonicalizationError",
    "loads_exact", "InexactNumber", "exact_literal", "inexact_paths",
    "load_jwks", "fetch_jwks", "KeySet", "RemoteKeySet", "KeySource", "JwksError",
    "ReceiptStore", "MemoryStore", "FileStore", "SqliteStore", "open_store",
]

__version__ = "0.1.0"
