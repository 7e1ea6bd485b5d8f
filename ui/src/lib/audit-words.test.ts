import { describe, expect, it } from 'vitest';
import { grantNamed, grantOfActor, outcomeOf } from './audit-words';

const row = (outcome: unknown, error: string | null = null, delivery: string | null = 'delivered') => ({ delivery, outcome, error });

describe('what became of a decision, in words', () => {
  it('names a submitted call handed over, a tool that ran, a decline and a failure, never the raw answer', () => {
    expect(outcomeOf(row({ handedOver: 'the decision waits for the agent to fetch it (GET /api/calls/{id})' }))).toEqual({ kind: 'handedOver', detail: undefined });
    expect(outcomeOf(row({ status: 'executed', result: { deleted: 'rec-1' } }))).toEqual({ kind: 'ran', detail: { deleted: 'rec-1' } });
    expect(outcomeOf(row({ status: 'declined', result: 'no' }))?.kind).toBe('declined');
    expect(outcomeOf(row({ status: 'tool-error', result: 'boom' }))).toEqual({ kind: 'toolError', detail: 'boom' });
    expect(outcomeOf(row({ status: 'delivered', route: 'approve-tool-call', text: 'Done.' }))).toEqual({ kind: 'sent', detail: 'Done.' });
    expect(outcomeOf(row({ status: 'failed', error: 'x' }, 'engine said no', 'failed'))).toEqual({ kind: 'failed', detail: 'engine said no' });
    expect(outcomeOf(row({ weird: 1 }))).toEqual({ kind: 'other', detail: { weird: 1 } });
    expect(outcomeOf(row(undefined, null, null))).toBeNull();
  });

  it('finds the grant that decided by its audit name, and only a grant', () => {
    expect(grantOfActor('grant g_0a1b (made by admin (web))')).toBe('g_0a1b');
    expect(grantOfActor('alice (web)')).toBeNull();
    expect(grantOfActor('granted (web)')).toBeNull();
    const g = { id: 'g_0a1b', toolName: 'delete_record', scope: 'agent' as const, engine: 'local', agentId: 'demo', createdBy: 'admin (web)', conditions: 1 };
    expect(grantNamed('grant g_0a1b (made by admin (web))', { g_0a1b: g })).toEqual(g);
    expect(grantNamed('grant g_gone (made by x)', { g_0a1b: g })).toBeNull();
  });
});
