import { issueToken } from '@zeromem/protocol/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, SECRET, TOKEN, startServiceProcess, type ServiceProcess } from './service-process.ts';

let service: ServiceProcess;
let api: Client;
const own = { userId: 'wang', agentId: 'after-sales' };
const other = { userId: 'li' };

beforeAll(async () => {
  service = await startServiceProcess(['--token-secret', SECRET]);
  api = new Client(service.url);
  await api.load();
  await api.call('post', '/v1/memories', { body: { namespace: own, content: 'Ticket TS20240315' } });
  await api.call('post', '/v1/memories', { body: { namespace: other, content: 'Li prefers e-mail' } });
});
afterAll(async () => {
  expect(await service?.stop()).toBe(0);
});

/** One request per documented operation, with a valid body, so only auth can refuse it. */
function everyOperation(): Array<[string, string, Parameters<Client['call']>[2]]> {
  const q = own;
  return [
    ['post', '/v1/memories', { body: { namespace: own, content: 'written by an intruder' } }],
    ['get', '/v1/memories', { query: q }],
    ['get', '/v1/memories/{id}', { params: { id: 'x' }, query: q }],
    ['patch', '/v1/memories/{id}', { params: { id: 'x' }, body: { namespace: own, patch: { content: 'changed by an intruder' } } }],
    ['delete', '/v1/memories/{id}', { params: { id: 'x' }, query: q }],
    ['get', '/v1/memories/{id}/history', { params: { id: 'x' }, query: q }],
    ['post', '/v1/recall', { body: { namespace: own, query: 'ticket' } }],
    ['post', '/v1/context', { body: { namespace: own, query: 'ticket' } }],
    ['post', '/v1/forget', { body: { namespace: own, filter: { source: 'user' } } }],
    ['delete', '/v1/namespaces', { query: q }],
    ['get', '/v1/namespaces', {}],
    ['delete', '/v1/users/{userId}', { params: { userId: 'wang' } }],
    ['get', '/v1/audit', { query: q }],
    ['get', '/v1/stats', { query: q }],
    ['get', '/v1/profile', { query: q }],
    ['get', '/v1/export', { query: q }],
    ['get', '/v1/users/{userId}/export', { params: { userId: 'wang' } }],
    ['post', '/v1/import', { raw: 'x', headers: { 'content-type': 'application/x-ndjson' } }],
  ];
}

describe('authentication comes before any work', () => {
  it('every operation is documented as needing the bearer token', () => {
    const operations = Object.values(api.doc.paths as Record<string, Record<string, { security?: unknown }>>).flatMap((ops) => Object.values(ops));
    expect(operations.length).toBe(everyOperation().length);
    for (const op of operations) expect(op.security).toEqual([{ bearer: [] }]);
  });

  const refusals: Array<[string, string | null, Record<string, string>]> = [
    ['no Authorization header', null, {}],
    ['a wrong token', 'not-the-token-at-all', {}],
    ['the token with a different case', TOKEN.toUpperCase(), {}],
    ['a forged JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl', {}],
  ];
  it.each(refusals)('%s: 401 UNAUTHORIZED on every route, nothing read or written', async (_what, token) => {
    for (const [method, template, options] of everyOperation()) {
      const answer = await api.call(method, template, { ...options, token });
      expect(answer.status, `${method} ${template}`).toBe(401);
      expect(answer.body.error.code).toBe('UNAUTHORIZED');
    }
    expect((await api.call('get', '/v1/stats', { query: own })).body.count).toBe(1);
    expect((await api.call('get', '/v1/stats', { query: other })).body.count).toBe(1);
  });

  it('a bad token is refused before the body is even looked at (an oversized body gets 401, not 413)', async () => {
    const answer = await api.call('post', '/v1/memories', { raw: 'x'.repeat(3 * 1024 * 1024), headers: { 'content-type': 'application/json' }, token: 'wrong-token-wrong-token' });
    expect(answer.status).toBe(401);
  });

  it('an expired limited token is 401 with the reason', async () => {
    const expired = await issueToken({ secret: SECRET, subject: 'old', rooms: ['u=wang;a=after-sales'], ttlSeconds: 1, now: Date.now() - 10_000 });
    const answer = await api.call('get', '/v1/stats', { query: own, token: expired });
    expect(answer.status).toBe(401);
    expect(answer.body.error.details.problem).toBe('expired');
  });
});

describe('namespace-limited tokens (the relay\'s token format)', () => {
  it('read-write on its namespace; 403 FORBIDDEN elsewhere, for whole users and imports; writes are audited under its subject', async () => {
    const token = await issueToken({ secret: SECRET, subject: 'agent-7', rooms: ['u=wang;a=after-sales'], ttlSeconds: 600 });
    const written = await api.call('post', '/v1/memories', { body: { namespace: own, content: 'Callback on Wednesday' }, token });
    expect(written.status).toBe(201);
    const audit = await api.call('get', '/v1/audit', { query: own, token });
    expect(audit.body.entries.at(-1)).toMatchObject({ op: 'remember', actor: 'agent-7' });
    expect((await api.call('post', '/v1/recall', { body: { namespace: own, query: 'callback' }, token })).status).toBe(200);
    const forbidden: Array<[string, string, Parameters<Client['call']>[2]]> = [
      ['post', '/v1/memories', { body: { namespace: other, content: 'x' } }],
      ['post', '/v1/memories', { body: { memories: [{ namespace: own, content: 'ok' }, { namespace: other, content: 'not ok' }] } }],
      ['get', '/v1/memories', { query: other }],
      ['get', '/v1/profile', { query: other }],
      ['post', '/v1/recall', { body: { namespace: other, query: 'mail' } }],
      ['post', '/v1/context', { body: { namespace: own, query: 'x', layers: { knowledge: { namespace: other } } } }],
      ['delete', '/v1/users/{userId}', { params: { userId: 'wang' } }],
      ['get', '/v1/users/{userId}/export', { params: { userId: 'wang' } }],
      ['post', '/v1/import', { raw: 'x', headers: { 'content-type': 'application/x-ndjson' } }],
    ];
    for (const [method, template, options] of forbidden) {
      const answer = await api.call(method, template, { ...options, token });
      expect(answer.status, `${method} ${template}`).toBe(403);
      expect(answer.body.error.code).toBe('FORBIDDEN');
    }
    expect((await api.call('get', '/v1/stats', { query: own })).body.count).toBe(2); // the mixed batch wrote nothing
    expect((await api.call('get', '/v1/namespaces', { token })).body.namespaces).toEqual([own]);
  });

  it('a read token reads but may not write', async () => {
    const token = await issueToken({ secret: SECRET, subject: 'viewer', rooms: ['u=wang;a=after-sales'], access: 'read', ttlSeconds: 600 });
    expect((await api.call('get', '/v1/memories', { query: own, token })).status).toBe(200);
    for (const [method, template, options] of [
      ['post', '/v1/memories', { body: { namespace: own, content: 'x' } }],
      ['delete', '/v1/namespaces', { query: own }],
      ['post', '/v1/forget', { body: { namespace: own, filter: { source: 'user' } } }],
    ] as const) {
      expect((await api.call(method, template, { ...options, token })).status).toBe(403);
    }
  });
});

describe('a read token leaves no trace (issue 29 item 10)', () => {
  it('its recalls and contexts change no access count or time, its reads re-warm nothing; trackAccess: true is 403', async () => {
    const ns = { userId: 'reader-test' };
    const token = await issueToken({ secret: SECRET, subject: 'viewer', rooms: ['u=reader-test'], access: 'read', ttlSeconds: 600 });
    const stored = await api.call('post', '/v1/memories', { body: { namespace: ns, content: 'The printer on floor 3 jams on A3 paper' } });
    expect(stored.status).toBe(201);
    const id = stored.body.id as string;
    for (let i = 0; i < 20; i++) {
      expect((await api.call('post', '/v1/recall', { body: { namespace: ns, query: 'printer jams' }, token })).body.hits).toHaveLength(1);
      expect((await api.call('post', '/v1/context', { body: { namespace: ns, query: 'printer jams' }, token })).status).toBe(200);
      expect((await api.call('get', '/v1/memories/{id}', { params: { id }, query: ns, token })).status).toBe(200);
    }
    const explicit = await api.call('post', '/v1/recall', { body: { namespace: ns, query: 'printer jams', trackAccess: true }, token });
    expect(explicit.status).toBe(403);
    expect(explicit.body.error.code).toBe('FORBIDDEN');
    expect((await api.call('post', '/v1/context', { body: { namespace: ns, query: 'printer', trackAccess: true }, token })).status).toBe(403);
    // One recall with the service token counts: once its batched write is in, the count is 1, not 21.
    expect((await api.call('post', '/v1/recall', { body: { namespace: ns, query: 'printer jams', trackAccess: true } })).status).toBe(200);
    let record: { accessCount: number; lastAccessedAt: number | null } | undefined;
    for (let wait = 0; wait < 100 && !(record?.accessCount); wait++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      record = (await api.call('get', '/v1/memories', { query: ns })).body.items[0];
    }
    expect(record?.accessCount).toBe(1);
  });
});

describe('CORS', () => {
  it('is off by default: no Access-Control-Allow-Origin, preflights not answered', async () => {
    const answer = await fetch(`${service.url}/v1/stats?userId=wang`, { headers: { origin: 'https://evil.example', authorization: `Bearer ${TOKEN}` } });
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${service.url}/v1/memories`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('--cors-origin allows exactly that origin', async () => {
    const withCors = await startServiceProcess(['--cors-origin', 'https://app.example']);
    try {
      const allowed = await fetch(`${withCors.url}/v1/memories`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
      const other = await fetch(`${withCors.url}/v1/stats?userId=wang`, { headers: { origin: 'https://evil.example', authorization: `Bearer ${TOKEN}` } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await withCors.stop();
    }
  });
});
