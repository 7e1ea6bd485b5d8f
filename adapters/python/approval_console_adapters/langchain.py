"""LangChain 1.x: the Approval Console answers ``HumanInTheLoopMiddleware``'s interrupts.

    approver = LangChainApprover(Console(), agent="billing-bot", gated=["delete_record"])
    agent = create_agent(model, tools, checkpointer=InMemorySaver(), middleware=[
        HumanInTheLoopMiddleware({"delete_record": {"allowed_decisions": ["approve", "reject"]}}),
        approver.guard(),          # last: the check right before the tool runs
    ])
    result = approver.invoke(agent, {"messages": [...]}, {"configurable": {"thread_id": "t-1"}})

``invoke`` runs the agent and answers each interrupt from the console — every action request
becomes a queued call (source ``langchain``, keyed by the thread id and the tool call's id), and the
decisions go back in order with ``Command(resume=...)``: ``approve`` when the operator approved and
the receipt verified, else ``reject`` carrying the reason the model is told. ``edit`` is never sent.
The guard middleware, innermost, runs a gated tool only when a console approval's receipt holds for
exactly the tool and arguments about to run (and uses that receipt up): a call rejected, edited,
changed by another middleware after the approval, or run through a path that skipped the review
(langchain #40492: a middleware's ``jump_to="tools"``) is answered with a refusal instead.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable

from langchain.agents.middleware import AgentMiddleware, HumanInTheLoopMiddleware
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.types import Command

from .console import Console, Refused, Verdict, idempotency_key

__all__ = ["LangChainApprover", "SOURCE"]

SOURCE = "langchain"


def _thread_of(config: Any) -> str:
    thread = ((config or {}).get("configurable") or {}).get("thread_id")
    if thread is None or str(thread) == "":
        raise ValueError("the run's config has no configurable.thread_id (HumanInTheLoopMiddleware needs a "
                         "checkpointer, and the console's calls are keyed by the thread)")
    return str(thread)


class LangChainApprover:
    """The console as the approver of a LangChain agent's ``HumanInTheLoopMiddleware``.

    ``agent`` is the name shown to the operator (and the one the credential may claim). ``gated``
    names the tools the guard checks: a ``HumanInTheLoopMiddleware`` (its ``interrupt_on``) or tool
    names. ``timeout`` overrides the console's for each call.
    """

    def __init__(self, console: Console, *, agent: str, gated: HumanInTheLoopMiddleware | Iterable[str],
                 timeout: float | None = None) -> None:
        self.console = console
        self.agent = agent
        self.gated = frozenset(gated.interrupt_on) if isinstance(gated, HumanInTheLoopMiddleware) else frozenset(gated)
        self.timeout = timeout
        self._held: dict[tuple[str, str], Verdict] = {}
        self._lock = threading.Lock()

    # -- the interrupt ----------------------------------------------------------------------

    def _ask(self, thread: str, tool_call_id: str, tool: str, args: Any) -> Verdict:
        verdict = self.console.ask(tool=tool, args=args, key=idempotency_key(SOURCE, thread, tool_call_id),
                                   agent=self.agent, source=SOURCE, thread=thread, timeout=self.timeout)
        with self._lock:
            self._held[(thread, tool_call_id)] = verdict
        return verdict

    @staticmethod
    def _decision(verdict: Verdict) -> dict[str, Any]:
        if verdict.approved:
            return {"type": "approve"}
        return {"type": "reject", "message": verdict.reason}

    def answer(self, graph: Any, interrupts: Iterable[Any], config: Any) -> dict[str, Any]:
        """The resume map ``{interrupt id: answer}`` for the agent's open interrupts, asked of the
        console (all at once; each waits for its operator). Batched ``HITLRequest`` interrupts get
        ``{"decisions": [...]}`` in the order of their action requests; ``per_call``
        ``ToolApprovalRequest`` ones get one decision each."""
        thread = _thread_of(config)
        jobs: list[tuple[str, int | None, str, str, Any]] = []  # (interrupt id, index, tool call id, tool, args)
        batched: dict[str, int] = {}
        for interrupt in interrupts:
            value = interrupt.value
            if isinstance(value, dict) and value.get("type") == "tool_approval":
                jobs.append((interrupt.id, None, str(value["tool_call_id"]), value["name"], value["args"]))
            elif isinstance(value, dict) and isinstance(value.get("action_requests"), list):
                ids = self._tool_call_ids(graph, config, value["action_requests"])
                batched[interrupt.id] = len(ids)
                for index, (request, call_id) in enumerate(zip(value["action_requests"], ids)):
                    jobs.append((interrupt.id, index, call_id, request["name"], request["args"]))
            else:
                raise ValueError(f"interrupt {interrupt.id} is not HumanInTheLoopMiddleware's: {value!r}")
        with ThreadPoolExecutor(max_workers=max(1, min(8, len(jobs)))) as pool:
            verdicts = list(pool.map(lambda job: self._ask(thread, job[2], job[3], job[4]), jobs))
        resume: dict[str, Any] = {iid: {"decisions": [None] * n} for iid, n in batched.items()}
        for (iid, index, _, _, _), verdict in zip(jobs, verdicts):
            if index is None:
                resume[iid] = self._decision(verdict)
            else:
                resume[iid]["decisions"][index] = self._decision(verdict)
        return resume

    @staticmethod
    def _tool_call_ids(graph: Any, config: Any, requests: list[dict[str, Any]]) -> list[str]:
        """The ids of the tool calls a batched interrupt's action requests are about: the last AI
        message's tool calls, matched in order by tool and arguments (the request carries no id)."""
        messages = graph.get_state(config).values.get("messages", [])
        last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        calls = list(last.tool_calls) if last is not None else []
        ids: list[str] = []
        at = 0
        for request in requests:
            while at < len(calls) and not (calls[at]["name"] == request["name"] and calls[at]["args"] == request["args"]):
                at += 1
            if at == len(calls) or not calls[at].get("id"):
                raise ValueError(f"no tool call of the last AI message matches the action request {request['name']!r}")
            ids.append(str(calls[at]["id"]))
            at += 1
        return ids

    def invoke(self, graph: Any, input: Any, config: Any, **kwargs: Any) -> Any:
        """``graph.invoke(input, config, version="v2")``, answering every interrupt it stops at
        from the console until it finishes; returns the last ``GraphOutput``."""
        result = graph.invoke(input, config, version="v2", **kwargs)
        while result.interrupts:
            result = graph.invoke(Command(resume=self.answer(graph, result.interrupts, config)), config,
                                  version="v2", **kwargs)
        return result

    async def ainvoke(self, graph: Any, input: Any, config: Any, **kwargs: Any) -> Any:
        """``invoke`` for ``ainvoke``; the console is asked on a worker thread."""
        result = await graph.ainvoke(input, config, version="v2", **kwargs)
        while result.interrupts:
            resume = await asyncio.to_thread(self.answer, graph, result.interrupts, config)
            result = await graph.ainvoke(Command(resume=resume), config, version="v2", **kwargs)
        return result

    # -- the guard --------------------------------------------------------------------------

    def _verdict_for(self, thread: str, tool_call: dict[str, Any]) -> Verdict:
        with self._lock:
            held = self._held.pop((thread, str(tool_call["id"])), None)
        if held is not None:
            return held
        # Nothing asked in this process (it restarted after the review): the same key finds the
        # call queued then, if these are its arguments (another request under it is refused).
        return self.console.ask(tool=tool_call["name"], args=tool_call["args"],
                                key=idempotency_key(SOURCE, thread, str(tool_call["id"])), agent=self.agent,
                                source=SOURCE, thread=thread, timeout=self.timeout)

    def _refusal(self, request: Any) -> ToolMessage | None:
        tool_call = request.tool_call
        if tool_call["name"] not in self.gated:
            return None
        try:
            thread = _thread_of(getattr(request.runtime, "config", None))
            if not tool_call.get("id"):
                raise Refused("the tool call has no id, so no approval can be matched to it")
            verdict = self._verdict_for(thread, tool_call)
            self.console.check(verdict, tool=tool_call["name"], args=tool_call["args"])
            return None
        except (Refused, ValueError) as refused:
            reason = refused.reason if isinstance(refused, Refused) else str(refused)
            return ToolMessage(content=f"The tool call `{tool_call['name']}` was not run: {reason}",
                               name=tool_call["name"], tool_call_id=tool_call.get("id") or "", status="error")

    def guard(self) -> AgentMiddleware:
        """The middleware that checks each gated call's approval right before its tool runs. List
        it last (innermost), after ``HumanInTheLoopMiddleware`` and anything that may change a call."""
        approver = self

        class ApprovalConsoleGuard(AgentMiddleware):
            def wrap_tool_call(self, request, handler):  # type: ignore[override]
                refusal = approver._refusal(request)
                return refusal if refusal is not None else handler(request)

            async def awrap_tool_call(self, request, handler):  # type: ignore[override]
                refusal = await asyncio.to_thread(approver._refusal, request)
                return refusal if refusal is not None else await handler(request)

        return ApprovalConsoleGuard()
