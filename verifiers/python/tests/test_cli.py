import json
import os
import subprocess
import sys
import tempfile
import unittest

from support import ARGS, PACKAGE_ROOT, TOOL, Signer, jwks, make_claims


class Cli(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.tmp = self._tmp.name
        self.signer = Signer()
        self.jwks_path = os.path.join(self.tmp, "jwks.json")
        with open(self.jwks_path, "w") as f:
            json.dump(jwks(self.signer), f)

    def run_cli(self, receipt, *extra, tool=TOOL, args=json.dumps(ARGS), cwd=None):
        argv = [sys.executable, "-m", "approval_receipt", "verify", "--jwks", self.jwks_path]
        if tool is not None:
            argv += ["--tool", tool]
        if args is not None:
            argv += ["--args", args]
        env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT)
        proc = subprocess.run(argv + list(extra), input=receipt.encode(), capture_output=True,
                              env=env, cwd=cwd or self.tmp, timeout=60)
        return proc

    def verdict(self, proc, exit_code):
        self.assertEqual(proc.returncode, exit_code, proc.stderr.decode())
        lines = proc.stdout.decode().splitlines()
        self.assertEqual(len(lines), 1, proc.stdout)
        return json.loads(lines[0])

    def test_valid_receipt(self):
        claims = make_claims()
        proc = self.run_cli("\n " + self.signer.sign(claims) + "\n\n", "--run-id", "run_12",
                            "--tool-call-id", "call_1")
        self.assertEqual(self.verdict(proc, 0), {"ok": True, "claims": claims})

    def test_refusals_print_the_code(self):
        cases = [
            ("not_approved", self.signer.sign(make_claims(decision="declined")), []),
            ("tool_mismatch", self.signer.sign(make_claims(tool="other")), []),
            ("call_mismatch", self.signer.sign(make_claims()), ["--run-id", "run_99"]),
            ("call_mismatch", self.signer.sign(make_claims()), ["--tool-call-id", "call_9"]),
            ("expired", self.signer.sign(make_claims(now=1000)), []),
            ("unknown_key", Signer().sign(make_claims()), []),
            ("malformed", "", []),
            ("malformed", "a.b", []),
        ]
        for code, receipt, extra in cases:
            with self.subTest(code=code, extra=extra):
                result = self.verdict(self.run_cli(receipt, *extra), 1)
                self.assertEqual(result["ok"], False)
                self.assertEqual(result["code"], code)
                self.assertIsInstance(result["message"], str)
                self.assertEqual(set(result), {"ok", "code", "message"})

    def test_args_and_now(self):
        receipt = self.signer.sign(make_claims(now=1000))
        self.assertEqual(self.verdict(self.run_cli(receipt, "--now", "1000"), 0)["ok"], True)
        self.assertEqual(self.verdict(self.run_cli(receipt, "--now", "5000"), 1)["code"], "expired")
        other = self.run_cli(self.signer.sign(make_claims()), args='{"id": "rec-2"}')
        self.assertEqual(self.verdict(other, 1)["code"], "fingerprint_mismatch")
        spaced = self.run_cli(self.signer.sign(make_claims()), args='{ "id" : "rec-1" }')
        self.assertEqual(self.verdict(spaced, 0)["ok"], True)

    def test_numbers_no_fingerprint_binds_are_refused_as_written(self):
        # The receipt of {"n": 2**60, "r": 0.1}: RFC 8785 writes that double 1152921504606847000.
        canonical = '{"args":{"n":1152921504606847000,"r":0.1},"toolName":"delete_record"}'
        fp = "sha256:" + __import__("hashlib").sha256(canonical.encode()).hexdigest()
        receipt = self.signer.sign(make_claims(fingerprint=fp, executedFingerprint=fp))
        for args in ('{"n": 1152921504606846977, "r": 0.1}', '{"n": 1152921504606847000, "r": 0.1}',
                     '{"n": 1e400, "r": 0.1}', '{"n": 1152921504606846976, "r": 0.10000000000000001}'):
            with self.subTest(args=args):
                self.assertEqual(self.verdict(self.run_cli(receipt, args=args), 1)["code"], "ambiguous_arguments")
        ok = self.run_cli(receipt, args='{"n": 1152921504606846976, "r": 0.1}')
        self.assertEqual(self.verdict(ok, 0)["ok"], True)

    def test_replay_across_invocations_with_persistent_stores(self):
        for spec in ("file:" + os.path.join(self.tmp, "used"), "sqlite:" + os.path.join(self.tmp, "used.db")):
            receipt = self.signer.sign(make_claims())
            with self.subTest(store=spec):
                self.assertEqual(self.verdict(self.run_cli(receipt, "--store", spec), 0)["ok"], True)
                self.assertEqual(self.verdict(self.run_cli(receipt, "--store", spec), 1)["code"], "replayed")
        receipt = self.signer.sign(make_claims())
        for _ in range(2):  # memory is per process: no replay protection across invocations
            self.assertEqual(self.verdict(self.run_cli(receipt, "--store", "memory"), 0)["ok"], True)

    def test_usage_errors_exit_2(self):
        receipt = self.signer.sign(make_claims())
        for proc in (
            self.run_cli(receipt, tool=None),
            self.run_cli(receipt, args=None),
            self.run_cli(receipt, args="{not json"),
            self.run_cli(receipt, args="NaN"),
            self.run_cli(receipt, "--store", "redis:x"),
            self.run_cli(receipt, "--now", "soon"),
            self.run_cli(receipt, "--bogus"),
        ):
            with self.subTest(args=proc.args[5:]):
                self.assertEqual(proc.returncode, 2, proc.stdout)
                self.assertEqual(proc.stdout, b"")
                self.assertNotEqual(proc.stderr, b"")
        os.remove(self.jwks_path)
        self.assertEqual(self.run_cli(receipt).returncode, 2)
        no_command = subprocess.run([sys.executable, "-m", "approval_receipt"], capture_output=True,
                                    env=dict(os.environ, PYTHONPATH=PACKAGE_ROOT), cwd=self.tmp, timeout=60)
        self.assertEqual(no_command.returncode, 2)


if __name__ == "__main__":
    unittest.main()
