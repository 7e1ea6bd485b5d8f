"""Stores of used receipt ids: what makes a receipt good for one run of its call.

A store answers one question atomically: ``consume(receipt_id, expires_at)`` records the id as used
and returns ``True``, or returns ``False`` when it was already recorded. A record is kept until the
receipt's ``expiresAt``; after that the receipt is refused as expired anyway, so the store may
forget it (each store prunes such records as it goes).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from typing import Callable, Protocol, runtime_checkable

__all__ = ["ReceiptStore", "MemoryStore", "FileStore", "SqliteStore", "open_store"]

Clock = Callable[[], float]


@runtime_checkable
class ReceiptStore(Protocol):
    def consume(self, receipt_id: str, expires_at: int) -> bool:
        """Record ``receipt_id`` as used; ``False`` if it already was. Atomic."""
        ...


class MemoryStore:
    """Used ids in this process's memory (thread-safe). Forgets everything when the process ends:
    fit for one long-running agent, not for several processes or restarts."""

    def __init__(self, *, clock: Clock = time.time) -> None:
        self._clock = clock
        self._used: dict[str, int] = {}
        self._lock = threading.Lock()

    def consume(self, receipt_id: str, expires_at: int) -> bool:
        with self._lock:
            if receipt_id in self._used:
                return False
            now = self._clock()
            for old in [k for k, exp in self._used.items() if exp < now]:
                del self._used[old]
            self._used[receipt_id] = expires_at
            return True

    def __len__(self) -> int:
        return len(self._used)


class FileStore:
    """Used ids as files in a directory, safe across processes (and threads) on one machine.

    Each used id is an empty file named by the SHA-256 of the id (so no id can name a path), whose
    modification time is the receipt's ``expiresAt``. The file is first made under a private temporary
    name with that time already set, then hard-linked to its final name: ``link`` fails if the
    name exists, so exactly one of several racing processes wins, and a record never appears without
    its expiry (a pruner cannot mistake a record being written for an expired one). Records whose
    time has passed are deleted at most every ``prune_interval`` seconds, along with temporary
    files left by a crash. Needs a file system with hard links (any local POSIX one, NTFS).
    """

    _TMP_PREFIX = ".tmp-"

    def __init__(self, directory: str | os.PathLike[str], *, clock: Clock = time.time,
                 prune_interval: float = 60.0) -> None:
        self.directory = os.fspath(directory)
        os.makedirs(self.directory, mode=0o700, exist_ok=True)
        self._clock = clock
        self._prune_interval = prune_interval
        self._last_prune = float("-inf")
        self._lock = threading.Lock()

    def _path(self, receipt_id: str) -> str:
        name = hashlib.sha256(receipt_id.encode("utf-8", "surrogatepass")).hexdigest()
        return os.path.join(self.directory, name)

    def consume(self, receipt_id: str, expires_at: int) -> bool:
        final = self._path(receipt_id)
        tmp = os.path.join(self.directory, self._TMP_PREFIX + os.urandom(16).hex())
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.close(fd)
            try:
                os.utime(tmp, (expires_at, expires_at))
            except (OverflowError, OSError):  # beyond what the file system can hold
                os.utime(tmp, (2**31 - 1, 2**31 - 1))
            try:
                os.link(tmp, final)
            except FileExistsError:
                return False
        finally:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        self._maybe_prune()
        return True

    def _maybe_prune(self) -> None:
        now = self._clock()
        with self._lock:
            if now - self._last_prune < self._prune_interval:
                return
            self._last_prune = now
        with os.scandir(self.directory) as entries:
            for entry in entries:
                try:
                    mtime = entry.stat(follow_symlinks=False).st_mtime
                    if entry.name.startswith(self._TMP_PREFIX):
                        expired = mtime < now - 3600  # left by a crash between open and link
                    else:
                        expired = mtime < now
                    if expired and entry.is_file(follow_symlinks=False):
                        os.unlink(entry.path)
                except FileNotFoundError:
                    pass  # another process pruned it first


class SqliteStore:
    """Used ids in an SQLite database (stdlib ``sqlite3``), safe across threads and processes.

    Table ``used_receipts(id TEXT PRIMARY KEY, expires_at INTEGER)``; ``consume`` is one
    ``INSERT … ON CONFLICT(id) DO NOTHING`` (the primary key makes it atomic; a changed row count
    of 1 means this call recorded it) followed by deleting expired rows, in one immediate
    transaction. ``timeout`` is how long to wait for another process's lock.
    """

    def __init__(self, path: str | os.PathLike[str], *, clock: Clock = time.time,
                 timeout: float = 30.0) -> None:
        self.path = os.fspath(path)
        self._clock = clock
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None,
                                   check_same_thread=False)
        with self._lock:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError:
                pass  # e.g. locked by another process setting it up; the default journal works too
            self._db.execute("CREATE TABLE IF NOT EXISTS used_receipts ("
                             "id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)")
            self._db.execute("CREATE INDEX IF NOT EXISTS used_receipts_expires_at "
                             "ON used_receipts (expires_at)")

    def consume(self, receipt_id: str, expires_at: int) -> bool:
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                cursor = db.execute(
                    "INSERT INTO used_receipts (id, expires_at) VALUES (?, ?) "
                    "ON CONFLICT (id) DO NOTHING", (receipt_id, max(min(expires_at, 2**63 - 1), -2**63)))
                recorded = cursor.rowcount == 1
                if recorded:
                    db.execute("DELETE FROM used_receipts WHERE expires_at < ?",
                               (int(self._clock()),))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            return recorded

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "SqliteStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(spec: str) -> ReceiptStore:
    """A store from the CLI's notation: ``memory``, ``file:PATH`` or ``sqlite:PATH``."""
    if spec == "memory":
        return MemoryStore()
    kind, sep, path = spec.partition(":")
    if sep and path and kind == "file":
        return FileStore(path)
    if sep and path and kind == "sqlite":
        return SqliteStore(path)
    raise ValueError(f"unknown store {spec!r}: expected memory, file:PATH or sqlite:PATH")
