"""Make the Approval Console the approver of an agent SDK's own approval step.

    from approval_console_adapters import Console, LangChainApprover, AdkApprover

Each adapter queues the SDK's paused tool call in the console (``POST /api/calls``), waits for the
operator, and lets the tool run only when the decision's signed receipt holds for exactly the tool
and arguments about to run. Everything else fails closed, with the reason told to the model.
"""

from .console import Console, Refused, Verdict, idempotency_key

__all__ = ["Console", "Refused", "Verdict", "idempotency_key", "LangChainApprover", "AdkApprover"]


def __getattr__(name: str):
    # Each framework is imported only when its adapter is used.
    if name == "LangChainApprover":
        from .langchain import LangChainApprover
        return LangChainApprover
    if name == "AdkApprover":
        from .adk import AdkApprover
        return AdkApprover
    raise AttributeError(name)

__version__ = "0.1.0"
