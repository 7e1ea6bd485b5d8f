"""The shared client against a real console: the same key finds the same call, a deadline withdraws
the call, and a receipt counts only for its own call."""

from __future__ import annotations

import unittest
import uuid

import support  # noqa: F401  (sys.path)
from support import ConsoleServer, Operator

from approval_console_adapters import Console, Refused
from approval_console_adapters.console import idempotency_key


class ConsoleClientTest(unittest.TestCase):
    server: ConsoleServer

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = ConsoleServer()
        cls.token = cls.server.agent_token("client-bot")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()

    def ask(self, console: Console, tool: str, args: dict, call: str, **options):
        return console.ask(tool=tool, args=args, key=idempotency_key("langchain", "t-client", call),
                           agent="client-bot", source="langchain", thread="t-client", **options)

    def test_a_call_with_no_decision_by_the_deadline_is_withdrawn_from_the_queue_and_refused(self) -> None:
        verdict = self.ask(Console(self.server.url, self.token), "archive_logs", {"day": "mon"}, "c-deadline", timeout=1)
        self.assertFalse(verdict.approved)
        self.assertIn("withdrawn", verdict.reason)
        self.assertEqual(self.server.pending("archive_logs"), [])

    def test_the_same_key_with_other_arguments_is_refused_not_queued_again(self) -> None:
        console = Console(self.server.url, self.token)
        operator = Operator(self.server)
        operator.approves("tag_release")
        first = self.ask(console, "tag_release", {"tag": "v1"}, "c-key")
        operator.join()
        self.assertTrue(first.approved, first.reason)
        again = self.ask(console, "tag_release", {"tag": "v2"}, "c-key", timeout=5)
        self.assertFalse(again.approved)
        self.assertIn("idempotency_key_reused", again.reason)
        self.assertEqual(len(self.server.all_calls("tag_release")), 1)

    def test_a_receipt_counts_only_for_its_own_call_not_another_with_the_same_tool_and_arguments(self) -> None:
        console = Console(self.server.url, self.token)
        operator = Operator(self.server)
        verdicts = []
        for call in ("c-one", "c-two"):
            operator.approves("scale_down")
            verdicts.append(self.ask(console, "scale_down", {"replicas": 1}, f"{call}-{uuid.uuid4().hex[:6]}"))
        operator.join()
        one, two = verdicts
        self.assertTrue(one.approved and two.approved)
        one.receipt = two.receipt  # call one's approval carrying call two's receipt
        with self.assertRaises(Refused) as refused:
            console.check(one, tool="scale_down", args={"replicas": 1})
        self.assertIn("not " + one.call_id, refused.exception.reason)
        console.check(two, tool="scale_down", args={"replicas": 1})


if __name__ == "__main__":
    unittest.main()
