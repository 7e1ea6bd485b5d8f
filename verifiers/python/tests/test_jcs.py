import os
import struct
import unittest

from support import JCS_DATA

from approval_receipt import CanonicalizationError, canonicalize, canonicalize_bytes
from approval_receipt.jcs import loads_strict


def double(hex_bits: str) -> float:
    return struct.unpack(">d", bytes.fromhex(hex_bits))[0]


class Rfc8785Vectors(unittest.TestCase):
    def test_every_input_matches_its_output_byte_for_byte(self):
        names = sorted(os.listdir(os.path.join(JCS_DATA, "input")))
        self.assertGreaterEqual(len(names), 6)
        for name in names:
            with self.subTest(vector=name):
                with open(os.path.join(JCS_DATA, "input", name), encoding="utf-8") as f:
                    value = loads_strict(f.read())
                with open(os.path.join(JCS_DATA, "output", name), "rb") as f:
                    expected = f.read()
                self.assertEqual(canonicalize_bytes(value), expected)

    def test_numbers_txt(self):
        with open(os.path.join(JCS_DATA, "numbers.txt"), encoding="utf-8") as f:
            lines = [line.strip() for line in f if line.strip()]
        self.assertGreaterEqual(len(lines), 20)
        for line in lines:
            bits, expected = line.split(",", 1)
            with self.subTest(bits=bits):
                self.assertEqual(canonicalize(double(bits)), expected)
                # The same double read from JSON text (as an agent's args would be).
                self.assertEqual(canonicalize(loads_strict(repr(double(bits)))), expected)


class Numbers(unittest.TestCase):
    def test_ecmascript_placement(self):
        cases = {
            1e21: "1e+21", 1e20: "100000000000000000000", 123456789012345680000.0: "123456789012345680000",
            1e-6: "0.000001", 1e-7: "1e-7", 1.5e-7: "1.5e-7", 0.000123: "0.000123", 12.5: "12.5",
            -1.25e+30: "-1.25e+30", 5e-324: "5e-324", 100.0: "100", 0.1: "0.1", 1.0: "1",
            -0.0: "0", 0.0: "0", 2.5e25: "2.5e+25", 1.7976931348623157e308: "1.7976931348623157e+308",
            4.35: "4.35", 0.1 + 0.2: "0.30000000000000004", 123e-20: "1.23e-18",
        }
        for value, expected in cases.items():
            with self.subTest(value=value):
                self.assertEqual(canonicalize(value), expected)

    def test_integers(self):
        self.assertEqual(canonicalize(0), "0")
        self.assertEqual(canonicalize(-42), "-42")
        self.assertEqual(canonicalize(2**53), "9007199254740992")
        self.assertEqual(canonicalize(-(2**53)), "-9007199254740992")
        # Beyond 2^53 an integer is written as the double it becomes.
        self.assertEqual(canonicalize(2**53 + 1), "9007199254740992")
        self.assertEqual(canonicalize(2**53 + 3), "9007199254740996")
        self.assertEqual(canonicalize(-(2**53) - 1), "-9007199254740992")
        self.assertEqual(canonicalize(10**21), "1e+21")
        self.assertEqual(canonicalize(295147905179352825856), "295147905179352830000")
        self.assertEqual(canonicalize(loads_strict("18446744073709551615")), "18446744073709552000")
        with self.assertRaises(CanonicalizationError):
            canonicalize(10**400)

    def test_booleans_are_not_numbers(self):
        self.assertEqual(canonicalize([True, False, None, 1]), "[true,false,null,1]")

    def test_non_finite_numbers_are_refused(self):
        for value in (float("nan"), float("inf"), float("-inf"), {"a": [float("nan")]}):
            with self.subTest(value=value), self.assertRaises(CanonicalizationError):
                canonicalize(value)


class StringsAndObjects(unittest.TestCase):
    def test_escapes(self):
        self.assertEqual(canonicalize("\b\t\n\f\r\"\\"), '"\\b\\t\\n\\f\\r\\"\\\\"')
        self.assertEqual(canonicalize("\x00\x01\x1f"), '"\\u0000\\u0001\\u001f"')
        self.assertEqual(canonicalize("\x0b\x1e"), '"\\u000b\\u001e"')
        self.assertEqual(canonicalize("/\x7f\u2028\u00e9\U0001F600<>&'"), '"/\x7f\u2028\u00e9\U0001F600<>&\'"')

    def test_keys_sort_by_utf16_code_units_not_code_points(self):
        # U+1F600 is the surrogate pair D83D DE00, which sorts before U+E000 in UTF-16 (not in UTF-32).
        value = {"\ue000": 1, "\U0001F600": 2, "b": 3, "B": 4, "": 5, "ab": 6, "a": 7, "\u00e9": 8}
        self.assertEqual(canonicalize(value),
                         '{"":5,"B":4,"a":7,"ab":6,"b":3,"\u00e9":8,"\U0001F600":2,"\ue000":1}')

    def test_nested_and_empty(self):
        value = {"z": [], "y": {}, "x": [{"b": [1, {"d": 0, "c": None}], "a": "s"}], "w": ()}
        self.assertEqual(canonicalize(value), '{"w":[],"x":[{"a":"s","b":[1,{"c":null,"d":0}]}],"y":{},"z":[]}')

    def test_refusals(self):
        for value in ("\ud800", {"\udc00": 1}, {1: "a"}, {"a": {1, 2}}, b"bytes", object()):
            with self.subTest(value=value), self.assertRaises(CanonicalizationError):
                canonicalize(value)

    def test_strict_reader(self):
        for text in ("NaN", "[Infinity]", "-Infinity", "1e400", '{"a":1,"a":2}', "[1,]", "{'a':1}"):
            with self.subTest(text=text), self.assertRaises(ValueError):
                loads_strict(text)
        self.assertEqual(loads_strict('{"a":[1,2.5,"x",null,true]}'), {"a": [1, 2.5, "x", None, True]})


if __name__ == "__main__":
    unittest.main()
