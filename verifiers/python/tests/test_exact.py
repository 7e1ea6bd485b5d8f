import hashlib
import unittest

from support import TOOL, Signer, jwks, make_claims

from approval_receipt import (ERROR_CODES, InexactNumber, MemoryStore, ReceiptError, exact_literal,
                              inexact_paths, loads_exact, verify_receipt)

# The console's canonical text of the approved call, written out by hand: RFC 8785 writes the double
# 2**60 as ECMAScript does, 1152921504606847000.
TWO_60 = 2**60
APPROVED = '{"args":{"rate":0.1,"user_id":1152921504606847000},"toolName":"delete_record"}'
FINGERPRINT = "sha256:" + hashlib.sha256(APPROVED.encode()).hexdigest()


class ExactLiterals(unittest.TestCase):
    def test_integers_a_double_holds_and_decimals_in_their_shortest_form_are_exact(self):
        for text in ("0", "-0.0", "42", "1.5e3", "100e-2", "1152921504606846976", "1152921504606846976.0",
                     "1e21", "1E+22", "0.1", "1e-7", "0.30000000000000004", "5e-324", "0e-99999999999999999999"):
            self.assertTrue(exact_literal(text), text)
        for text in ("9007199254740993", "1152921504606846977", "1152921504606847000", "1e23",
                     "0.10000000000000001", "1.0000000000000000001", "1e400", "-1e400", "2e-324",
                     "1e-99999999999999999999", "1" * 5000):
            self.assertFalse(exact_literal(text), text)

    def test_loads_exact_keeps_what_it_cannot_read_exactly_as_written(self):
        value = loads_exact('{"a": 1152921504606846977, "b": [0.10000000000000001, 1e400], "c": 1.5e3, "d": 2}')
        self.assertEqual(value["a"].literal, "1152921504606846977")
        self.assertIsInstance(value["b"][0], InexactNumber)
        self.assertEqual((value["c"], value["d"]), (1500.0, 2))
        self.assertEqual(inexact_paths(value), ["/a", "/b/0", "/b/1"])
        self.assertEqual(inexact_paths({"a/b": [TWO_60, TWO_60 + 1], "t": True, "x": 10**400}), ["/a~1b/1", "/x"])
        with self.assertRaises(ValueError):
            loads_exact('{"a": 1, "a": 2}')


class ReceiptForTwoToTheSixty(unittest.TestCase):
    """A receipt for 2**60 holds for no neighbour: 2**60 + 1 shares its fingerprint."""

    def setUp(self):
        self.signer = Signer()
        self.receipt = self.signer.sign(make_claims(fingerprint=FINGERPRINT, executedFingerprint=FINGERPRINT))

    def verify(self, args):
        return verify_receipt(self.receipt, jwks=jwks(self.signer), tool=TOOL, args=args, store=MemoryStore())

    def test_two_to_the_sixty_plus_one_is_refused_as_ambiguous(self):
        self.assertIn("ambiguous_arguments", ERROR_CODES)
        for args in ({"user_id": TWO_60 + 1, "rate": 0.1},
                     loads_exact('{"user_id": 1152921504606846976, "rate": 0.10000000000000001}'),
                     loads_exact('{"user_id": 1152921504606846977, "rate": 0.1}')):
            with self.subTest(args=args), self.assertRaises(ReceiptError) as caught:
                self.verify(args)
            self.assertEqual(caught.exception.code, "ambiguous_arguments", caught.exception.message)
        self.assertEqual(self.verify({"user_id": TWO_60, "rate": 0.1})["executedFingerprint"], FINGERPRINT)
        self.verify(loads_exact('{"rate": 1e-1, "user_id": 1152921504606846976.0}'))


if __name__ == "__main__":
    unittest.main()
