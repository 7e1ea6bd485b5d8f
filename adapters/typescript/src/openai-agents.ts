// The console as the approver of the OpenAI Agents SDK (`@openai/agents`): a tool with
// `needsApproval` interrupts the run; each interruption is sent to the console, the decision applied
// to the run's own state (`state.approve(item)`, or `state.reject(item, {message})` so the model is
// told why) and the run resumed from that state. Nothing but the SDK's RunState is needed to resume:
// the call's key is made of the run's trace id (kept in the RunState) and the model's tool call id,
// so a process that restarts with the state finds the same call on the console.
//
// Where the tool runs, a tool input guardrail (`guard(tool)`) asks again and checks the decision's
// signed receipt against the exact arguments about to run, using it up: arguments changed after the
// approval (a RunState edited before it was resumed) are refused, and so is a second run.
import { getCurrentTrace, run as runAgent } from "@openai/agents";
import type { Agent, FunctionTool, RunResult, RunState, RunToolApprovalItem, Runner } from "@openai/agents";
import { ApprovalConsole, idempotencyKey } from "./console.ts";
import type { CallRequest, ConsoleOptions, Decision } from "./console.ts";

export interface OpenAIAgentsApproverOptions extends ConsoleOptions {
  /**
   * The conversation the runs belong to, shown on the queue. With tracing disabled (the run's trace id
   * is then `no-op`) it is also what tells two runs' calls apart, with the model's tool call ids.
   */
  thread?: string;
}

/** What the adapter sends for one function call: the same for the interruption and for the guardrail. */
function request(thread: string | undefined, runId: string | undefined, agentName: string, callId: string, tool: string, argsText: string): CallRequest | string {
  const run = runId && runId !== "no-op" ? runId : undefined;
  if (!run && !thread) return "the run has no stable id (tracing is disabled): give the approver a `thread`";
  let args: unknown;
  try {
    args = JSON.parse(argsText || "{}");
  } catch {
    return "the model's arguments are not JSON";
  }
  return {
    source: "openai-agents",
    tool,
    args,
    thread: thread ?? run,
    context: { toolCallId: callId, ...(run ? { runId: run } : {}), agent: agentName },
    key: idempotencyKey("openai-agents", run ?? "", thread ?? "", callId),
  };
}

export class OpenAIAgentsApprover {
  readonly console: ApprovalConsole;
  readonly thread: string | undefined;

  constructor(options: OpenAIAgentsApproverOptions) {
    this.console = new ApprovalConsole(options);
    this.thread = options.thread;
  }

  /**
   * Answers every interruption of `state` from the console: each approval whose receipt holds is
   * applied with `state.approve(item)`; anything else with `state.reject(item, {message})`, the
   * reason for the model. Resolves once all are decided; then run again from `state`.
   */
  async decide(state: RunState<any, any>): Promise<Decision[]> {
    const runId: string | undefined = (state.toJSON() as { trace?: { id?: string } | null }).trace?.id;
    return Promise.all(
      state.getInterruptions().map(async (item: RunToolApprovalItem) => {
        const raw = item.rawItem;
        let decision: Decision;
        if (raw.type !== "function_call") {
          decision = { approved: false, outcome: "refused", reason: `only function tools are asked about, not ${raw.type}` };
        } else {
          const call = request(this.thread, runId, item.agent.name, raw.callId, raw.name, raw.arguments);
          decision = typeof call === "string" ? { approved: false, outcome: "refused", reason: call } : await this.console.decide(call);
        }
        if (decision.approved) state.approve(item);
        else state.reject(item, { message: `The tool call was not run: ${decision.reason}` });
        return decision;
      }),
    );
  }

  /**
   * `run(agent, input)`, then, while it stops on interruptions, {@link decide} and run again from the
   * state: the finished run. `input` may be a RunState (one restored with `RunState.fromString`).
   */
  async run(agent: Agent<any, any>, input: Parameters<typeof runAgent>[1], options: { runner?: Runner; context?: unknown } = {}): Promise<RunResult<any, any>> {
    const go = (what: Parameters<typeof runAgent>[1]) =>
      (options.runner ? options.runner.run(agent, what as any, { context: options.context }) : runAgent(agent, what as any, { context: options.context })) as Promise<RunResult<any, any>>;
    let result = await go(input);
    while (result.interruptions?.length) {
      await this.decide(result.state);
      result = await go(result.state);
    }
    return result;
  }

  /**
   * `tool`, asking the console: `needsApproval` always, and a tool input guardrail that runs it only
   * when the console approved these exact arguments and the receipt, checked against them, was not
   * used before. A refusal is the tool's output for the model.
   */
  guard<T extends FunctionTool<any, any, any>>(tool: T): T {
    const guardrail = {
      type: "tool_input" as const,
      name: "approval-console",
      run: async ({ agent, toolCall }: { agent: Agent<any, any>; toolCall: { callId: string; name: string; arguments: string } }) => {
        const call = request(this.thread, getCurrentTrace()?.traceId, agent.name, toolCall.callId, toolCall.name, toolCall.arguments);
        const decision: Decision = typeof call === "string" ? { approved: false, outcome: "refused", reason: call } : await this.console.confirm(call);
        if (decision.approved) return { behavior: { type: "allow" as const }, outputInfo: { callId: decision.callId, receipt: decision.receiptId } };
        return { behavior: { type: "rejectContent" as const, message: `The tool call was not run: ${decision.reason}` }, outputInfo: decision };
      },
    };
    return { ...tool, needsApproval: async () => true, inputGuardrails: [...(tool.inputGuardrails ?? []), guardrail] };
  }
}
