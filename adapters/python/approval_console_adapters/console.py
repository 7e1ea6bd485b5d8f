"""The client every adapter shares: submit a tool call to the Approval Console, wait for the
operator, and believe an approval only on its signed receipt.

The contract is docs/guides/http-agents.md (``POST /api/calls`` with an ``Idempotency-Key``, then
``GET /api/calls/{id}?waitSecs=N``) and docs/receipts.md; it is the one ``ConsoleClient::ask`` of
the console's own connectors (src/connector.rs) follows. Every failure is a ``Verdict`` that is not
approved, with a sentence saying why: the adapters fail closed on it.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable

from approval_receipt import JwksError, MemoryStore, ReceiptError, ReceiptStore, fetch_jwks, verify_receipt

__all__ = ["Console", "Verdict", "Refused", "DEFAULT_URL", "TOKEN_VAR", "URL_VAR", "idempotency_key"]

#: The console's address when ``APPROVAL_CONSOLE_URL`` is not set: a local ``serve`` or desktop app.
DEFAULT_URL = "http://127.0.0.1:4319"
#: Where the agent credential comes from (``approval-console tokens add NAME --role agent``).
TOKEN_VAR = "APPROVAL_CONSOLE_AGENT_TOKEN"
URL_VAR = "APPROVAL_CONSOLE_URL"

#: The longest single wait request; the client asks again until its deadline (the console holds 60 s at most).
POLL_SECS = 25
#: The longest pause between two tries at a console that cannot be reached.
MAX_BACKOFF = 10.0


class Refused(Exception):
    """The tool call may not run; ``reason`` says why (told to the model)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Unreachable(Exception):
    """The console did not answer (connection refused or reset, a timeout, 502–504)."""


@dataclass
class Verdict:
    """What the console decided about one call.

    ``approved`` is true only when the operator approved, without an edit, and the decision's receipt
    verified for exactly the tool and arguments submitted. Otherwise ``reason`` says why not.
    """

    approved: bool
    reason: str
    call_id: str | None = None
    receipt: str | None = None
    status: dict[str, Any] = field(default_factory=dict)


def idempotency_key(source: str, thread: str | None, tool_call_id: str) -> str:
    """The key a call is submitted under: the framework's own stable ids (its thread or session and
    the tool call's id), so a retry, or the same interrupt answered by a restarted process, finds
    the call queued the first time. At most 200 characters (longer ones are hashed)."""
    key = f"{source}:{thread or '-'}:{tool_call_id}"
    if len(key) > 200 or any(ord(c) < 32 or ord(c) == 127 for c in key):
        key = f"{source}:sha256:{hashlib.sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()}"
    return key


class Console:
    """A console to ask, as an agent credential.

    ``url`` and ``token`` default to ``APPROVAL_CONSOLE_URL`` (else ``DEFAULT_URL``) and
    ``APPROVAL_CONSOLE_AGENT_TOKEN``. ``jwks`` is the console's public key set to trust (a parsed
    JWKS, ``load_jwks(path)`` of a pinned copy, or anything with ``find(kid)``); without one the
    console's set is fetched from ``/.well-known/jwks.json``. ``store`` remembers the receipts acted
    on, so each runs a tool once (``SqliteStore(path)`` across processes; default: this process's
    memory). ``timeout`` is how long a call waits for a decision, console restarts included; with
    none by then it is withdrawn from the queue and refused.
    """

    def __init__(self, url: str | None = None, token: str | None = None, *, jwks: Any = None,
                 store: ReceiptStore | None = None, timeout: float = 600.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        base = (url or os.environ.get(URL_VAR) or DEFAULT_URL).strip().rstrip("/")
        if not (base.startswith("http://") or base.startswith("https://")):
            raise ValueError(f"the console's address {base!r} is not an http:// or https:// address")
        token = (token or os.environ.get(TOKEN_VAR) or "").strip()
        if not token:
            raise ValueError(f"{TOKEN_VAR} is not set: give it an agent credential "
                             "(approval-console tokens add NAME --role agent)")
        self.url = base
        self._token = token
        self._jwks = jwks  # without a pinned set: the console's, fetched at the first receipt
        self.store = store if store is not None else MemoryStore()
        self.timeout = timeout
        self._sleep = sleep

    # -- HTTP -------------------------------------------------------------------------------

    def _request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
                 timeout: float = 30.0) -> tuple[int, dict[str, str], Any]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, method=method, data=data, headers={
            "Authorization": "Bearer " + self._token, "Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=max(timeout, 1.0)) as answer:
                return answer.status, dict(answer.headers), _json(answer.read())
        except urllib.error.HTTPError as error:
            if error.code in (502, 503, 504):
                raise _Unreachable(f"the console answered {error.code}") from error
            return error.code, dict(error.headers or {}), _json(error.read())
        except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError, OSError) as error:
            raise _Unreachable(f"the console at {self.url} cannot be reached: "
                               f"{getattr(error, 'reason', error)}") from error

    # -- asking -----------------------------------------------------------------------------

    def ask(self, *, tool: str, args: Any, key: str, agent: str, source: str, thread: str | None = None,
            context: dict[str, Any] | None = None, timeout: float | None = None) -> Verdict:
        """Queues the call under ``key`` (or finds the one queued under it before) and waits for
        its decision until ``timeout`` (default: the console's), retrying while the console cannot be
        reached. Approved only if the operator approved these exact arguments, unedited, and the
        receipt verifies for them (it is not used up here: ``check`` does that where the tool runs)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        left = lambda: max(0.0, deadline - time.monotonic())  # noqa: E731
        body: dict[str, Any] = {"tool": tool, "args": args, "agent": agent, "source": source}
        if thread:
            body["thread"] = thread
        if context:
            body["context"] = context
        pause = 1.0
        while True:
            try:
                code, headers, answer = self._request("POST", "/api/calls", body, {"Idempotency-Key": key},
                                                      timeout=min(30.0, left() + 1))
            except _Unreachable as error:
                if left() <= 0:
                    return Verdict(False, f"{error}; no decision within the adapter's time limit")
                self._sleep(min(pause, left()))
                pause = min(pause * 2, MAX_BACKOFF)
                continue
            if code == 429 and left() > 0:
                self._sleep(min(_retry_after(headers), left()))
                continue
            if code not in (200, 201):
                return Verdict(False, f"the console refused the call: {_said(code, answer)}")
            break
        call_id = answer.get("id") if isinstance(answer, dict) else None
        status = answer.get("status") if isinstance(answer, dict) else None
        if not isinstance(call_id, str) or not isinstance(status, dict):
            return Verdict(False, "the console's answer has no call id or status")
        status = self._wait(call_id, status, left)
        if status.get("outcome") == "pending":
            status = self._withdraw(call_id, status)
            if status.get("outcome") == "pending":
                return Verdict(False, f"no decision within the adapter's time limit; call {call_id} was "
                               "withdrawn from the queue", call_id, status=status)
        return self._judge(call_id, status, tool, args)

    def _wait(self, call_id: str, status: dict[str, Any], left: Callable[[], float]) -> dict[str, Any]:
        pause = 1.0
        while status.get("outcome") == "pending" and left() > 0:
            wait = int(min(POLL_SECS, left()))
            try:
                code, headers, answer = self._request("GET", f"/api/calls/{call_id}?waitSecs={wait}",
                                                      timeout=wait + 10)
            except _Unreachable:
                # The console restarting, a lost connection: the call is queued; ask again, ever less often.
                self._sleep(min(pause, left()))
                pause = min(pause * 2, MAX_BACKOFF)
                continue
            pause = 1.0
            if code == 429:
                self._sleep(min(_retry_after(headers), left()))
                continue
            if code != 200 or not isinstance(answer, dict):
                return {"outcome": "failed", "reason": f"the console refused the wait: {_said(code, answer)}"}
            if answer.get("id") not in (None, call_id):
                return {"outcome": "failed", "reason": f"the console answered for call {answer.get('id')}, not {call_id}"}
            status = answer
        return status

    def _withdraw(self, call_id: str, status: dict[str, Any]) -> dict[str, Any]:
        """Out of the queue, so nobody approves what will not run; decided meanwhile: that decision."""
        try:
            code, _, _ = self._request("DELETE", f"/api/calls/{call_id}", timeout=5)
            if code == 409:
                code, _, answer = self._request("GET", f"/api/calls/{call_id}", timeout=5)
                if code == 200 and isinstance(answer, dict):
                    return answer
        except _Unreachable:
            pass
        return status

    def _judge(self, call_id: str, status: dict[str, Any], tool: str, args: Any) -> Verdict:
        outcome = status.get("outcome")
        receipt = status.get("receipt")
        if outcome != "approved":
            if outcome == "declined":
                why = status.get("reason") or ("nobody decided in time" if status.get("expired") else "no reason given")
                return Verdict(False, f"declined in the Approval Console: {why}", call_id, receipt, status)
            return Verdict(False, status.get("reason") or f"the console's answer is {outcome!r}, not an approval",
                           call_id, receipt, status)
        if status.get("edited"):
            return Verdict(False, "the operator edited the arguments; this adapter runs only the call the model "
                           "made, unchanged, so it is not run", call_id, receipt, status)
        if status.get("args") != args:
            return Verdict(False, "the console approved other arguments than the ones submitted", call_id, receipt, status)
        try:
            self._verify(receipt, tool, args, call_id, MemoryStore())  # checked; used up only where the tool runs
        except Refused as refused:
            return Verdict(False, refused.reason, call_id, receipt, status)
        return Verdict(True, "approved in the Approval Console", call_id, receipt, status)

    def check(self, verdict: Verdict, *, tool: str, args: Any) -> dict[str, Any]:
        """Right before the tool runs: the approval's receipt holds for exactly ``tool`` and the
        ``args`` about to run, and is used now (once). Returns its claims; raises ``Refused``."""
        if not verdict.approved:
            raise Refused(verdict.reason)
        return self._verify(verdict.receipt, tool, args, verdict.call_id, self.store)

    def _verify(self, receipt: Any, tool: str, args: Any, call_id: str | None, store: ReceiptStore) -> dict[str, Any]:
        """The receipt's checks (docs/receipts.md), then that it is this call's, unedited; only then
        is it recorded as used in ``store``."""
        if not isinstance(receipt, str) or not receipt:
            raise Refused("the approval's signed receipt is refused: the console sent none")
        try:
            if self._jwks is None:
                self._jwks = fetch_jwks(self.url + "/.well-known/jwks.json")
            claims = verify_receipt(receipt, jwks=self._jwks, tool=tool, args=args, store=MemoryStore())
        except JwksError as error:
            raise Refused(f"the approval's signed receipt is refused: the console's keys cannot be read: {error}") from None
        except ReceiptError as error:
            raise Refused(f"the approval's signed receipt is refused ({error.code}): {error.message}") from None
        if claims.get("callId") != call_id:
            raise Refused(f"the approval's signed receipt is refused: it is for call {claims.get('callId')}, not {call_id}")
        if claims.get("edited") is not False:
            raise Refused("the approval's signed receipt is refused: it approves edited arguments")
        if not store.consume(claims["id"], claims["expiresAt"]):
            raise Refused(f"the approval's signed receipt is refused (replayed): receipt {claims['id']} was already used")
        return claims


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw else None
    except (UnicodeDecodeError, ValueError):
        return None


def _retry_after(headers: dict[str, str]) -> float:
    for name, value in headers.items():
        if name.lower() == "retry-after":
            try:
                return max(1.0, float(value))
            except ValueError:
                break
    return 1.0


def _said(code: int, answer: Any) -> str:
    if isinstance(answer, dict) and answer.get("code"):
        return f"{code} {answer.get('code')}: {answer.get('message', '')}".strip()
    return str(code)
