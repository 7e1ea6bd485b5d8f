import os
import subprocess
import sys
import tempfile
import unittest

from support import PACKAGE_ROOT, Signer, jwks, make_claims, TOOL, ARGS

from approval_receipt import FileStore, MemoryStore, ReceiptError, ReceiptStore, SqliteStore, verify_receipt
from approval_receipt.stores import open_store


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


class StoreContract:
    """The same tests for every store; subclasses say how to make one (two on one place if shared)."""

    shared = True

    def make(self, clock=None):
        raise NotImplementedError

    def test_is_a_receipt_store(self):
        self.assertIsInstance(self.make(), ReceiptStore)

    def test_consume_once(self):
        store = self.make()
        self.assertTrue(store.consume("rct_a", 2**40))
        self.assertFalse(store.consume("rct_a", 2**40))
        self.assertTrue(store.consume("rct_b", 2**40))
        self.assertFalse(store.consume("rct_b", 2**40))

    def test_replayed_receipt_is_refused_by_verify(self):
        signer = Signer()
        receipt = signer.sign(make_claims())
        store = self.make()
        first = verify_receipt(receipt, jwks=jwks(signer), tool=TOOL, args=ARGS, store=store)
        with self.assertRaises(ReceiptError) as caught:
            verify_receipt(receipt, jwks=jwks(signer), tool=TOOL, args=ARGS, store=store)
        self.assertEqual(caught.exception.code, "replayed")
        self.assertIn(first["id"], caught.exception.message)
        if self.shared:  # another instance on the same path (another process, a restart) sees it too
            with self.assertRaises(ReceiptError) as caught:
                verify_receipt(receipt, jwks=jwks(signer), tool=TOOL, args=ARGS, store=self.make())
            self.assertEqual(caught.exception.code, "replayed")

    def test_expired_records_are_pruned_unexpired_kept(self):
        clock = Clock(1000)
        store = self.make(clock)
        self.assertTrue(store.consume("rct_old", 1500))
        self.assertTrue(store.consume("rct_new", 5000))
        clock.now = 2000
        self.assertTrue(store.consume("rct_trigger", 5000))  # prunes rct_old
        self.assertTrue(store.consume("rct_old", 1500), "an expired record may be forgotten")
        self.assertFalse(store.consume("rct_new", 5000), "an unexpired record is kept")
        self.assertFalse(store.consume("rct_trigger", 5000))


class MemoryStoreTest(StoreContract, unittest.TestCase):
    shared = False

    def make(self, clock=None):
        return MemoryStore(clock=clock) if clock else MemoryStore()

    def test_memory_count(self):
        store = self.make()
        store.consume("x", 2**40)
        self.assertEqual(len(store), 1)


class DirectoryBacked(StoreContract):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.dir = self._tmp.name

    def test_two_instances_on_the_same_place_count_each_other(self):
        a, b = self.make(), self.make()
        self.assertTrue(a.consume("rct_1", 2**40))
        self.assertFalse(b.consume("rct_1", 2**40))
        self.assertTrue(b.consume("rct_2", 2**40))
        self.assertFalse(a.consume("rct_2", 2**40))


    def test_across_processes_exactly_one_wins(self):
        code = ("import sys; sys.path.insert(0, sys.argv[1]); from approval_receipt.stores import open_store;"
                "s = open_store(sys.argv[2]); import time; t = float(sys.argv[3])\n"
                "while time.time() < t: pass\n"
                "print(sum(s.consume('rct_%d' % i, 2**40) for i in range(40)))")
        import time
        start = str(time.time() + 1.5)
        procs = [subprocess.Popen([sys.executable, "-c", code, PACKAGE_ROOT, self.spec(), start],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(6)]
        wins = []
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            self.assertEqual(proc.returncode, 0, err)
            wins.append(int(out))
        self.assertEqual(sum(wins), 40, f"each of 40 ids recorded exactly once across processes: {wins}")


class FileStoreTest(DirectoryBacked, unittest.TestCase):
    def make(self, clock=None):
        path = os.path.join(self.dir, "used")
        return FileStore(path, clock=clock, prune_interval=0) if clock else FileStore(path)

    def spec(self):
        return "file:" + os.path.join(self.dir, "used")

    def test_ids_cannot_name_paths_and_records_carry_their_expiry(self):
        store = self.make()
        self.assertTrue(store.consume("../../escape", 1_900_000_000))
        self.assertFalse(store.consume("../../escape", 1_900_000_000))
        names = os.listdir(store.directory)
        self.assertEqual(len(names), 1)
        self.assertRegex(names[0], r"\A[0-9a-f]{64}\Z")
        self.assertEqual(os.stat(os.path.join(store.directory, names[0])).st_mtime, 1_900_000_000)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "..", "escape")))

    def test_crash_leftovers_are_pruned_but_fresh_temporaries_are_not(self):
        clock = Clock(10_000)
        store = self.make(clock)
        old = os.path.join(store.directory, ".tmp-old")
        fresh = os.path.join(store.directory, ".tmp-fresh")
        for path, mtime in ((old, 10_000 - 7200), (fresh, 10_000 - 10)):
            open(path, "w").close()
            os.utime(path, (mtime, mtime))
        store.consume("rct_x", 20_000)
        self.assertFalse(os.path.exists(old))
        self.assertTrue(os.path.exists(fresh))


class SqliteStoreTest(DirectoryBacked, unittest.TestCase):
    def make(self, clock=None):
        store = SqliteStore(os.path.join(self.dir, "used.db"), **({"clock": clock} if clock else {}))
        self.addCleanup(store.close)
        return store

    def spec(self):
        return "sqlite:" + os.path.join(self.dir, "used.db")

    def test_huge_expiry_is_stored(self):
        store = self.make()
        self.assertTrue(store.consume("rct_big", 10**30))
        self.assertFalse(store.consume("rct_big", 10**30))


class OpenStore(unittest.TestCase):
    def test_specs(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertIsInstance(open_store("memory"), MemoryStore)
            self.assertIsInstance(open_store("file:" + os.path.join(tmp, "d")), FileStore)
            sqlite = open_store("sqlite:" + os.path.join(tmp, "x.db"))
            self.assertIsInstance(sqlite, SqliteStore)
            sqlite.close()
        for bad in ("", "redis:x", "file:", "sqlite:", "memory:x"):
            with self.subTest(spec=bad), self.assertRaises(ValueError):
                open_store(bad)


if __name__ == "__main__":
    unittest.main()
