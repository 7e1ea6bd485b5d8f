"""Test support: a real ``approval-console serve`` on a temporary data directory and a free port,
an agent credential made through its API, and an operator (the console's session token, an admin)
who decides over the API. Every wait polls with a deadline."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)  # adapters/python
REPO_ROOT = os.path.dirname(os.path.dirname(PACKAGE_ROOT))
for path in (PACKAGE_ROOT, os.path.join(REPO_ROOT, "verifiers", "python")):
    if path not in sys.path:
        sys.path.insert(0, path)

CONSOLE_BIN = os.environ.get("APPROVAL_CONSOLE_BIN") or os.path.join(
    os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO_ROOT, "target"), "debug", "approval-console")

_URL_LINE = re.compile(r"http://127\.0\.0\.1:(\d+)/#token=")


def wait_for(what: str, check, deadline: float = 30.0, every: float = 0.02):
    """Polls ``check()`` until it returns something truthy (returned), or fails after ``deadline`` s."""
    end = time.monotonic() + deadline
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)


class ConsoleServer:
    """``approval-console serve`` on its own data directory; ``kill()`` is a crash (SIGKILL) and
    ``start()`` again serves the same directory on the same port."""

    def __init__(self) -> None:
        if not os.path.exists(CONSOLE_BIN):
            raise RuntimeError(f"no console binary at {CONSOLE_BIN}: build it (cargo build --bin approval-console) "
                               "or set APPROVAL_CONSOLE_BIN")
        self.data_dir = tempfile.mkdtemp(prefix="approval-console-adapters-")
        self.token = uuid.uuid4().hex + uuid.uuid4().hex
        self.port = 0
        self.process: subprocess.Popen | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "warn")}
        for name in [n for n in env if n.startswith("APPROVAL_CONSOLE_") and n != "APPROVAL_CONSOLE_BIN"]:
            del env[name]
        self.process = subprocess.Popen(
            [CONSOLE_BIN, "serve", "--port", str(self.port), "--data-dir", self.data_dir, "--token", self.token],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        found: dict[str, int] = {}
        ready = threading.Event()

        def read(stream) -> None:
            for line in stream:
                match = _URL_LINE.search(line)
                if match and not ready.is_set():
                    found["port"] = int(match.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=read, args=(self.process.stdout,), daemon=True).start()
        if not ready.wait(30) or "port" not in found:
            self.kill()
            raise RuntimeError("the console printed no URL within 30 s")
        self.port = found["port"]

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        shutil.rmtree(self.data_dir, ignore_errors=True)

    def api(self, method: str, path: str, body=None, token: str | None = None):
        """``(status, parsed body)`` of a request with the session token (an admin) or ``token``."""
        request = urllib.request.Request(self.url + path, method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": "Bearer " + (token or self.token),
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def agent_token(self, name: str) -> str:
        status, made = self.api("POST", "/api/tokens", {"name": name, "role": "agent"})
        assert status == 201, made
        return made["token"]

    def pending(self, tool: str | None = None) -> list[dict]:
        status, listed = self.api("GET", "/api/queue?tab=pending&limit=500")
        assert status == 200, listed
        return [item for item in listed["items"] if tool is None or item.get("toolName") == tool]

    def all_calls(self, tool: str | None = None) -> list[dict]:
        status, listed = self.api("GET", "/api/queue?tab=all&limit=500")
        assert status == 200, listed
        return [item for item in listed["items"] if tool is None or item.get("toolName") == tool]

    def row(self, tool: str, deadline: float = 30.0) -> dict:
        """The one pending call of ``tool``, once it is queued."""
        return wait_for(f"a pending {tool} call", lambda: next(iter(self.pending(tool)), None), deadline)

    def approve(self, item: dict) -> None:
        status, body = self.api("POST", f"/api/queue/{item['id']}/approve", {"fingerprint": item["fingerprint"]})
        assert status == 200, body

    def decline(self, item: dict, reason: str) -> None:
        status, body = self.api("POST", f"/api/queue/{item['id']}/decline",
                                {"fingerprint": item["fingerprint"], "reason": reason})
        assert status == 200, body


class Operator:
    """An operator at the console, on a thread: decides the next pending call of a tool as it appears."""

    def __init__(self, server: ConsoleServer) -> None:
        self.server = server
        self.threads: list[threading.Thread] = []
        self.errors: list[BaseException] = []
        self.seen: list[tuple[dict, float]] = []  # (the row, when it was first seen: time.monotonic())

    def will(self, decide, tool: str) -> None:
        def run() -> None:
            try:
                item = self.server.row(tool)
                self.seen.append((item, time.monotonic()))
                decide(item)
            except BaseException as error:  # reported by join()
                self.errors.append(error)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self.threads.append(thread)

    def approves(self, tool: str) -> None:
        self.will(self.server.approve, tool)

    def declines(self, tool: str, reason: str) -> None:
        self.will(lambda item: self.server.decline(item, reason), tool)

    def join(self) -> None:
        for thread in self.threads:
            thread.join(60)
        if self.errors:
            raise self.errors[0]
