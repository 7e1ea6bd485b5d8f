"""The console's public keys: a JSON Web Key Set (RFC 7517, RFC 8037).

``load_jwks(path)`` reads a set copied where the tool runs (``approval-console receipt keys``);
``fetch_jwks(url)`` reads ``/.well-known/jwks.json`` from the console and keeps it, fetching it again
once when a receipt names a key it does not know (the console rotated its key) or when it is older
than ``max_age``. Both answer ``find(kid)`` with the key's JWK (a ``dict``) or ``None``.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
import urllib.request
from typing import Any, Callable, Mapping, Protocol, runtime_checkable

__all__ = ["JwksError", "KeySource", "KeySet", "RemoteKeySet", "load_jwks", "fetch_jwks", "as_key_source"]


class JwksError(ValueError):
    """The key set could not be read, or is not ``{"keys": [...]}``."""


@runtime_checkable
class KeySource(Protocol):
    def find(self, kid: str) -> dict[str, Any] | None:
        """The JWK with this ``kid``, or ``None``."""
        ...


def _index(jwks: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(jwks, Mapping) or not isinstance(jwks.get("keys"), list):
        raise JwksError('a JWKS is a JSON object {"keys": [...]}')
    keys: dict[str, dict[str, Any]] = {}
    for key in jwks["keys"]:
        if isinstance(key, Mapping) and isinstance(key.get("kid"), str):
            keys.setdefault(key["kid"], dict(key))  # the first key with a kid wins
    return keys


class KeySet:
    """A fixed key set, from a parsed JWKS ``{"keys": [...]}``."""

    def __init__(self, jwks: Mapping[str, Any]) -> None:
        self._keys = _index(jwks)

    def find(self, kid: str) -> dict[str, Any] | None:
        return self._keys.get(kid)

    def kids(self) -> list[str]:
        return list(self._keys)


def load_jwks(path: str) -> KeySet:
    """The key set in a JSON file. Raises ``JwksError``."""
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except (OSError, ValueError) as exc:
        raise JwksError(f"cannot read the key set {path}: {exc}") from exc
    return KeySet(data)


def _http_get_json(url: str, timeout: float, max_bytes: int = 1 << 20) -> Any:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (scheme checked)
        body = response.read(max_bytes + 1)
    if len(body) > max_bytes:
        raise JwksError(f"the key set at {url} is larger than {max_bytes} bytes")
    return json.loads(body)


class RemoteKeySet:
    """The key set at a URL, cached by kid (thread-safe).

    ``find(kid)`` answers from the cache; for a kid it does not know it fetches the set once more
    (key rotation) — but not more often than every ``min_refetch_interval`` seconds, so receipts
    naming made-up kids cannot make it hammer the console. A cache older than ``max_age`` seconds
    is fetched again on the next lookup (so a key's ``retiredAt`` is seen); if that fetch fails the
    cache is kept.
    """

    def __init__(self, url: str, *, timeout: float = 10.0, max_age: float = 300.0,
                 min_refetch_interval: float = 10.0, clock: Callable[[], float] = time.monotonic,
                 fetch: Callable[[str, float], Any] | None = None) -> None:
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            raise JwksError(f"the key set's URL must be http(s): {url}")
        self.url = url
        self._timeout = timeout
        self._max_age = max_age
        self._min_refetch_interval = min_refetch_interval
        self._clock = clock
        self._fetch = fetch or _http_get_json
        self._lock = threading.Lock()
        self._keys: dict[str, dict[str, Any]] = {}
        self._fetched_at = float("-inf")
        self.fetches = 0
        self.refresh()

    def refresh(self) -> None:
        """Fetch the set now. Raises ``JwksError``."""
        with self._lock:
            self._refresh_locked()

    def _refresh_locked(self) -> None:
        self._fetched_at = self._clock()  # also on failure: the rate limit counts attempts
        self.fetches += 1
        try:
            data = self._fetch(self.url, self._timeout)
        except JwksError:
            raise
        except Exception as exc:  # network, HTTP status, JSON: all mean "could not read it"
            raise JwksError(f"cannot fetch the key set {self.url}: {exc}") from exc
        self._keys = _index(data)

    def find(self, kid: str) -> dict[str, Any] | None:
        with self._lock:
            age = self._clock() - self._fetched_at
            if age >= self._max_age:
                try:
                    self._refresh_locked()
                except JwksError:
                    pass  # keep the keys we have
            elif kid not in self._keys and age >= self._min_refetch_interval:
                try:
                    self._refresh_locked()
                except JwksError:
                    return None
            return self._keys.get(kid)


def fetch_jwks(url: str, **options: Any) -> RemoteKeySet:
    """The key set at ``url`` (e.g. ``https://console.example/.well-known/jwks.json``), fetched now
    and kept; see ``RemoteKeySet`` for ``options``. Raises ``JwksError``."""
    return RemoteKeySet(url, **options)


def as_key_source(jwks: Any) -> KeySource:
    """A ``KeySource`` from what ``verify_receipt`` accepts: one already, or a parsed JWKS."""
    if isinstance(jwks, KeySource):
        return jwks
    return KeySet(jwks)
