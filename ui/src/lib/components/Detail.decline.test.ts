// Declining with a reason: preset reasons fill the field, which stays editable; Enter sends.
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { backendContext } from '../backend/context';
import { declinePresets } from '../decline-presets';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody, settle as settleAll, type } from '../testing/mount';
import Detail from './Detail.svelte';

const settle = () => settleAll({ rounds: 5, macrotasks: false });
/** The presets' words in the console's language (English here). */
const DECLINE_PRESETS = declinePresets().map((p) => p.text);

function render() {
  const backend = new FakeBackend();
  const item = makeItem();
  backend.add(item);
  const ondecided = vi.fn();
  const { target } = mountInBody(Detail, { props: { item, ondecided, onerror: vi.fn() }, context: backendContext(backend) });
  flushSync();
  const reason = target.querySelector('[data-testid="decline-reason"]') as HTMLInputElement;
  const presets = [...target.querySelectorAll<HTMLButtonElement>('[data-testid="decline-preset"]')];
  const decisions = () => backend.calls.filter((c) => c.method === 'decline');
  return { item, reason, presets, decisions, ondecided };
}

/** Enter pressed in the focused element, as a browser sends it. */
async function pressEnter() {
  (document.activeElement ?? document.body).dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
  await settle();
}

describe('Decline presets', () => {
  it('offers each preset as a button that can be reached with the keyboard', () => {
    const { presets } = render();
    expect(presets.map((b) => b.textContent)).toEqual([...DECLINE_PRESETS]);
    expect(DECLINE_PRESETS).toEqual(['Not authorised', 'Wrong target', 'Too risky']);
    // "Ask me again later" is not a reason to decline: it is the snooze (it decides nothing).
    expect(DECLINE_PRESETS).not.toContain('Ask me again later');
    for (const b of presets) {
      expect(b.type).toBe('button');
      expect(b.disabled).toBe(false);
      expect(b.tabIndex).toBe(0);
    }
  });

  it('fills the reason, focuses it, and Enter sends the decline with that reason', async () => {
    const { item, reason, presets, decisions } = render();
    const tooRisky = presets.find((b) => b.textContent === 'Too risky')!;
    tooRisky.click();
    await settle();
    expect(reason.value).toBe('Too risky');
    expect(document.activeElement).toBe(reason);
    expect(tooRisky.dataset.chosen).toBe('true');
    // Choosing a preset sends nothing by itself.
    expect(decisions()).toEqual([]);
    await pressEnter();
    expect(decisions()).toEqual([{ method: 'decline', args: [item.id, item.fingerprint, 'Too risky'] }]);
  });

  it('lets the operator edit a preset before sending', async () => {
    const { item, reason, presets, decisions } = render();
    presets[0].click();
    await settle();
    type(reason, `${reason.value}: ask the on-call lead`);
    await settle();
    expect(presets[0].dataset.chosen).toBeUndefined();
    await pressEnter();
    expect(decisions()).toEqual([{ method: 'decline', args: [item.id, item.fingerprint, `${DECLINE_PRESETS[0]}: ask the on-call lead`] }]);
  });

  it('replaces one preset with another', async () => {
    const { reason, presets } = render();
    presets[0].click();
    presets[1].click();
    await settle();
    expect(reason.value).toBe(DECLINE_PRESETS[1]);
  });
});

describe('Decline note for a LangGraph Agent Inbox request', () => {
  it('says the reason is the response and an empty one ignores, in place of the usual note; other calls keep it', () => {
    const backend = new FakeBackend();
    const item = makeItem({
      id: 'lg-1',
      engine: 'lg',
      source: 'langgraph',
      suspendPayload: { convention: 'agent-inbox', config: { allow_accept: true, allow_edit: false, allow_respond: true, allow_ignore: true } },
    });
    backend.add(item);
    const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(backend) });
    flushSync();
    expect(target.querySelector('[data-testid="decline-reason-note"]')!.textContent).toBe(
      '(sent to the graph as the response; leave it empty to ignore the request)',
    );
    const other = render();
    expect(other.reason.closest('form')!.querySelector('[data-testid="decline-reason-note"]')!.textContent).toBe('(optional, told to the agent)');
  });
});
