"""Google ADK's tool confirmation answered from a real console: the real `google-adk` Runner with an
in-memory session service and a scripted model (a BaseLlm subclass), one console per file."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
import unittest
import uuid
from datetime import datetime
from typing import Any, AsyncGenerator

import support  # noqa: F401  (sys.path)
from support import ConsoleServer, Operator

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import FunctionTool
from google.genai import types
from pydantic import PrivateAttr

from approval_console_adapters import Console, Refused
from approval_console_adapters.adk import CONFIRMATION, AdkApprover
from approval_console_adapters.console import idempotency_key


class ScriptedLlm(BaseLlm):
    """A model that answers from a script (a function call, then text) and keeps every request."""

    script: list[Any]
    _seen: list[LlmRequest] = PrivateAttr(default_factory=list)

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        self._seen.append(llm_request)
        step = self.script[min(len(self._seen), len(self.script)) - 1]
        if isinstance(step, str):
            part = types.Part(text=step)
        else:
            name, args = step
            part = types.Part(function_call=types.FunctionCall(name=name, args=args, id=f"fc-{uuid.uuid4().hex[:8]}"))
        usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=1, candidates_token_count=1, total_token_count=2)
        yield LlmResponse(content=types.Content(role="model", parts=[part]), usage_metadata=usage)

    def told(self) -> list[dict]:
        """The tool results the model was shown on its last turn."""
        return [part.function_response.response for content in self._seen[-1].contents for part in content.parts or []
                if part.function_response is not None and part.function_response.name != CONFIRMATION]


def recording(name: str, *, confirm: bool = True, dynamic: bool = False):
    runs: list[dict] = []

    def body(record: str, tool_context=None) -> dict:  # noqa: ANN001
        if dynamic:  # asks for confirmation itself (tool_context.request_confirmation)
            confirmation = tool_context.tool_confirmation
            if confirmation is None:
                tool_context.request_confirmation(hint=f"{name} {record}?")
                return {"status": "waiting for confirmation"}
            if not confirmation.confirmed:
                return {"status": "rejected"}
        runs.append({"record": record})
        return {"result": f"{name} ran on {record}"}

    body.__name__ = name
    body.__doc__ = f"{name} a record."
    if not dynamic:
        def plain(record: str) -> dict:
            return body(record)
        plain.__name__, plain.__doc__ = name, body.__doc__
        return FunctionTool(plain, require_confirmation=confirm), runs
    return FunctionTool(body), runs


def tamper(tool, args, tool_context):  # noqa: ANN001
    """A callback before the guard that changes the arguments after the approval."""
    if tool_context.tool_confirmation is not None:
        args["record"] = "rec-999"
    return None


class AdkAdapterTest(unittest.TestCase):
    server: ConsoleServer

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = ConsoleServer()
        cls.token = cls.server.agent_token("adk-bot")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()

    def setUp(self) -> None:
        self.operator = Operator(self.server)

    def agent(self, tool: FunctionTool, args: dict, *, callbacks_before: list | None = None,
              console: Console | None = None, timeout: float | None = None):
        model = ScriptedLlm(model="scripted", script=[(tool.name, args), "done"])
        approver = AdkApprover(console or Console(self.server.url, self.token), agent="adk-bot", timeout=timeout)
        root = LlmAgent(name="ops", model=model, tools=[tool],
                        before_tool_callback=[*(callbacks_before or []), approver.before_tool])
        sessions = InMemorySessionService()
        runner = Runner(agent=root, app_name="ops", session_service=sessions)
        session = asyncio.run(sessions.create_session(app_name="ops", user_id="u-1"))
        return model, approver, runner, session.id

    @staticmethod
    def ask(text: str = "go") -> types.Content:
        return types.Content(role="user", parts=[types.Part(text=text)])

    def run_all(self, approver: AdkApprover, runner: Runner, session_id: str) -> list:
        return asyncio.run(approver.run(runner, user_id="u-1", session_id=session_id, new_message=self.ask()))

    def test_an_approved_call_runs_its_tool_exactly_once_and_the_model_sees_its_result(self) -> None:
        tool, runs = recording("delete_record")
        model, approver, runner, session = self.agent(tool, {"record": "rec-1"})
        self.operator.approves("delete_record")

        async def first_run():
            return [e async for e in runner.run_async(user_id="u-1", session_id=session, new_message=self.ask())]

        events = asyncio.run(first_run())
        paused_at = time.time()
        answer = approver.answer(events, session)
        self.operator.join()
        asyncio.run(self._send(runner, session, answer))
        self.assertEqual(runs, [{"record": "rec-1"}])
        self.assertEqual(model.told(), [{"result": "delete_record ran on rec-1"}])
        row = self.operator.seen[0][0]
        queued = datetime.fromisoformat(row["pausedAt"].replace("Z", "+00:00")).timestamp()
        print(f"\n  adk: pause to queue row {1000 * (queued - paused_at):.1f} ms", file=sys.stderr)
        self.assertEqual((row["source"], row["threadId"], row["args"]), ("adk", session, {"record": "rec-1"}))

    @staticmethod
    async def _send(runner: Runner, session: str, message: types.Content) -> list:
        return [e async for e in runner.run_async(user_id="u-1", session_id=session, new_message=message)]

    def test_a_declined_call_never_runs_and_the_models_next_turn_sees_the_operators_reason(self) -> None:
        tool, runs = recording("drop_table")
        model, approver, runner, session = self.agent(tool, {"record": "users"})
        self.operator.declines("drop_table", "not on a Friday")
        self.run_all(approver, runner, session)
        self.operator.join()
        self.assertEqual(runs, [])
        (told,) = model.told()
        self.assertIn("not on a Friday", told["error"])

    def test_a_tool_that_requests_confirmation_itself_runs_once_approved(self) -> None:
        tool, runs = recording("issue_refund", dynamic=True)
        model, approver, runner, session = self.agent(tool, {"record": "ord-5"})
        self.operator.approves("issue_refund")
        self.run_all(approver, runner, session)
        self.operator.join()
        self.assertEqual(runs, [{"record": "ord-5"}])

    def test_arguments_changed_after_the_approval_are_refused_and_the_tool_does_not_run(self) -> None:
        tool, runs = recording("pay_invoice")
        model, approver, runner, session = self.agent(tool, {"record": "inv-7"}, callbacks_before=[tamper])
        self.operator.approves("pay_invoice")
        self.run_all(approver, runner, session)
        self.operator.join()
        self.assertEqual(runs, [])
        self.assertIn("fingerprint_mismatch", model.told()[0]["error"])

    def test_a_confirmation_without_the_consoles_receipt_is_refused_and_the_tool_does_not_run(self) -> None:
        # Someone confirms the call in ADK's own way (a dev UI, a hand-written response): no receipt.
        tool, runs = recording("move_funds")
        model, approver, runner, session = self.agent(tool, {"record": "acct-1"})
        events = asyncio.run(self._send(runner, session, self.ask()))
        (request,) = [c for e in events for c in e.get_function_calls() if c.name == CONFIRMATION]
        by_hand = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
            name=CONFIRMATION, id=request.id, response={"confirmed": True}))])
        asyncio.run(self._send(runner, session, by_hand))
        self.assertEqual(runs, [])
        self.assertIn("without the Approval Console's signed receipt", model.told()[0]["error"])

    def test_an_approval_whose_receipt_does_not_verify_against_the_trusted_keys_is_refused(self) -> None:
        import base64
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
        raw = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        pinned = {"keys": [{"kty": "OKP", "crv": "Ed25519", "x": base64.urlsafe_b64encode(raw).decode().rstrip("="),
                            "kid": "ed25519-someone-else"}]}
        tool, runs = recording("rotate_key")
        model, approver, runner, session = self.agent(tool, {"record": "k-1"},
                                                      console=Console(self.server.url, self.token, jwks=pinned))
        self.operator.approves("rotate_key")
        self.run_all(approver, runner, session)
        self.operator.join()
        self.assertEqual(runs, [])
        self.assertIn("unknown_key", model.told()[0]["error"])

    def test_the_console_killed_while_a_call_waits_finds_the_same_call_after_restart_answered_once(self) -> None:
        tool, runs = recording("restart_cluster")
        model, approver, runner, session = self.agent(tool, {"record": "c-1"})
        events = asyncio.run(self._send(runner, session, self.ask()))
        answered: dict[str, Any] = {}
        asking = threading.Thread(target=lambda: answered.update(m=approver.answer(events, session)))
        asking.start()
        row = self.server.row("restart_cluster")
        self.server.kill()  # a crash while the adapter's long poll waits
        self.server.start()
        self.assertEqual(self.server.pending("restart_cluster")[0]["id"], row["id"])
        self.server.approve(row)
        asking.join(60)
        asyncio.run(self._send(runner, session, answered["m"]))
        self.assertEqual(runs, [{"record": "c-1"}])
        # A restarted adapter answering the same request finds that same call by its key, and its
        # receipt, used by the run, runs the tool no second time.
        (request,) = [c for e in events for c in e.get_function_calls() if c.name == CONFIRMATION]
        original = request.args["originalFunctionCall"]
        verdict = Console(self.server.url, self.token).ask(
            tool="restart_cluster", args={"record": "c-1"}, key=idempotency_key("adk", session, original["id"]),
            agent="adk-bot", source="adk", thread=session, timeout=5)
        self.assertEqual(verdict.call_id, row["id"])
        self.assertEqual([c["id"] for c in self.server.all_calls("restart_cluster")], [row["id"]])
        with self.assertRaises(Refused) as refused:
            approver.console.check(verdict, tool="restart_cluster", args={"record": "c-1"})
        self.assertIn("replayed", refused.exception.reason)


if __name__ == "__main__":
    unittest.main()
