// The console as the approver of the AI SDK's tool approval (`ai` 7): a tool that needs approval
// (`toolApproval: {tool: 'user-approval'}`, or the older `needsApproval`) ends the generation with a
// `tool-approval-request`; each is sent to the console and answered with a `tool-approval-response`
// (`approved`, and the reason: the model is told it on a denial), then the generation continues with
// those messages. The call's key is made of the SDK's approval id and tool call id, both kept in the
// messages: a process that restarts with the messages finds the same call on the console.
//
// Where the tool runs, `guard(tools)` asks again and checks the decision's signed receipt against the
// exact input about to run, using it up: input changed in the messages after the approval is
// refused (the tool throws, the model sees why), and so is a second run.
import type { ModelMessage, ToolApprovalResponse, ToolModelMessage, ToolSet } from "ai";
import { ApprovalConsole, idempotencyKey } from "./console.ts";
import type { CallRequest, ConsoleOptions, Decision } from "./console.ts";

export interface AiSdkApproverOptions extends ConsoleOptions {
  /** The conversation the generations belong to, shown on the queue and part of each call's key. */
  thread?: string;
}

/** A `tool-approval-request` part of a result's `content` (the fields the adapter reads). */
interface ApprovalRequestPart {
  type: "tool-approval-request";
  approvalId: string;
  toolCall: { toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean };
  reason?: string;
  isAutomatic?: boolean;
}

export class AiSdkApprover {
  readonly console: ApprovalConsole;
  readonly thread: string | undefined;

  constructor(options: AiSdkApproverOptions) {
    this.console = new ApprovalConsole(options);
    this.thread = options.thread;
  }

  #request(tool: string, input: unknown, approvalId: string, toolCallId: string, reason: string | undefined): CallRequest {
    return {
      source: "ai-sdk",
      tool,
      args: input,
      thread: this.thread,
      context: { toolCallId, approvalId, ...(reason ? { reason } : {}) },
      key: idempotencyKey("ai-sdk", this.thread ?? "", approvalId, toolCallId),
    };
  }

  /**
   * Asks the console about each manual `tool-approval-request` in `content` (a result's `content`,
   * or its steps' parts), all at once, and answers each: `approved` only when the console approved
   * these exact arguments with a receipt that verifies; else denied with the reason.
   */
  async respond(content: ReadonlyArray<{ type: string }>): Promise<ToolApprovalResponse[]> {
    const requests = content.filter((p): p is ApprovalRequestPart => p.type === "tool-approval-request" && !(p as ApprovalRequestPart).isAutomatic);
    return Promise.all(
      requests.map(async (part) => {
        const { toolCallId, toolName, input } = part.toolCall;
        const decision: Decision = await this.console.decide(this.#request(toolName, input, part.approvalId, toolCallId, part.reason));
        const response: ToolApprovalResponse = decision.approved
          ? { type: "tool-approval-response", approvalId: part.approvalId, approved: true }
          : { type: "tool-approval-response", approvalId: part.approvalId, approved: false, reason: `The tool call was not run: ${decision.reason}` };
        if (part.toolCall.providerExecuted) response.providerExecuted = true;
        return response;
      }),
    );
  }

  /** {@link respond}, as the tool message to append before the generation continues (undefined: nothing asked). */
  async answer(result: { content: ReadonlyArray<{ type: string }> }): Promise<ToolModelMessage | undefined> {
    const responses = await this.respond(result.content);
    return responses.length ? { role: "tool", content: responses } : undefined;
  }

  /**
   * `tools`, each of whose `execute` runs only when the console approved its exact input (the
   * approval request found in the messages by the tool call id) and the receipt, checked against that
   * input, was not used before. A refusal throws: the model gets the tool's error.
   */
  guard<T extends ToolSet>(tools: T): T {
    const guarded: Record<string, unknown> = {};
    for (const [name, tool] of Object.entries(tools)) {
      const execute = (tool as { execute?: (input: any, options: any) => unknown }).execute;
      if (!execute) {
        guarded[name] = tool;
        continue;
      }
      guarded[name] = {
        ...tool,
        execute: async (input: unknown, options: { toolCallId: string; messages: ModelMessage[] }) => {
          const asked = approvalRequestFor(options.messages, options.toolCallId);
          const decision: Decision = asked
            ? await this.console.confirm(this.#request(name, input, asked.approvalId, options.toolCallId, asked.reason))
            : { approved: false, outcome: "refused", reason: "no approval request for this tool call in the messages" };
          if (!decision.approved) throw new Error(`The tool call was not run: ${decision.reason}`);
          return execute(input, options);
        },
      };
    }
    return guarded as T;
  }
}

/** The `tool-approval-request` part for `toolCallId` among the assistant messages. */
function approvalRequestFor(messages: ModelMessage[], toolCallId: string): { approvalId: string; reason?: string } | undefined {
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const part of message.content as Array<{ type: string; toolCallId?: string; approvalId?: string; reason?: string }>) {
      if (part.type === "tool-approval-request" && part.toolCallId === toolCallId && part.approvalId) {
        return { approvalId: part.approvalId, reason: part.reason };
      }
    }
  }
  return undefined;
}
