import unittest

import support  # noqa: F401  (puts the package on sys.path)

from approval_receipt import CanonicalizationError, fingerprint

# printf '%s' '{"args":{"id":"rec-1"},"toolName":"delete_record"}' | sha256sum
DELETE_REC_1 = "sha256:812a02afcda74de8d149ee5b505b76abb97452e5085b05f50fff8ade6c053c7d"


class Fingerprint(unittest.TestCase):
    def test_equals_sha256sum_of_the_canonical_text(self):
        self.assertEqual(fingerprint("delete_record", {"id": "rec-1"}), DELETE_REC_1)

    def test_key_order_and_number_spelling_do_not_change_it(self):
        a = fingerprint("t", {"id": "rec-1", "n": 1.0, "o": {"b": 1, "a": 2}})
        b = fingerprint("t", {"o": {"a": 2, "b": 1}, "n": 1, "id": "rec-1"})
        self.assertEqual(a, b)

    def test_any_value_or_the_tool_name_changes_it(self):
        base = fingerprint("delete_record", {"id": "rec-1"})
        for other in (fingerprint("delete_record", {"id": "rec-2"}), fingerprint("lookup_record", {"id": "rec-1"}),
                      fingerprint("delete_record", {"id": "rec-1", "x": None}), fingerprint("delete_record", {}),
                      fingerprint("delete_record", {"id": ["rec-1"]}), fingerprint("delete_record", None)):
            self.assertNotEqual(base, other)
        self.assertRegex(base, r"\Asha256:[0-9a-f]{64}\Z")

    def test_arguments_without_canonical_form_are_refused(self):
        with self.assertRaises(CanonicalizationError):
            fingerprint("t", {"x": float("inf")})


if __name__ == "__main__":
    unittest.main()
