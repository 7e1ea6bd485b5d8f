// Claude Code's channel relay on a call: a relayed preview says "preview only" and offers no edit
// (the relay cannot carry one), with the reason; the hook's call it was joined into says it is
// reachable through the channel too. A call with no such marks shows neither.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { relayMarksOf } from '../call-source';
import { i18n } from '../i18n/index.svelte';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody } from '../testing/mount';
import Detail from './Detail.svelte';

function renderDetail(item: QueueItem) {
  const backend = new FakeBackend();
  backend.add(item);
  const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(backend) });
  flushSync();
  return (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
}

const relayed = (over: Partial<QueueItem> = {}) =>
  makeItem({
    id: 'r1',
    source: 'claude-code',
    engine: 'claude-code',
    toolName: 'Bash',
    args: { description: 'Run the tests', input_preview: '{ "command": "npm test" }' },
    allowed: ['approve', 'decline', 'edit'],
    context: { preview: true, relay: 'claude/channel/permission', requestId: 'abcde' },
    ...over,
  });

describe("Claude Code's channel relay", () => {
  afterEach(() => i18n.set('system'));

  it('a relayed preview is badged preview only and offers no edit, saying why', () => {
    const tid = renderDetail(relayed());
    expect(tid('relay-preview-only')?.textContent).toBe(i18n.m.queue.relay.previewOnly);
    expect(tid('preview-no-edit')?.textContent).toBe(i18n.m.detail.previewNoEdit);
    expect(tid('edit-args-open')).toBeNull();
    expect(tid('approve')).not.toBeNull();
  });

  it('the same call without the preview mark offers its edit and no badge', () => {
    const tid = renderDetail(relayed({ id: 'h1', args: { command: 'npm test' }, context: { event: 'PermissionRequest' } }));
    expect(tid('relay-preview-only')).toBeNull();
    expect(tid('preview-no-edit')).toBeNull();
    expect(tid('edit-args-open')).not.toBeNull();
  });

  it("the hook's call a prompt joined says it is reachable through the channel too, in Japanese as well", () => {
    i18n.set('ja');
    const tid = renderDetail(relayed({ id: 'h2', args: { command: 'npm test' }, context: { event: 'PermissionRequest', channel: { requestId: 'abcde', joined: 'r9' } } }));
    expect(tid('relay-via-channel')?.textContent).toBe('チャネル経由でも');
    expect(tid('relay-preview-only')).toBeNull();
  });

  it('marks only claude-code calls, and only from a context object', () => {
    expect(relayMarksOf({ source: 'http', context: { preview: true } })).toEqual({ previewOnly: false, viaChannel: false });
    expect(relayMarksOf({ source: 'claude-code', context: null })).toEqual({ previewOnly: false, viaChannel: false });
    expect(relayMarksOf({ source: 'claude-code', context: { preview: 'true', channel: [] } })).toEqual({ previewOnly: false, viaChannel: false });
  });
});
