import base64
import json
import unittest

from support import ARGS, TOOL, Signer, b64u, compact, hand_fingerprint, jwks, make_claims

from approval_receipt import ERROR_CODES, KeySet, MemoryStore, ReceiptError, verify_receipt


class RecordingStore:
    def __init__(self):
        self.calls = []

    def consume(self, receipt_id, expires_at):
        self.calls.append((receipt_id, expires_at))
        return True


class VerifyTestCase(unittest.TestCase):
    def setUp(self):
        self.signer = Signer()
        self.other = Signer()
        self.keys = jwks(self.signer, self.other)

    def verify(self, receipt, *, tool=TOOL, args=ARGS, store=None, keys=None, **kw):
        return verify_receipt(receipt, jwks=self.keys if keys is None else keys, tool=tool,
                              args=args, store=MemoryStore() if store is None else store, **kw)

    def assertCode(self, code, receipt, **kw):
        store = kw.pop("store", None) or RecordingStore()
        with self.assertRaises(ReceiptError) as caught:
            self.verify(receipt, store=store, **kw)
        self.assertEqual(caught.exception.code, code, caught.exception.message)
        self.assertIn(code, ERROR_CODES)
        if isinstance(store, RecordingStore):
            self.assertEqual(store.calls, [], "a refused receipt must not be recorded as used")
        return caught.exception


class ValidReceipt(VerifyTestCase):
    def test_valid_receipt_returns_its_claims_and_is_recorded(self):
        claims = make_claims()
        store = RecordingStore()
        self.assertEqual(self.verify(self.signer.sign(claims), store=store), claims)
        self.assertEqual(store.calls, [(claims["id"], claims["expiresAt"])])

    def test_keys_order_and_number_spelling_of_args_do_not_matter(self):
        args = {"id": "rec-1", "n": 2, "o": {"b": 1, "a": [1, "x"]}}
        claims = make_claims(args=args)
        self.verify(self.signer.sign(claims), args={"o": {"a": [1.0, "x"], "b": 1}, "n": 2.0, "id": "rec-1"})

    def test_answered_decision_and_edited_arguments_pass(self):
        claims = make_claims(decision="answered", edited=True,
                             fingerprint=hand_fingerprint(TOOL, {"id": "rec-0"}))
        self.verify(self.signer.sign(claims))

    def test_accepts_bytes_whitespace_keyset_and_missing_typ(self):
        receipt = self.signer.sign(make_claims(), header=self.signer.header(typ=None))
        self.verify(("\n  " + receipt + "\r\n").encode(), keys=KeySet(self.keys))

    def test_matching_call_ids_pass_and_unknown_claims_are_ignored(self):
        claims = make_claims(futureClaim={"x": 1})
        self.verify(self.signer.sign(claims), run_id="run_12", tool_call_id="call_1")

    def test_now_parameter_is_used(self):
        claims = make_claims(now=1000)
        self.verify(self.signer.sign(claims), now=1000)
        self.assertCode("expired", self.signer.sign(make_claims(now=1000)))  # the clock says later


class Tampering(VerifyTestCase):
    def tamper_payload(self, receipt, claims):
        header, _, signature = receipt.split(".")
        return f"{header}.{b64u(compact(claims).encode())}.{signature}"

    def test_each_changed_claim_breaks_the_signature(self):
        claims = make_claims()
        receipt = self.signer.sign(claims)
        for name, value in claims.items():
            if isinstance(value, bool):
                changed = not value
            elif isinstance(value, int):
                changed = value + 1
            elif isinstance(value, str):
                changed = value[:-1] + ("0" if value[-1] != "0" else "1")
            else:
                changed = value + ["local:mallory"]
            with self.subTest(claim=name):
                self.assertCode("bad_signature", self.tamper_payload(receipt, {**claims, name: changed}))
            with self.subTest(removed=name):
                rest = {k: v for k, v in claims.items() if k != name}
                self.assertCode("bad_signature", self.tamper_payload(receipt, rest))
        self.assertCode("bad_signature", self.tamper_payload(receipt, {**claims, "extra": 1}))
        self.verify(self.tamper_payload(receipt, claims))  # re-encoding itself changed nothing

    def test_changed_kid_in_header(self):
        claims = make_claims()
        _, payload, signature = self.signer.sign(claims).split(".")
        swapped = b64u(compact(self.signer.header(kid=self.other.kid)).encode())
        self.assertCode("bad_signature", f"{swapped}.{payload}.{signature}")
        unknown = b64u(compact(self.signer.header(kid="ed25519-0000000000000000")).encode())
        self.assertCode("unknown_key", f"{unknown}.{payload}.{signature}")

    def test_changed_signature(self):
        header, payload, signature = self.signer.sign(make_claims()).split(".")
        raw = bytearray(base64.urlsafe_b64decode(signature + "=="))
        for i in (0, 31, 63):
            flipped = bytearray(raw)
            flipped[i] ^= 0x01
            with self.subTest(byte=i):
                self.assertCode("bad_signature", f"{header}.{payload}.{b64u(bytes(flipped))}")
        self.assertCode("bad_signature", f"{header}.{payload}.{b64u(bytes(raw[:63]))}")
        self.assertCode("bad_signature", f"{header}.{payload}.")
        other = self.other.sign(make_claims()).split(".")[2]
        self.assertCode("bad_signature", f"{header}.{payload}.{other}")

    def test_changed_args_and_tool(self):
        receipt = self.signer.sign(make_claims())
        self.assertCode("fingerprint_mismatch", receipt, args={"id": "rec-2"})
        self.assertCode("fingerprint_mismatch", receipt, args={"id": "rec-1", "force": True})
        self.assertCode("fingerprint_mismatch", receipt, args={"id": "rec-1", "x": None})
        self.assertCode("fingerprint_mismatch", receipt, args={})
        self.assertCode("fingerprint_mismatch", receipt, args={"id": float("nan")})
        self.assertCode("tool_mismatch", receipt, tool="drop_table")

    def test_edited_receipt_binds_the_executed_arguments_not_the_original(self):
        claims = make_claims(edited=True, fingerprint=hand_fingerprint(TOOL, {"id": "rec-0"}))
        receipt = self.signer.sign(claims)
        self.assertCode("fingerprint_mismatch", receipt, args={"id": "rec-0"})
        self.verify(receipt)

    def test_missing_executed_fingerprint(self):
        self.assertCode("fingerprint_mismatch", self.signer.sign(make_claims(executedFingerprint=None)))

    def test_signed_claims_for_another_tool(self):
        claims = make_claims(tool="drop_table", args=ARGS)
        self.assertCode("tool_mismatch", self.signer.sign(claims))

    def test_call_ids(self):
        receipt = self.signer.sign(make_claims())
        self.assertCode("call_mismatch", receipt, run_id="run_13")
        self.assertCode("call_mismatch", receipt, tool_call_id="call_2")
        self.assertCode("call_mismatch", receipt, run_id="run_12", tool_call_id="call_2")
        bare = self.signer.sign(make_claims(runId=None, toolCallId=None))
        self.assertCode("call_mismatch", bare, run_id="run_12")
        self.assertCode("call_mismatch", bare, tool_call_id="call_1")
        self.verify(bare)


class KeysAndTime(VerifyTestCase):
    def test_unknown_kid_and_unusable_keys(self):
        receipt = Signer().sign(make_claims())
        self.assertCode("unknown_key", receipt)
        for change in ({"kty": "EC"}, {"crv": "Ed448"}, {"x": "AAAA"}, {"x": None}, {"x": "a=="}):
            jwk = {**self.signer.jwk(), **change}
            with self.subTest(change=change):
                self.assertCode("unknown_key", self.signer.sign(make_claims()), keys={"keys": [jwk]})

    def test_retired_key(self):
        retired = Signer(created_at=1000, retired_at=5000)
        keys = jwks(retired, self.signer)
        self.verify(retired.sign(make_claims(issuedAt=4999)), keys=keys)
        self.verify(retired.sign(make_claims(issuedAt=5000)), keys=keys)
        self.assertCode("key_retired", retired.sign(make_claims(issuedAt=5001)), keys=keys)
        # Retirement is checked before expiry.
        stale = retired.sign(make_claims(issuedAt=5001, expiresAt=6000))
        self.assertCode("key_retired", stale, keys=keys)

    def test_expired(self):
        claims = make_claims(now=10_000)
        receipt = self.signer.sign(claims)
        self.verify(receipt, now=claims["expiresAt"] - 1)
        self.assertCode("expired", receipt, now=claims["expiresAt"])
        self.assertCode("expired", receipt, now=claims["expiresAt"] + 1)

    def test_declined(self):
        declined = make_claims(decision="declined", executedFingerprint=None)
        self.assertCode("not_approved", self.signer.sign(declined))
        for decision in ("APPROVED", "pending", ""):
            with self.subTest(decision=decision):
                self.assertCode("not_approved", self.signer.sign(make_claims(decision=decision)))


class Order(VerifyTestCase):
    def test_first_failure_wins(self):
        s = self.signer
        everything_wrong = make_claims(decision="declined", tool="x", now=10)
        self.assertCode("unknown_key", Signer().sign(everything_wrong))
        self.assertCode("bad_signature", s.sign(everything_wrong)[:-4] + "AAAA")
        self.assertCode("unsupported_version", s.sign({**everything_wrong, "version": 2}))
        self.assertCode("expired", s.sign(everything_wrong))
        self.assertCode("not_approved", s.sign(make_claims(decision="declined", tool="x")))
        self.assertCode("tool_mismatch", s.sign(make_claims(tool="x")), run_id="other")
        self.assertCode("call_mismatch", s.sign(make_claims()), run_id="other", args={"id": "z"})

    def test_malformed_header_is_checked_before_the_key(self):
        claims = make_claims()
        header = Signer().header(alg="HS256")  # unknown kid, but the header is wrong first
        self.assertCode("malformed", Signer().sign(claims, header=header))


class Malformed(VerifyTestCase):
    def test_structure(self):
        good = self.signer.sign(make_claims())
        header, payload, signature = good.split(".")
        for receipt in ("", "abc", f"{header}.{payload}", f"{good}.x", f"{header}..{payload}.{signature}",
                        f"{header}=.{payload}.{signature}", f"{header}.{payload}.{signature}==",
                        f"{header}.{payload}+.{signature}", f"{header}.{payload}.{signature[:-1]}!",
                        f"{header}.{payload}.{signature}AAA",
                        f"{header}.{payload}.{signature[:-1]}{ALPHABET[ALPHABET.index(signature[-1]) + 1]}",
                        f"{header} .{payload}.{signature}"):
            with self.subTest(receipt=receipt):
                self.assertCode("malformed", receipt)
        # A signature that decodes but is not 64 bytes fails as a signature.
        for extra in ("A", "AA", "AAAA"):
            self.assertCode("bad_signature", f"{header}.{payload}.{signature}{extra}")
        self.assertCode("malformed", b"\xff" + good.encode())
        self.assertCode("malformed", 42)

    def test_header(self):
        claims = make_claims()
        s = self.signer
        for header in (s.header(alg="none"), s.header(alg=None), s.header(alg="eddsa"),
                       s.header(kid=None), s.header(kid=7), s.header(typ="JWT"), s.header(typ=""), s.header(typ=1)):
            with self.subTest(header=header):
                self.assertCode("malformed", s.sign(claims, header=header))
        raw_headers = (b"[]", b"not json", b'{"alg":"EdDSA","kid":"k","kid":"k2"}', b"\xff")
        for raw in raw_headers:
            with self.subTest(raw=raw):
                self.assertCode("malformed", s.sign_segments(b64u(raw), b64u(compact(claims).encode())))

    def test_payload(self):
        s = self.signer
        base = make_claims()
        for raw in (b"[1]", b"not json", b"\xff\xfe", b'{"version":1,"version":1}', b"null",
                    compact({**base, "version": NaN_TEXT}).replace('"NaN"', "NaN").encode()):
            with self.subTest(raw=raw):
                self.assertCode("malformed", s.sign(None, raw_payload=raw))
        for claims in ({**base, "version": "1"}, {**base, "version": True}, {**base, "version": 1.5}, {**base, "version": 1.0}, {**base, "version": -1},
                       {k: v for k, v in base.items() if k != "version"}):
            with self.subTest(claims=claims.get("version", "absent")):
                self.assertCode("malformed", s.sign(claims))
        for version in (0, 2, 10**30):
            with self.subTest(version=version):
                self.assertCode("unsupported_version", s.sign({**base, "version": version}))

    def test_claim_types(self):
        s = self.signer
        base = make_claims()
        for name, bad in (("id", 5), ("decision", None), ("decision", ["approved"]), ("tool", None),
                          ("issuedAt", "1"), ("issuedAt", True), ("expiresAt", 1.5), ("expiresAt", None),
                          ("executedFingerprint", 1), ("runId", 12), ("toolCallId", False)):
            claims = {**base, name: bad} if bad is not None else {k: v for k, v in base.items() if k != name}
            with self.subTest(name=name, bad=bad):
                self.assertCode("malformed", s.sign(claims))


NaN_TEXT = "NaN"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


class Replay(VerifyTestCase):
    def test_replayed_in_memory_and_failed_checks_consume_nothing(self):
        store = MemoryStore()
        receipt = self.signer.sign(make_claims())
        self.assertCode("fingerprint_mismatch", receipt, store=store, args={"id": "x"})
        self.assertEqual(len(store), 0)
        self.verify(receipt, store=store)
        self.assertCode("replayed", receipt, store=store)
        # The same id signed again (another text: no typ in the header) is still the same receipt.
        again = self.signer.sign(make_claims(id=make_claims()["id"]))
        claims = self.verify(again, store=store)
        resigned = self.signer.sign(make_claims(id=claims["id"]), header=self.signer.header(typ=None))
        self.assertNotEqual(resigned, again)
        self.assertCode("replayed", resigned, store=store)

if __name__ == "__main__":
    unittest.main()
