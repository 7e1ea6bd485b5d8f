// "Test connection" in the add-engine form: the URL and token as typed, tried without saving.
import { describe, expect, it } from 'vitest';
import { ApiError, type EngineKind } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend } from '../testing/fake-backend';
import { mountInBody, settle, type } from '../testing/mount';
import AddEngineForm from './AddEngineForm.svelte';

async function render(backend: FakeBackend) {
  const added: string[] = [];
  const { target } = mountInBody(AddEngineForm, { props: { onadded: (e: { name: string }) => added.push(e.name) }, context: backendContext(backend) });
  await settle();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { tid, added };
}

describe('AddEngineForm: the engine kind', () => {
  it('tests and adds a LangGraph server as one, with its own URL hint and its interrupted threads counted', async () => {
    const backend = new FakeBackend();
    const { tid, added } = await render(backend);
    expect((tid('add-engine-kind') as HTMLSelectElement).value).toBe('mastra');
    expect(tid('add-engine-form')!.textContent).toContain('its API is under /api');
    const kind = tid('add-engine-kind') as HTMLSelectElement;
    kind.value = 'langgraph';
    kind.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(tid('add-engine-form')!.textContent).toContain('http://127.0.0.1:2024');
    type(tid('add-engine-url'), 'http://127.0.0.1:2024');
    type(tid('add-engine-name'), 'graphs');
    await settle();
    backend.testResult = { result: 'reachable', message: 'reachable: 3 interrupted threads', agents: null, interrupted: 3 };
    tid('add-engine-test')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'testEngine').at(-1)!.args).toEqual([{ kind: 'langgraph', baseUrl: 'http://127.0.0.1:2024', token: null }]);
    expect(tid('add-engine-test-result')!.textContent).toContain('reachable: 3 interrupted threads');
    (tid('add-engine-form') as HTMLFormElement).requestSubmit();
    await settle();
    expect(backend.calls.find((c) => c.method === 'addEngine')!.args[0]).toMatchObject({ name: 'graphs', kind: 'langgraph', baseUrl: 'http://127.0.0.1:2024' });
    expect(added).toEqual(['graphs']);
    expect(backend.engines.get('graphs')!.kind).toBe('langgraph');
    expect((tid('add-engine-kind') as HTMLSelectElement).value, 'the form starts over').toBe('mastra');
  });
});

describe('AddEngineForm: the kinds are the server\'s', () => {
  const options = (select: HTMLSelectElement) => [...select.options].map((o) => [o.value, o.textContent?.trim()]);

  it('offers the kinds the server lists, in its order with its default chosen, and one the window has no word for by its name', async () => {
    const backend = new FakeBackend();
    backend.kinds = ['langgraph', 'mastra', 'acme' as EngineKind];
    const { tid } = await render(backend);
    expect(backend.calls.filter((c) => c.method === 'engineKinds')).toHaveLength(1);
    const kind = tid('add-engine-kind') as HTMLSelectElement;
    expect(options(kind)).toEqual([
      ['langgraph', 'LangGraph'],
      ['mastra', 'Mastra'],
      ['acme', 'acme'],
    ]);
    expect(kind.value, 'the server\'s default first').toBe('langgraph');
    expect(tid('add-engine-form')!.textContent).toContain('http://127.0.0.1:2024');

    kind.value = 'acme';
    kind.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(tid('add-engine-form')!.textContent, 'no hint for a kind the window does not know').not.toContain('e.g.');
    type(tid('add-engine-name'), 'new');
    type(tid('add-engine-url'), 'http://127.0.0.1:9000');
    await settle();
    (tid('add-engine-form') as HTMLFormElement).requestSubmit();
    await settle();
    expect(backend.calls.find((c) => c.method === 'addEngine')!.args[0]).toMatchObject({ name: 'new', kind: 'acme' });
    expect(kind.value, 'the form starts over at the server\'s default').toBe('langgraph');
  });

  it('says why when the kinds cannot be read, and an engine added meanwhile is of the server\'s default kind', async () => {
    const backend = new FakeBackend();
    backend.failKinds = new ApiError('engine_unreachable', 'the console did not answer', null, 503);
    const { tid } = await render(backend);
    expect(tid('add-engine-kinds-error')!.textContent).toContain('the console did not answer');
    const kind = tid('add-engine-kind') as HTMLSelectElement;
    expect(kind.options.length).toBe(0);
    expect(kind.disabled).toBe(true);
    type(tid('add-engine-name'), 'm');
    type(tid('add-engine-url'), 'http://127.0.0.1:4111');
    await settle();
    (tid('add-engine-form') as HTMLFormElement).requestSubmit();
    await settle();
    const sent = backend.calls.find((c) => c.method === 'addEngine')!.args[0] as Record<string, unknown>;
    expect(sent).toMatchObject({ name: 'm', baseUrl: 'http://127.0.0.1:4111' });
    expect('kind' in sent, 'no kind said: the server takes its default').toBe(false);
  });
});

describe('AddEngineForm: test connection', () => {
  it('tries the URL and token as typed, says how the server answered, and stores nothing', async () => {
    const backend = new FakeBackend();
    const { tid, added } = await render(backend);
    expect((tid('add-engine-test') as HTMLButtonElement).disabled).toBe(true);
    type(tid('add-engine-url'), ' http://127.0.0.1:4111 ');
    type(tid('add-engine-token'), 'secret');
    await settle();
    tid('add-engine-test')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'testEngine')).toEqual([{ method: 'testEngine', args: [{ kind: 'mastra', baseUrl: 'http://127.0.0.1:4111', token: 'secret' }] }]);
    const result = tid('add-engine-test-result')!;
    expect(result.dataset.result).toBe('reachable');
    expect(result.textContent).toContain('reachable: 2 agents');
    expect(result.textContent).toContain('Nothing was saved.');
    expect(backend.engines.size).toBe(0);
    expect(added).toEqual([]);
    // The token stays in the field for the save that may follow.
    expect((tid('add-engine-token') as HTMLInputElement).value).toBe('secret');

    // Another token: the old result no longer applies.
    type(tid('add-engine-token'), 'other');
    await settle();
    expect(tid('add-engine-test-result')).toBeNull();
  });

  it('shows a refused token or an unreachable server with the server\'s message, and a bad URL as an error', async () => {
    const backend = new FakeBackend();
    const { tid } = await render(backend);
    type(tid('add-engine-url'), 'http://127.0.0.1:4111');
    await settle();
    backend.testResult = { result: 'auth_failed', message: 'GET /api/agents: 401 Unauthorized: bad token', agents: null };
    tid('add-engine-test')!.click();
    await settle();
    expect(tid('add-engine-test-result')!.dataset.result).toBe('auth_failed');
    expect(tid('add-engine-test-result')!.textContent).toContain('auth failed');
    expect(tid('add-engine-test-result')!.textContent).toContain('401 Unauthorized: bad token');
    expect(backend.calls.at(-1)!.args).toEqual([{ kind: 'mastra', baseUrl: 'http://127.0.0.1:4111', token: null }]);

    backend.testResult = { result: 'unreachable', message: 'GET /api/agents: cannot connect: Connection refused', agents: null };
    tid('add-engine-test')!.click();
    await settle();
    expect(tid('add-engine-test-result')!.dataset.result).toBe('unreachable');

    type(tid('add-engine-url'), 'ftp://x');
    await settle();
    tid('add-engine-test')!.click();
    await settle();
    expect(tid('add-engine-test-result')).toBeNull();
    expect(tid('add-engine-test-error')!.dataset.code).toBe('invalid_request');
  });

  it('says it is testing, and tests once at a time', async () => {
    const backend = new FakeBackend();
    let open!: () => void;
    backend.testGate = new Promise<void>((r) => (open = r));
    const { tid } = await render(backend);
    type(tid('add-engine-url'), 'http://127.0.0.1:4111');
    await settle();
    tid('add-engine-test')!.click();
    await settle();
    expect(tid('add-engine-test')!.textContent).toBe('Testing…');
    expect((tid('add-engine-test') as HTMLButtonElement).disabled).toBe(true);
    tid('add-engine-test')!.click();
    open();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'testEngine')).toHaveLength(1);
    expect(tid('add-engine-test-result')!.dataset.result).toBe('reachable');
  });
});
