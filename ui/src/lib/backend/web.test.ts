import { describe, expect, it } from 'vitest';
import type { BackendEvent, ConnectionStatus } from './backend';
import { ApiError } from './backend';
import { WebBackend, route } from './web';

function sseResponse(text: string): Response {
  const bytes = new TextEncoder().encode(text);
  return new Response(
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes);
        c.close();
      },
    }),
    { status: 200, headers: { 'Content-Type': 'text/event-stream' } },
  );
}

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

async function until(cond: () => boolean, ms = 2000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('route', () => {
  it("takes each operation's method and path from the catalog, filling and encoding its parts", () => {
    expect(route('approve', { id: 'q 1/é' })).toEqual(['POST', '/api/queue/q%201%2F%C3%A9/approve']);
    expect(route('edit_engine', { name: 'prod' })).toEqual(['PATCH', '/api/engines/prod']);
    expect(route('stats', {}, new URLSearchParams({ days: '7' }))).toEqual(['GET', '/api/stats?days=7']);
    expect(() => route('approve', {})).toThrow(/approve needs its id/);
  });
});

describe('WebBackend', () => {
  it('sends the bearer token and turns error bodies into ApiError by code', async () => {
    const seen: RequestInit[] = [];
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (_url, init) => {
        seen.push(init!);
        return jsonResponse(409, { code: 'fingerprint_mismatch', message: 'changed', details: { expected: 'a', actual: 'b' } });
      },
    });
    const err = await backend.approve('q1', 'sha256:aa').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('fingerprint_mismatch');
    expect(err.details).toEqual({ expected: 'a', actual: 'b' });
    expect((seen[0].headers as Record<string, string>).Authorization).toBe('Bearer tok');
    expect(JSON.parse(seen[0].body as string)).toEqual({ fingerprint: 'sha256:aa' });
  });

  it('asks GET /api/session with the token for who it is, and keeps a forbidden answer\'s details', async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    let answer: Response = jsonResponse(200, { name: 'alice', role: 'operator', kind: 'token' });
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), init: init! });
        return answer;
      },
    });
    expect(await backend.session()).toEqual({ name: 'alice', role: 'operator', kind: 'token' });
    expect(seen[0].url).toBe('/api/session');
    expect(seen[0].init.method).toBe('GET');
    expect((seen[0].init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
    answer = jsonResponse(403, { code: 'forbidden', message: 'this needs the admin role; alice is operator', details: { needed: 'admin', role: 'operator' } });
    const err = await backend.createGrant({ fromItem: 'q1', fingerprint: 'sha256:aa', scope: 'agent', expiresInSecs: 3600 }).catch((e) => e);
    expect([err.code, err.status, err.details]).toEqual(['forbidden', 403, { needed: 'admin', role: 'operator' }]);
  });

  it('posts an edited approval with the shown fingerprint and the edited arguments, and keeps invalid_arguments details', async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    let answer: Response = jsonResponse(200, { id: 'q 1' });
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), init: init! });
        return answer;
      },
    });
    await backend.approveEdited('q 1', 'sha256:aa', { id: 'rec-9', tags: ['a', null] });
    expect(seen[0].url).toBe('/api/queue/q%201/approve-edited');
    expect(seen[0].init.method).toBe('POST');
    expect(JSON.parse(seen[0].init.body as string)).toEqual({ fingerprint: 'sha256:aa', args: { id: 'rec-9', tags: ['a', null] } });

    const errors = [{ path: '/id', message: 'expected string' }];
    answer = jsonResponse(422, { code: 'invalid_arguments', message: 'bad args', details: { errors } });
    const err = await backend.approveEdited('q1', 'sha256:aa', { id: 9 }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('invalid_arguments');
    expect(err.status).toBe(422);
    expect(err.details).toEqual({ errors });
  });

  it('posts a resolution with the shown fingerprint, a result only when given, and keeps the refusal\'s code and details', async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    let answer = () => jsonResponse(200, { id: 'q 1' });
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), init: init! });
        return answer();
      },
    });
    expect(await backend.resolve('q 1', 'ran', 'sha256:aa', { rows: 3 })).toEqual({ id: 'q 1' });
    await backend.resolve('q 1', 'ran', 'sha256:aa', 'deleted');
    await backend.resolve('q 1', 'ran', 'sha256:aa', null);
    await backend.resolve('q 1', 'did_not_run', 'sha256:aa');
    await backend.resolve('q 1', 'run_again', 'sha256:aa');
    expect(seen.map((s) => [s.init.method, s.url])).toEqual(Array(5).fill(['POST', '/api/queue/q%201/resolve']));
    expect((seen[0].init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
    expect(seen.map((s) => JSON.parse(s.init.body as string))).toEqual([
      { resolution: 'ran', fingerprint: 'sha256:aa', result: { rows: 3 } },
      { resolution: 'ran', fingerprint: 'sha256:aa', result: 'deleted' },
      { resolution: 'ran', fingerprint: 'sha256:aa', result: null },
      { resolution: 'did_not_run', fingerprint: 'sha256:aa' },
      { resolution: 'run_again', fingerprint: 'sha256:aa' },
    ]);

    answer = () => jsonResponse(409, { code: 'decision_not_allowed', message: 'delete_record is not marked idempotent', details: { allowed: ['ran', 'did_not_run'] } });
    const err = await backend.resolve('q1', 'run_again', 'sha256:aa').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect([err.code, err.status, err.details]).toEqual(['decision_not_allowed', 409, { allowed: ['ran', 'did_not_run'] }]);
  });

  it('reconnects when the event stream drops and reports each (re)open', async () => {
    let n = 0;
    const backend = new WebBackend({
      getToken: () => 'tok',
      minRetryMs: 1,
      maxRetryMs: 2,
      fetch: async (url) => {
        expect(String(url)).toBe('/api/events');
        n++;
        if (n === 1) return sseResponse(': hi\n\nevent: queue\ndata: {"type":"added","id":"a"}\n\n');
        if (n === 2) throw new TypeError('connection refused');
        return sseResponse('event: queue\ndata: {"type":"updated","id":"a"}\n\n');
      },
    });
    const events: BackendEvent[] = [];
    const states: string[] = [];
    const stop = backend.subscribe({ onEvent: (e) => events.push(e), onStatus: (s: ConnectionStatus) => states.push(s.state) });
    await until(() => events.length >= 2 && states.filter((s) => s === 'open').length >= 2);
    stop();
    expect(events.slice(0, 2)).toEqual([
      { kind: 'queue', type: 'added', id: 'a' },
      { kind: 'queue', type: 'updated', id: 'a' },
    ]);
    expect(states.slice(0, 7)).toEqual(['connecting', 'open', 'retrying', 'connecting', 'retrying', 'connecting', 'open']);
  });

  it('stops retrying the event stream when the token is refused', async () => {
    let n = 0;
    const backend = new WebBackend({
      getToken: () => 'bad',
      minRetryMs: 1,
      fetch: async () => {
        n++;
        return jsonResponse(401, { code: 'unauthorized', message: 'no' });
      },
    });
    const states: ConnectionStatus[] = [];
    backend.subscribe({ onEvent: () => {}, onStatus: (s) => states.push(s) });
    await until(() => states.some((s) => s.state === 'stopped'));
    await new Promise((r) => setTimeout(r, 30));
    expect(n).toBe(1);
    const last = states[states.length - 1];
    expect(last.state === 'stopped' && last.error.code).toBe('unauthorized');
  });

  it('calls the engine routes with encoded names, and accepts the empty 204 of a removal', async () => {
    const seen: { url: string; method: string; body: unknown }[] = [];
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), method: init!.method!, body: init!.body ? JSON.parse(init!.body as string) : undefined });
        if (init!.method === 'DELETE') return new Response(null, { status: 204 });
        if (String(url).endsWith('/sync')) return jsonResponse(503, { code: 'engine_unreachable', message: 'connection refused' });
        return jsonResponse(200, init!.method === 'GET' && String(url) === '/api/engines' ? [] : { name: 'a b' });
      },
    });
    await backend.listEngines();
    await backend.addEngine({ name: 'a b', baseUrl: 'http://127.0.0.1:9', token: 'secret' });
    await backend.editEngine('a b', { clearToken: true });
    await backend.engineAgents('a b');
    expect(await backend.removeEngine('a b')).toBeUndefined();
    const err = await backend.syncEngine('a/b').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('engine_unreachable');
    expect(seen).toEqual([
      { url: '/api/engines', method: 'GET', body: undefined },
      { url: '/api/engines', method: 'POST', body: { name: 'a b', baseUrl: 'http://127.0.0.1:9', token: 'secret' } },
      { url: '/api/engines/a%20b', method: 'PATCH', body: { clearToken: true } },
      { url: '/api/engines/a%20b/agents', method: 'GET', body: undefined },
      { url: '/api/engines/a%20b', method: 'DELETE', body: undefined },
      { url: '/api/engines/a%2Fb/sync', method: 'POST', body: undefined },
    ]);
  });

  it('sends the tab, filters, search and order of the queue, the counts with filters only, and reads the export as text', async () => {
    const seen: { url: string; method: string; body: unknown; accept: string }[] = [];
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        const headers = init!.headers as Record<string, string>;
        seen.push({ url: String(url), method: init!.method!, body: init!.body ? JSON.parse(init!.body as string) : undefined, accept: headers.Accept });
        if (String(url).startsWith('/api/audit/export')) {
          return String(url).endsWith('xlsx')
            ? jsonResponse(400, { code: 'invalid_request', message: 'unknown export format' })
            : new Response('{"seq":1}\n{"seq":2}\n', { status: 200, headers: { 'Content-Type': 'application/x-ndjson' } });
        }
        return jsonResponse(200, {});
      },
    });
    await backend.listQueue({ tab: 'awaiting_delivery', agent: 'ops', run: 'r 1', q: '  rec-4 "id" ', sort: 'oldest', limit: 100, cursor: '9' });
    await backend.listQueue({ q: ' ', sort: 'newest' });
    await backend.queueCounts({ tab: 'decided', kind: 'suspend', q: 'rm', cursor: '3' });
    await backend.listQueue({ source: 'claude-code', engine: 'hooks' });
    await backend.queueCounts({ source: 'mcp', kind: 'approval' });
    await backend.queueCounts({ source: '' });
    await backend.decisionHistory({ limit: 20 });
    await backend.decisionHistory({ filter: { action: 'decision.approve', agent: 'a b', source: 'http', from: '2026-01-01T00:00:00.000Z' } });
    await backend.previousCall('q 1/é');
    await backend.testEngine({ baseUrl: 'http://127.0.0.1:4111', token: 'secret' });
    expect(await backend.exportAudit('jsonl')).toBe('{"seq":1}\n{"seq":2}\n');
    const err = await backend.exportAudit('xlsx' as 'csv').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('invalid_request');
    await backend.viewing('q 1/é');
    await backend.stopViewing('q 1/é');
    expect(seen.map(({ url, method, body }) => ({ url, method, body }))).toEqual([
      { url: '/api/queue?agent=ops&run=r+1&q=rec-4+%22id%22&tab=awaiting_delivery&sort=oldest&limit=100&cursor=9', method: 'GET', body: undefined },
      { url: '/api/queue?tab=pending&limit=50', method: 'GET', body: undefined },
      { url: '/api/queue/counts?kind=suspend&q=rm', method: 'GET', body: undefined },
      { url: '/api/queue?engine=hooks&source=claude-code&tab=pending&limit=50', method: 'GET', body: undefined },
      { url: '/api/queue/counts?source=mcp&kind=approval', method: 'GET', body: undefined },
      { url: '/api/queue/counts?', method: 'GET', body: undefined },
      { url: '/api/audit/decisions?limit=20', method: 'GET', body: undefined },
      { url: '/api/audit/decisions?limit=50&action=decision.approve&agent=a+b&source=http&from=2026-01-01T00%3A00%3A00.000Z', method: 'GET', body: undefined },
      { url: '/api/queue/q%201%2F%C3%A9/previous', method: 'GET', body: undefined },
      { url: '/api/engines/test', method: 'POST', body: { baseUrl: 'http://127.0.0.1:4111', token: 'secret' } },
      { url: '/api/audit/export?format=jsonl', method: 'GET', body: undefined },
      { url: '/api/audit/export?format=xlsx', method: 'GET', body: undefined },
      { url: '/api/queue/q%201%2F%C3%A9/viewers', method: 'POST', body: undefined },
      { url: '/api/queue/q%201%2F%C3%A9/viewers', method: 'DELETE', body: undefined },
    ]);
    expect(seen[10].accept).not.toBe('application/json');
  });

  it('calls the notification routes, and turns a refused save into ApiError by code', async () => {
    const seen: { url: string; method: string; body: unknown }[] = [];
    const settings = { enabled: true, quietHours: { start: '25:00', end: '07:00' }, engines: null, agents: ['ops'], highRiskTools: ['rm'] };
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), method: init!.method!, body: init!.body ? JSON.parse(init!.body as string) : undefined });
        if (init!.method === 'PUT') return jsonResponse(400, { code: 'invalid_request', message: 'quiet hours: "25:00" is not a HH:MM time' });
        if (String(url) === '/api/notifications/status') return jsonResponse(200, { running: false, available: null, lastError: null, lastErrorAt: null, shown: 0, missed: 0 });
        return jsonResponse(200, { ...settings, quietHours: null });
      },
    });
    expect((await backend.notificationStatus()).running).toBe(false);
    expect((await backend.notificationSettings()).agents).toEqual(['ops']);
    const err = await backend.saveNotificationSettings(settings).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('invalid_request');
    expect(err.message).toBe('quiet hours: "25:00" is not a HH:MM time');
    expect(err.status).toBe(400);
    expect(seen).toEqual([
      { url: '/api/notifications/status', method: 'GET', body: undefined },
      { url: '/api/settings/notifications', method: 'GET', body: undefined },
      // `null` filters are sent as `null` (all), not left out.
      { url: '/api/settings/notifications', method: 'PUT', body: settings },
    ]);
  });

  it('calls the expiry and grant routes with encoded ids, and turns refusals into ApiError by code', async () => {
    const seen: { url: string; method: string; body: unknown }[] = [];
    const expiry = { rules: [{ tool: '*', afterSecs: 0 }], warnBeforeSecs: 300 };
    const grant = { fromItem: 'q/1', fingerprint: 'sha256:aa', scope: 'run' as const, conditions: [{ pointer: '/id', op: 'equals' as const, value: 'rec-1' }], expiresInSecs: 3600 };
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), method: init!.method!, body: init!.body ? JSON.parse(init!.body as string) : undefined });
        if (String(url) === '/api/settings/expiry' && init!.method === 'PUT') return jsonResponse(400, { code: 'invalid_request', message: '*: afterSecs must be 1 to 2592000 (30 days), not 0' });
        if (String(url) === '/api/grants' && init!.method === 'POST') return jsonResponse(409, { code: 'high_risk_tool', message: 'delete_record is high-risk' });
        if (String(url) === '/api/grants') return jsonResponse(200, []);
        return jsonResponse(200, { id: 'x' });
      },
    });
    await backend.expirySettings();
    const bad = await backend.saveExpirySettings(expiry).catch((e) => e);
    expect(bad).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(await backend.snooze('q/1', 900)).toEqual({ id: 'x' });
    expect(await backend.listGrants()).toEqual([]);
    const refused = await backend.createGrant(grant).catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 'high_risk_tool', status: 409 });
    await backend.revokeGrant('g 1');
    expect(seen).toEqual([
      { url: '/api/settings/expiry', method: 'GET', body: undefined },
      { url: '/api/settings/expiry', method: 'PUT', body: expiry },
      { url: '/api/queue/q%2F1/snooze', method: 'POST', body: { secs: 900 } },
      { url: '/api/grants', method: 'GET', body: undefined },
      { url: '/api/grants', method: 'POST', body: grant },
      { url: '/api/grants/g%201/revoke', method: 'POST', body: undefined },
    ]);
  });

  it('lists, makes and revokes tokens at /api/tokens, the name encoded', async () => {
    const seen: { url: string; method: string; body: unknown }[] = [];
    const made = { credential: { name: 'ci', role: 'agent' }, token: 'ac_1' };
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), method: init!.method!, body: init!.body ? JSON.parse(init!.body as string) : undefined });
        if (init!.method === 'POST') return jsonResponse(201, made);
        if (init!.method === 'DELETE') return jsonResponse(404, { code: 'not_found', message: 'credential "ci/x" not found' });
        return jsonResponse(200, []);
      },
    });
    expect(await backend.listTokens()).toEqual([]);
    expect(await backend.addToken({ name: 'ci', role: 'agent', sources: ['http'] })).toEqual(made);
    expect(await backend.revokeToken('ci/x').catch((e) => e)).toMatchObject({ code: 'not_found', status: 404 });
    expect(seen).toEqual([
      { url: '/api/tokens', method: 'GET', body: undefined },
      { url: '/api/tokens', method: 'POST', body: { name: 'ci', role: 'agent', sources: ['http'] } },
      { url: '/api/tokens/ci%2Fx', method: 'DELETE', body: undefined },
    ]);
  });

  it('lists, pairs, renames and revokes devices at /api/devices, the name encoded', async () => {
    const seen: { url: string; method: string; body: unknown }[] = [];
    const device = { id: 'd1', name: 'pixel', person: 'alice', createdAt: '2026-01-01T10:00:00Z', createdBy: 'local:me', lastUsedAt: null, sessions: 0 };
    const started = { name: 'pixel', person: 'me', code: 'ABCDE-FGHJK', url: 'https://console.example:8443/pair#ABCDE-FGHJK', pin: 'pin=', qrSvg: '<svg/>', expiresAt: '2026-01-01T10:10:00Z' };
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), method: init!.method!, body: init!.body ? JSON.parse(init!.body as string) : undefined });
        if (init!.method === 'POST') return jsonResponse(201, started);
        if (init!.method === 'PATCH') return jsonResponse(200, device);
        if (init!.method === 'DELETE') return jsonResponse(200, { name: 'a/b', sessionsEnded: 2 });
        return jsonResponse(200, [device]);
      },
    });
    expect(await backend.listDevices()).toEqual([device]);
    expect(await backend.startPairing({ name: 'pixel' })).toEqual(started);
    expect(await backend.renameDevice('a/b', 'pixel')).toEqual(device);
    expect(await backend.revokeDevice('a/b')).toEqual({ name: 'a/b', sessionsEnded: 2 });
    expect(seen).toEqual([
      { url: '/api/devices', method: 'GET', body: undefined },
      { url: '/api/devices/pairings', method: 'POST', body: { name: 'pixel' } },
      { url: '/api/devices/a%2Fb', method: 'PATCH', body: { name: 'pixel' } },
      { url: '/api/devices/a%2Fb', method: 'DELETE', body: undefined },
    ]);
  });

  it('reads and stores the reach settings at /api/settings/reach, claims and reads a call\'s reach (the id encoded), asks the reach figures by days, and lists, sets and removes a channel\'s secret (the name encoded)', async () => {
    const seen: { url: string; method: string; body: unknown }[] = [];
    const reach = {
      channels: [{ name: 'hook', kind: 'webhook' as const, person: 'alice', target: 'https://hooks.example/a', tls: 'starttls' as const, quietHours: { from: '22:00', to: '07:00' }, includeArgs: true, enabled: true }],
      rules: [{ name: 'all', tools: [], agents: [], sources: [], minRisk: null, steps: [{ afterSecs: 300, notify: ['everyone'] }] }],
      onCall: [],
    };
    const callReach = { claim: { person: 'alice', principal: 'token:alice', claimedAt: '2026-12-07T10:32:00Z' }, messages: [] };
    const stats = { days: 7, byChannel: [], byPerson: [], byRule: [], byDay: [{ key: '2026-12-07', calls: 2, p50Secs: 60, p90Secs: 120 }] };
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), method: init!.method!, body: init!.body ? JSON.parse(init!.body as string) : undefined });
        const u = String(url);
        if (u.startsWith('/api/settings/reach')) return jsonResponse(200, reach);
        if (u.startsWith('/api/stats/reach')) return jsonResponse(200, stats);
        return jsonResponse(200, callReach);
      },
    });
    expect(await backend.reachSettings()).toEqual(reach);
    expect(await backend.saveReachSettings(reach)).toEqual(reach);
    expect(await backend.claimCall('q 1/é')).toEqual(callReach);
    expect(await backend.callReach('q 1/é')).toEqual(callReach);
    expect(await backend.reachStats(7)).toEqual(stats);
    await backend.channelSecrets();
    await backend.setChannelSecret('ops/hook', 'k3y');
    await backend.removeChannelSecret('ops/hook');
    expect(seen).toEqual([
      { url: '/api/settings/reach', method: 'GET', body: undefined },
      { url: '/api/settings/reach', method: 'PUT', body: reach },
      { url: '/api/queue/q%201%2F%C3%A9/claim', method: 'POST', body: undefined },
      { url: '/api/queue/q%201%2F%C3%A9/reach', method: 'GET', body: undefined },
      { url: '/api/stats/reach?days=7', method: 'GET', body: undefined },
      { url: '/api/settings/reach/secrets', method: 'GET', body: undefined },
      { url: '/api/settings/reach/channels/ops%2Fhook/secret', method: 'PUT', body: { value: 'k3y' } },
      { url: '/api/settings/reach/channels/ops%2Fhook/secret', method: 'DELETE', body: undefined },
    ]);
  });

  it('reads and stores the quorums at /api/settings/quorum, and answers a 202 approval (one of a quorum) as the call it returns', async () => {
    const seen: { url: string; method: string; body: unknown }[] = [];
    const quorum = { rules: [{ tool: 'delete_record', approvals: 2 }] };
    const waiting = { id: 'q1', state: 'pending', quorum: 2, approvals: [{ operator: 'alice (web)', operatorKey: 'token:alice', at: '2026-12-01T10:00:00Z' }] };
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), method: init!.method!, body: init!.body ? JSON.parse(init!.body as string) : undefined });
        if (String(url) === '/api/queue/q1/approve') return jsonResponse(202, waiting);
        if (init!.method === 'PUT') return jsonResponse(403, { code: 'forbidden', message: 'this needs the admin role; o is operator' });
        return jsonResponse(200, quorum);
      },
    });
    expect(await backend.quorumSettings()).toEqual(quorum);
    expect(await backend.saveQuorumSettings(quorum).catch((e) => e)).toMatchObject({ code: 'forbidden', status: 403 });
    expect(await backend.saveQuorumSettings(quorum, true).catch((e) => e)).toMatchObject({ code: 'forbidden', status: 403 });
    expect(await backend.approve('q1', 'sha256:aa')).toEqual(waiting);
    expect(seen).toEqual([
      { url: '/api/settings/quorum', method: 'GET', body: undefined },
      { url: '/api/settings/quorum', method: 'PUT', body: quorum },
      // A widening confirmed: the document and `confirmWidening` beside its fields.
      { url: '/api/settings/quorum', method: 'PUT', body: { ...quorum, confirmWidening: true } },
      { url: '/api/queue/q1/approve', method: 'POST', body: { fingerprint: 'sha256:aa' } },
    ]);
  });

  it("asks GET /api/stats?days=N with the token for the team's figures, and keeps a refusal's code", async () => {
    const figures = {
      since: '2026-11-24T00:00:00.000000Z',
      until: '2026-12-01T19:00:00.000000Z',
      decisions: { approved: 12, declined: 3, expired: 1, resumed: 2, total: 18 },
      byTool: [{ tool: 'delete_record', decided: 9, p50Secs: 41.5, p90Secs: 300.0, declined: 2, expired: 1 }],
      byOperator: [{ operator: 'alice (web)', decided: 7, p50Secs: 20.0, p90Secs: 95.0 }],
      pendingOverTime: [{ at: '2026-11-30T18:00:00.000000Z', pending: 4 }],
    };
    const seen: { url: string; init: RequestInit }[] = [];
    let answer: Response = jsonResponse(200, figures);
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), init: init! });
        return answer;
      },
    });
    expect(await backend.stats(7)).toEqual(figures);
    expect(seen[0].url).toBe('/api/stats?days=7');
    expect(seen[0].init.method).toBe('GET');
    expect(seen[0].init.body).toBeUndefined();
    expect((seen[0].init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
    answer = jsonResponse(400, { code: 'invalid_request', message: 'days must be 1 to 90' });
    const err = await backend.stats(30).catch((e) => e);
    expect(seen[1].url).toBe('/api/stats?days=30');
    expect([err.code, err.status, err.message]).toEqual(['invalid_request', 400, 'days must be 1 to 90']);
  });

  it('has no autostart: null, and a refused setAutostart without asking the server', async () => {
    let fetched = 0;
    const backend = new WebBackend({
      getToken: () => 'tok',
      fetch: async () => {
        fetched++;
        return jsonResponse(200, {});
      },
    });
    expect(await backend.autostart()).toBeNull();
    const err = await backend.setAutostart(true).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('invalid_request');
    expect(err.message).toBe('only the desktop app can start at login');
    expect(fetched).toBe(0);
  });
});
