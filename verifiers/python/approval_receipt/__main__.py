"""``python -m approval_receipt verify …``: check a receipt read from stdin.

Prints one JSON line: ``{"ok":true,"claims":{…}}`` (exit 0) or
``{"ok":false,"code":"…","message":"…"}`` (exit 1). Anything that keeps it from giving a verdict —
bad usage, an unreadable key set, a store it cannot open or write — goes to stderr with exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from .exact import loads_exact
from .jwks import JwksError, load_jwks
from .stores import open_store
from .verify import ReceiptError, verify_receipt

USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own exit code is 2 as well; made explicit
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def _number(text: str) -> float:
    try:
        return int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
        return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m approval_receipt",
                     description="Verify Approval Console decision receipts.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    verify = commands.add_parser("verify", help="check the receipt read from stdin")
    verify.add_argument("--jwks", required=True, metavar="FILE", help="the console's key set (JSON)")
    verify.add_argument("--tool", required=True, metavar="NAME", help="the tool about to run")
    verify.add_argument("--args", required=True, metavar="JSON", help="the arguments about to run")
    verify.add_argument("--run-id", metavar="ID", help="the run the call must belong to")
    verify.add_argument("--tool-call-id", metavar="ID", help="the engine's id the call must have")
    verify.add_argument("--store", default="memory", metavar="memory|file:PATH|sqlite:PATH",
                        help="where used receipt ids are recorded (default: memory)")
    verify.add_argument("--now", type=_number, metavar="UNIX_SECS", help="the time to check against")
    return parser


def _print(result: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(result, separators=(",", ":"), ensure_ascii=True) + "\n")
    sys.stdout.flush()


def _fail(message: str) -> int:
    sys.stderr.write(f"approval_receipt: {message}\n")
    return USAGE_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    try:
        args = loads_exact(options.args)  # numbers judged as written (exact fingerprints)
    except ValueError as exc:
        return _fail(f"--args is not JSON: {exc}")
    try:
        jwks = load_jwks(options.jwks)
    except JwksError as exc:
        return _fail(str(exc))
    try:
        store = open_store(options.store)
    except (ValueError, OSError) as exc:
        return _fail(f"--store: {exc}")
    except Exception as exc:  # sqlite3.Error and the like
        return _fail(f"--store: cannot open {options.store}: {exc}")
    receipt = sys.stdin.buffer.read()
    try:
        claims = verify_receipt(receipt, jwks=jwks, tool=options.tool, args=args, store=store,
                                run_id=options.run_id, tool_call_id=options.tool_call_id,
                                now=options.now)
    except ReceiptError as exc:
        _print({"ok": False, "code": exc.code, "message": exc.message})
        return 1
    except Exception as exc:  # the store failed: no verdict
        return _fail(f"cannot record the receipt as used: {exc}")
    _print({"ok": True, "claims": claims})
    return 0


if __name__ == "__main__":
    sys.exit(main())
