import http.server
import json
import os
import tempfile
import threading
import unittest

from support import ARGS, TOOL, Signer, jwks, make_claims

from approval_receipt import JwksError, KeySet, MemoryStore, ReceiptError, fetch_jwks, load_jwks, verify_receipt


class Console:
    """A tiny HTTP server publishing /.well-known/jwks.json, counting requests."""

    def __init__(self, keys):
        self.keys = keys
        self.requests = 0
        self.status = 200
        console = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                console.requests += 1
                body = json.dumps(console.keys).encode()
                if self.path != "/.well-known/jwks.json":
                    self.send_error(404)
                    return
                self.send_response(console.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/.well-known/jwks.json"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class LoadJwks(unittest.TestCase):
    def test_load_from_file_and_verify(self):
        signer = Signer()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "jwks.json")
            with open(path, "w") as f:
                json.dump(jwks(signer), f)
            keys = load_jwks(path)
        self.assertEqual(keys.kids(), [signer.kid])
        self.assertEqual(keys.find(signer.kid)["x"], signer.jwk()["x"])
        self.assertIsNone(keys.find("nope"))
        claims = verify_receipt(signer.sign(make_claims()), jwks=keys, tool=TOOL, args=ARGS, store=MemoryStore())
        self.assertEqual(claims["tool"], TOOL)

    def test_bad_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in (("a", "not json"), ("b", "[]"), ("c", '{"keys": {}}'), ("d", "{}")):
                path = os.path.join(tmp, name)
                with open(path, "w") as f:
                    f.write(text)
                with self.subTest(text=text), self.assertRaises(JwksError):
                    load_jwks(path)
            with self.assertRaises(JwksError):
                load_jwks(os.path.join(tmp, "missing.json"))

    def test_kid_is_what_the_docs_say(self):
        signer = Signer()
        self.assertRegex(signer.kid, r"\Aed25519-[0-9a-f]{16}\Z")
        self.assertEqual(KeySet(jwks(signer)).kids(), [signer.kid])


class FetchJwks(unittest.TestCase):
    def setUp(self):
        self.old = Signer()
        self.console = Console(jwks(self.old))
        self.addCleanup(self.console.close)

    def verify(self, receipt, keys):
        return verify_receipt(receipt, jwks=keys, tool=TOOL, args=ARGS, store=MemoryStore())

    def test_fetches_once_and_caches(self):
        keys = fetch_jwks(self.console.url, min_refetch_interval=0)
        self.assertEqual(self.console.requests, 1)
        for _ in range(3):
            self.verify(self.old.sign(make_claims()), keys)
        self.assertEqual(self.console.requests, 1)

    def test_rotation_refetches_once_on_an_unknown_kid(self):
        keys = fetch_jwks(self.console.url, min_refetch_interval=0)
        new = Signer()
        self.old.retired_at = 2_000_000_000
        self.console.keys = jwks(new, self.old)
        self.verify(new.sign(make_claims()), keys)
        self.assertEqual(self.console.requests, 2)
        self.verify(new.sign(make_claims()), keys)
        self.verify(self.old.sign(make_claims()), keys)
        self.assertEqual(self.console.requests, 2)
        self.assertEqual(keys.find(self.old.kid)["retiredAt"], 2_000_000_000)

    def test_unknown_kid_refetches_exactly_once_then_refuses(self):
        keys = fetch_jwks(self.console.url, min_refetch_interval=0)
        with self.assertRaises(ReceiptError) as caught:
            self.verify(Signer().sign(make_claims()), keys)
        self.assertEqual(caught.exception.code, "unknown_key")
        self.assertEqual(self.console.requests, 2)

    def test_refetches_are_rate_limited(self):
        keys = fetch_jwks(self.console.url, min_refetch_interval=3600)
        for _ in range(3):
            with self.assertRaises(ReceiptError):
                self.verify(Signer().sign(make_claims()), keys)
        self.assertEqual(self.console.requests, 1)

    def test_stale_cache_is_refreshed_and_kept_when_the_console_fails(self):
        now = [0.0]
        keys = fetch_jwks(self.console.url, max_age=100, clock=lambda: now[0])
        now[0] = 150
        self.console.status = 500
        self.verify(self.old.sign(make_claims()), keys)  # fetch failed: the cached key still serves
        self.assertEqual(self.console.requests, 2)
        self.console.status = 200
        now[0] = 300
        retired = dict(self.old.jwk(), retiredAt=1)
        self.console.keys = {"keys": [retired]}
        with self.assertRaises(ReceiptError) as caught:
            self.verify(self.old.sign(make_claims()), keys)
        self.assertEqual(caught.exception.code, "key_retired")

    def test_unreachable_or_bad_urls(self):
        self.console.status = 500
        with self.assertRaises(JwksError):
            fetch_jwks(self.console.url)
        for url in ("file:///etc/passwd", "ftp://x/jwks.json", "jwks.json"):
            with self.subTest(url=url), self.assertRaises(JwksError):
                fetch_jwks(url)


if __name__ == "__main__":
    unittest.main()
