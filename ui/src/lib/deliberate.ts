/**
 * Which calls are approved deliberately (issue 45): rated high or critical by the console, a tool in
 * the high-risk list, or hidden or look-alike characters anywhere in the arguments (what the operator
 * reads may not be what runs). Their Approve opens a step that repeats why and asks for a hold or the
 * tool's name typed (`ApproveConfirm`, `deliberate`); their decision keys wait `SETTLE_MS` (keys.ts).
 */
import type { QueueItem } from './backend/backend';
import { flagsIn } from './confusables';

/** `highRisk`: the call or the settings' list says its tool is high-risk. */
export function isDeliberate(item: Pick<QueueItem, 'risk' | 'args'>, highRisk: boolean): boolean {
  if (highRisk || item.risk?.level === 'high' || item.risk?.level === 'critical') return true;
  const flags = flagsIn(item.args, 1);
  return flags.hidden + flags.lookalike > 0;
}
