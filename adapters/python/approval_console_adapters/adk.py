"""Google ADK: the Approval Console answers a tool's confirmation request.

    approver = AdkApprover(Console(), agent="billing-bot")
    root = LlmAgent(name="billing", model=..., before_tool_callback=approver.before_tool,  # last
                    tools=[FunctionTool(delete_record, require_confirmation=True)])
    events = await approver.run(runner, user_id="u-1", session_id=session.id, new_message=question)

A tool with ``require_confirmation`` (or one that calls ``tool_context.request_confirmation``)
makes the run stop with an ``adk_request_confirmation`` function call. ``run`` queues each such
call's original tool call in the console (source ``adk``, keyed by the session id and the tool
call's id), waits for the operator and answers with the confirmation function response:
``confirmed`` only when the operator approved these exact arguments and the receipt verified; the
console's call id and receipt (or the reason) travel in its ``payload``. ``before_tool``, the last
before-tool callback, runs a confirmed tool only when that receipt holds for exactly the tool and
arguments about to run, and uses it up; a declined call is answered with the operator's reason, and
a confirmation that did not come from the console (no receipt) is refused.
"""

from __future__ import annotations

import asyncio
from typing import Any

from google.genai import types

from .console import Console, Refused, Verdict, idempotency_key

__all__ = ["AdkApprover", "SOURCE", "CONFIRMATION"]

SOURCE = "adk"
#: The function call ADK stops a run with when a tool asks for confirmation.
CONFIRMATION = "adk_request_confirmation"
_PAYLOAD = "approvalConsole"


class AdkApprover:
    """The console as the approver of an ADK agent's tool confirmations. ``agent`` is the name
    shown to the operator; ``timeout`` overrides the console's for each call."""

    def __init__(self, console: Console, *, agent: str, timeout: float | None = None) -> None:
        self.console = console
        self.agent = agent
        self.timeout = timeout

    def _confirmation(self, session_id: str, call: types.FunctionCall) -> types.Part:
        original = (call.args or {}).get("originalFunctionCall") or {}
        tool, args, call_id = original.get("name"), original.get("args") or {}, original.get("id")
        if not tool or not call_id:
            verdict = Verdict(False, "the confirmation request names no tool call")
        else:
            verdict = self.console.ask(tool=tool, args=args, key=idempotency_key(SOURCE, session_id, call_id),
                                       agent=self.agent, source=SOURCE, thread=session_id, timeout=self.timeout)
        payload = {_PAYLOAD: {"callId": verdict.call_id, "receipt": verdict.receipt if verdict.approved else None,
                              "reason": verdict.reason}}
        return types.Part(function_response=types.FunctionResponse(
            name=CONFIRMATION, id=call.id, response={"confirmed": verdict.approved, "payload": payload}))

    def answer(self, events: list[Any], session_id: str) -> types.Content | None:
        """The user message answering every confirmation request in ``events`` (one run's), asked of
        the console; ``None`` when the run asked for none."""
        asked = [call for event in events for call in (event.get_function_calls() or [])
                 if call.name == CONFIRMATION and call.id]
        if not asked:
            return None
        return types.Content(role="user", parts=[self._confirmation(session_id, call) for call in asked])

    async def run(self, runner: Any, *, user_id: str, session_id: str, new_message: types.Content,
                  **kwargs: Any) -> list[Any]:
        """``runner.run_async``, answering each confirmation request from the console (asked on a
        worker thread) until the run ends; every event, in order."""
        seen: list[Any] = []
        message: types.Content | None = new_message
        while message is not None:
            events = [event async for event in runner.run_async(user_id=user_id, session_id=session_id,
                                                                new_message=message, **kwargs)]
            seen.extend(events)
            message = await asyncio.to_thread(self.answer, events, session_id)
        return seen

    def before_tool(self, tool: Any, args: dict[str, Any], tool_context: Any) -> dict[str, Any] | None:
        """The guard: list it last among the agent's before-tool callbacks. A call with no
        confirmation yet passes (ADK asks for one, or the tool needs none); a confirmed one runs
        only on a console receipt for exactly ``tool`` and ``args``; a declined one is answered
        with the operator's reason."""
        confirmation = getattr(tool_context, "tool_confirmation", None)
        if confirmation is None:
            return None
        ours = confirmation.payload.get(_PAYLOAD) if isinstance(confirmation.payload, dict) else None
        if not isinstance(ours, dict):
            return {"error": f"The tool call `{tool.name}` was not run: it was confirmed without the Approval "
                             "Console's signed receipt"}
        if not confirmation.confirmed:
            return {"error": f"The tool call `{tool.name}` was not run: {ours.get('reason') or 'declined'}"}
        verdict = Verdict(True, "approved in the Approval Console", ours.get("callId"), ours.get("receipt"))
        try:
            self.console.check(verdict, tool=tool.name, args=args)
        except Refused as refused:
            return {"error": f"The tool call `{tool.name}` was not run: {refused.reason}"}
        return None
