import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, startServiceProcess, type ServiceProcess } from './service-process.ts';

// One service process for the whole file: every route, every error path, each answer
// validated against the service's own /openapi.json (Client.call).
let service: ServiceProcess;
let api: Client;
const ns = { userId: 'wang', agentId: 'after-sales' };
const nsQuery = { userId: 'wang', agentId: 'after-sales' };
const STORY = '用户王先生反馈充电口接触不良，已生成工单 TS20240315，约定周三回访';

beforeAll(async () => {
  service = await startServiceProcess(['--max-batch', '5', '--max-body-bytes', '65536']);
  api = new Client(service.url);
  await api.load();
});
afterAll(async () => {
  expect(await service?.stop()).toBe(0);
});

describe('documents', () => {
  it('GET /healthz and GET /openapi.json (OpenAPI 3.1, every /v1 route secured)', async () => {
    expect(await (await fetch(`${service.url}/healthz`)).json()).toEqual({ ok: true });
    const doc = api.doc;
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths as Record<string, Record<string, { security?: unknown }>>).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`));
    expect(operations.sort()).toEqual(
      [
        'post /v1/memories', 'get /v1/memories', 'get /v1/memories/{id}', 'patch /v1/memories/{id}', 'delete /v1/memories/{id}', 'get /v1/memories/{id}/history',
        'post /v1/recall', 'post /v1/context', 'post /v1/forget', 'delete /v1/namespaces', 'get /v1/namespaces', 'delete /v1/users/{userId}',
        'get /v1/audit', 'get /v1/stats', 'get /v1/export', 'get /v1/users/{userId}/export', 'post /v1/import', 'get /v1/profile',
      ].sort(),
    );
  });
});

describe('memories', () => {
  it('remember one (201), the same again (200, deduplicated), a batch (200); get; list with filters and cursor', async () => {
    const first = await api.call('post', '/v1/memories', { body: { namespace: ns, id: 'TS20240315', content: STORY, tags: ['ticket'], metadata: { status: 'open', priority: 4 } } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ id: 'TS20240315', deduplicated: false });
    const again = await api.call('post', '/v1/memories', { body: { namespace: ns, content: STORY } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: 'TS20240315', deduplicated: true });
    const batch = await api.call('post', '/v1/memories', {
      body: { memories: [{ namespace: ns, content: '王先生偏好电话联系', tags: ['contact'] }, { namespace: ns, content: '发票已重新寄出', metadata: { status: 'closed', priority: 1 } }] },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results).toHaveLength(2);
    const got = await api.call('get', '/v1/memories/{id}', { params: { id: 'TS20240315' }, query: nsQuery });
    expect(got.status).toBe(200);
    expect(got.body.content).toBe(STORY);
    const page1 = await api.call('get', '/v1/memories', { query: { ...nsQuery, limit: '2', order: 'asc' } });
    expect(page1.body.items).toHaveLength(2);
    const page2 = await api.call('get', '/v1/memories', { query: { ...nsQuery, limit: '2', order: 'asc', cursor: page1.body.nextCursor } });
    expect(page2.body.items).toHaveLength(1);
    expect(page2.body.nextCursor).toBeNull();
    const tagged = await api.call('get', '/v1/memories', { query: { ...nsQuery, tag: ['ticket', 'contact'] } });
    expect(tagged.body.items.map((r: { content: string }) => r.content).sort()).toEqual([STORY, '王先生偏好电话联系'].sort());
    const where = await api.call('get', '/v1/memories', { query: { ...nsQuery, where: JSON.stringify({ key: 'priority', gte: 2 }) } });
    expect(where.body.items.map((r: { id: string }) => r.id)).toEqual(['TS20240315']);
  });

  it('a batch with skipInvalid writes the good items and reports the bad; without it nothing is written', async () => {
    const other = { userId: 'batch' };
    const refused = await api.call('post', '/v1/memories', { body: { memories: [{ namespace: other, content: 'good' }, { namespace: other, content: '   ' }] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('INVALID_INPUT');
    expect(refused.body.error.details.items[0]).toMatchObject({ index: 1, code: 'INVALID_INPUT' });
    expect((await api.call('get', '/v1/stats', { query: other })).body.count).toBe(0);
    const partial = await api.call('post', '/v1/memories', { body: { memories: [{ namespace: other, content: 'good' }, { namespace: other, content: '   ' }], skipInvalid: true } });
    expect(partial.status).toBe(200);
    expect(partial.body.results).toHaveLength(1);
    expect(partial.body.failures).toMatchObject([{ index: 1, code: 'INVALID_INPUT' }]);
  });

  it('update with ifVersion (200, then 409), history, forget (200, then 404)', async () => {
    const { body: created } = await api.call('post', '/v1/memories', { body: { namespace: ns, content: 'Callback on Wednesday' } });
    const updated = await api.call('patch', '/v1/memories/{id}', { params: { id: created.id }, body: { namespace: ns, patch: { content: 'Callback moved to Thursday' }, ifVersion: 1 }, headers: { 'x-zeromem-actor': 'technician-li' } });
    expect(updated.status).toBe(200);
    expect(updated.body.version).toBe(2);
    const stale = await api.call('patch', '/v1/memories/{id}', { params: { id: created.id }, body: { namespace: ns, patch: { content: 'x' }, ifVersion: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'CONFLICT', details: { currentVersion: 2 } });
    const history = await api.call('get', '/v1/memories/{id}/history', { params: { id: created.id }, query: nsQuery });
    expect(history.body.versions).toMatchObject([{ version: 1, content: 'Callback on Wednesday', changedBy: 'technician-li' }]);
    expect((await api.call('delete', '/v1/memories/{id}', { params: { id: created.id }, query: nsQuery })).body).toEqual({ forgotten: true });
    const gone = await api.call('delete', '/v1/memories/{id}', { params: { id: created.id }, query: nsQuery });
    expect(gone.status).toBe(404);
    expect((await api.call('get', '/v1/memories/{id}', { params: { id: created.id }, query: nsQuery })).status).toBe(404);
    expect((await api.call('get', '/v1/memories/{id}/history', { params: { id: created.id }, query: nsQuery })).status).toBe(404);
    expect((await api.call('patch', '/v1/memories/{id}', { params: { id: created.id }, body: { namespace: ns, patch: { content: 'y' } } })).status).toBe(404);
  });

  it('an id reused for other content is 409 CONFLICT with the id in the way', async () => {
    const answer = await api.call('post', '/v1/memories', { body: { namespace: ns, id: 'TS20240315', content: 'something else' } });
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('CONFLICT');
  });
});

describe('recall and context', () => {
  it('recall finds the after-sales ticket for the Chinese question, with explain; minScore and where filters', async () => {
    const answer = await api.call('post', '/v1/recall', { body: { namespace: ns, query: '上次充电口的问题处理到哪一步了', k: 3 } });
    expect(answer.status).toBe(200);
    expect(answer.body.hits[0].record.content).toBe(STORY);
    const { contributions } = answer.body.hits[0].explain;
    expect(contributions.text + contributions.vector).toBeCloseTo(answer.body.hits[0].score, 10);
    const high = await api.call('post', '/v1/recall', { body: { namespace: ns, query: '上次充电口的问题处理到哪一步了', minScore: answer.body.hits[0].score + 1 } });
    expect(high.body.hits).toEqual([]);
    const filtered = await api.call('post', '/v1/recall', { body: { namespace: ns, query: '充电口', filters: { where: { key: 'status', eq: 'closed' } } } });
    expect(filtered.body.hits.map((h: { id: string }) => h.id)).not.toContain('TS20240315');
  });

  it('context: text, messages and the token report within the budget', async () => {
    const answer = await api.call('post', '/v1/context', { body: { namespace: ns, query: '上次充电口的问题处理到哪一步了', budget: 300, system: '你是售后客服助手。' } });
    expect(answer.status).toBe(200);
    expect(answer.body.text).toContain('TS20240315');
    expect(answer.body.messages[0].role).toBe('system');
    expect(answer.body.report.tokens).toBeLessThanOrEqual(300);
    const tooSmall = await api.call('post', '/v1/context', { body: { namespace: ns, budget: 1, system: '你是售后客服助手。' } });
    expect(tooSmall.status).toBe(400);
  });
});

describe('facts that change', () => {
  const user = { userId: 'mei' };
  const DAY2 = Date.UTC(2026, 2, 3, 9);
  const DAY3 = Date.UTC(2026, 2, 4, 9);

  it('a keyed remember closes the earlier fact of its key; profile, recall, list and context give the current one, asOf the earlier', async () => {
    const phone = await api.call('post', '/v1/memories', { body: { namespace: user, key: 'contact.channel', content: 'Mei prefers phone calls.', createdAt: DAY2 } });
    expect(phone.status).toBe(201);
    expect(phone.body).toMatchObject({ closed: [], record: { key: 'contact.channel', validFrom: DAY2, validUntil: null, closedBy: null } });
    const email = await api.call('post', '/v1/memories', { body: { namespace: user, key: 'contact.channel', content: 'Mei prefers e-mail, no more calls.', validFrom: '2026-03-04T09:00:00Z' } });
    expect(email.body).toMatchObject({ closed: [phone.body.id], record: { validFrom: DAY3 } });
    await api.call('post', '/v1/memories', { body: { namespace: user, content: 'Mei is allergic to peanuts.' } });

    const profile = await api.call('get', '/v1/profile', { query: user });
    expect(profile.body).toEqual({ profile: [{ key: 'contact.channel', content: 'Mei prefers e-mail, no more calls.', id: email.body.id, validFrom: DAY3 }] });
    const then = await api.call('get', '/v1/profile', { query: { ...user, asOf: String(DAY2 + 1) } });
    expect(then.body.profile.map((entry: { id: string }) => entry.id)).toEqual([phone.body.id]);
    expect((await api.call('get', '/v1/profile', { query: { ...user, asOf: '2026-03-03T12:00:00Z' } })).body.profile[0].id).toBe(phone.body.id);

    const closed = await api.call('get', '/v1/memories/{id}', { params: { id: phone.body.id }, query: user });
    expect(closed.body).toMatchObject({ validUntil: DAY3, closedBy: email.body.id });

    const recalled = await api.call('post', '/v1/recall', { body: { namespace: user, query: 'how does Mei like to be contacted, phone calls or e-mail' } });
    expect(recalled.body.hits.map((hit: { id: string }) => hit.id)).not.toContain(phone.body.id);
    const withClosed = await api.call('post', '/v1/recall', { body: { namespace: user, query: 'phone calls or e-mail', includeClosed: true } });
    expect(withClosed.body.hits.map((hit: { id: string }) => hit.id)).toEqual(expect.arrayContaining([phone.body.id, email.body.id]));
    const asOf = await api.call('post', '/v1/recall', { body: { namespace: user, query: 'phone calls or e-mail', asOf: DAY2 + 1 } });
    expect(asOf.body.hits.map((hit: { id: string }) => hit.id)).toContain(phone.body.id);
    expect(asOf.body.hits.map((hit: { id: string }) => hit.id)).not.toContain(email.body.id);

    const listed = await api.call('get', '/v1/memories', { query: { ...user, key: 'contact.channel' } });
    expect(listed.body.items.map((r: { id: string }) => r.id)).toEqual([email.body.id]);
    const versions = await api.call('get', '/v1/memories', { query: { ...user, key: 'contact.channel', includeClosed: 'true', order: 'asc' } });
    expect(versions.body.items.map((r: { id: string; validUntil: number | null }) => [r.id, r.validUntil])).toEqual([[phone.body.id, DAY3], [email.body.id, null]]);
    const listedThen = await api.call('get', '/v1/memories', { query: { ...user, key: 'contact.channel', asOf: '2026-03-03T12:00:00Z' } });
    expect(listedThen.body.items.map((r: { id: string }) => r.id)).toEqual([phone.body.id]);

    const context = await api.call('post', '/v1/context', { body: { namespace: user, query: 'how should we contact Mei', budget: 300 } });
    expect(context.body.text).toContain('contact.channel: Mei prefers e-mail, no more calls. (since 2026-03-04)');
    expect(context.body.text).not.toContain('phone calls.');
    expect(context.body.report.included.filter((item: { layer: string }) => item.layer === 'profile').map((item: { id: string }) => item.id)).toEqual([email.body.id]);
    const earlier = await api.call('post', '/v1/context', { body: { namespace: user, query: 'how should we contact Mei', budget: 300, asOf: DAY2 + 1 } });
    expect(earlier.body.text).toContain('Mei prefers phone calls.');
    const noProfile = await api.call('post', '/v1/context', { body: { namespace: user, query: 'how should we contact Mei', budget: 300, layers: { profile: false } } });
    expect(noProfile.body.report.included.some((item: { layer: string }) => item.layer === 'profile')).toBe(false);
  });

  it('forget where { key } forgets every version of the key', async () => {
    const forgotten = await api.call('post', '/v1/forget', { body: { namespace: user, filter: { key: 'contact.channel' } } });
    expect(forgotten.body.ids).toHaveLength(2);
    expect((await api.call('get', '/v1/profile', { query: user })).body).toEqual({ profile: [] });
    expect((await api.call('get', '/v1/memories', { query: { ...user, includeClosed: 'true' } })).body.items.map((r: { content: string }) => r.content)).toEqual(['Mei is allergic to peanuts.']);
  });
});

describe('namespaces, audit, stats, export and import, forget where / namespace / user', () => {
  it('lists namespaces, reads audit (no content) and stats', async () => {
    await api.call('post', '/v1/memories', { body: { namespace: { userId: 'wang', scope: 'q3' }, content: 'scoped note' } });
    const listed = await api.call('get', '/v1/namespaces', { query: { userId: 'wang' } });
    expect(listed.body.namespaces).toEqual([{ userId: 'wang', agentId: 'after-sales' }, { userId: 'wang', scope: 'q3' }]);
    const all = await api.call('get', '/v1/namespaces');
    expect(all.body.namespaces.length).toBeGreaterThanOrEqual(3);
    const audit = await api.call('get', '/v1/audit', { query: { ...nsQuery, limit: '2' } });
    expect(audit.body.entries).toHaveLength(2);
    expect(JSON.stringify(audit.body)).not.toContain('充电口');
    const after = await api.call('get', '/v1/audit', { query: { ...nsQuery, after: String(audit.body.entries[1].seq) } });
    expect(after.body.entries[0].seq).toBeGreaterThan(audit.body.entries[1].seq);
    const stats = await api.call('get', '/v1/stats', { query: nsQuery });
    expect(stats.body.count).toBe(3);
  });

  it('export a namespace and a user as JSONL, import it elsewhere (all or nothing unless skipInvalid)', async () => {
    const exported = await api.call('get', '/v1/export', { query: nsQuery });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const lines = exported.body.trim().split('\n');
    expect(lines).toHaveLength(4); // header + 3
    const user = await api.call('get', '/v1/users/{userId}/export', { params: { userId: 'wang' } });
    expect(user.body.trim().split('\n')).toHaveLength(5);
    const moved = exported.body.replaceAll('"userId":"wang"', '"userId":"li"').replaceAll('u=wang', 'u=li');
    const imported = await api.call('post', '/v1/import', { raw: moved, headers: { 'content-type': 'application/x-ndjson' } });
    expect(imported.status).toBe(200);
    expect(imported.body.imported).toBe(3);
    const bad = `${moved.trim()}\n{"record":{"nope":1}}\n`;
    const refused = await api.call('post', '/v1/import', { raw: bad.replaceAll('u=li', 'u=zhao').replaceAll('"userId":"li"', '"userId":"zhao"'), headers: { 'content-type': 'application/x-ndjson' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.lines.length).toBeGreaterThan(0);
    expect((await api.call('get', '/v1/stats', { query: { userId: 'zhao', agentId: 'after-sales' } })).body.count).toBe(0);
    const skipped = await api.call('post', '/v1/import', { query: { skipInvalid: 'true' }, raw: bad.replaceAll('u=li', 'u=zhao').replaceAll('"userId":"li"', '"userId":"zhao"'), headers: { 'content-type': 'application/x-ndjson' } });
    expect(skipped.body).toMatchObject({ imported: 3 });
    expect(skipped.body.failures.map((f: { line: number }) => f.line)).toContain(5); // the bad record line (the header's count is off too)
  });

  it('an import of a million bad lines answers at once with the first 100 and a count, and the service keeps serving (issue 29 item 3)', { timeout: 120_000 }, async () => {
    const lines = 1_000_000;
    const header = JSON.stringify({ format: 'zeromem-export', version: 1, exportedAt: 0, scope: { userId: 'garbage' }, records: lines, vectors: null });
    const body = `${header}\n${'x\n'.repeat(lines)}`;
    const refused = await api.call('post', '/v1/import', { raw: body, headers: { 'content-type': 'application/x-ndjson' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.lines).toHaveLength(100);
    expect(refused.body.error.details.failedLines).toBe(lines);
    expect(JSON.stringify(refused.body).length).toBeLessThan(64 * 1024);
    const skipped = await api.call('post', '/v1/import', { query: { skipInvalid: 'true' }, raw: body, headers: { 'content-type': 'application/x-ndjson' } });
    expect(skipped.status).toBe(200);
    expect(skipped.body).toMatchObject({ imported: 0, failed: lines });
    expect(skipped.body.failures.map((f: { line: number }) => f.line)).toEqual(Array.from({ length: 100 }, (_, i) => i + 2));
    expect((await api.call('get', '/v1/stats', { query: nsQuery })).status).toBe(200);
  });

  it('forget where (a filter is required), a namespace, a user', async () => {
    const where = await api.call('post', '/v1/forget', { body: { namespace: { userId: 'li', agentId: 'after-sales' }, filter: { where: { key: 'status', eq: 'closed' } } } });
    expect(where.body.ids).toHaveLength(1);
    const empty = await api.call('post', '/v1/forget', { body: { namespace: { userId: 'li', agentId: 'after-sales' }, filter: {} } });
    expect(empty.status).toBe(400);
    expect((await api.call('delete', '/v1/namespaces', { query: { userId: 'li', agentId: 'after-sales' } })).body).toEqual({ count: 2 });
    expect((await api.call('delete', '/v1/users/{userId}', { params: { userId: 'zhao' } })).body).toEqual({ count: 3 });
    expect((await api.call('get', '/v1/namespaces', { query: { userId: 'zhao' } })).body.namespaces).toEqual([]);
  });
});

describe('errors: every one is { error: { code, message, details } } with its status', () => {
  const cases: Array<[string, string, Parameters<Client['call']>[2], number, string, string?]> = [
    ['post', '/v1/memories', { body: { content: 'no namespace' } }, 400, 'NAMESPACE_REQUIRED'],
    ['post', '/v1/memories', { body: { namespace: { agentId: 'x' }, content: 'no user' } }, 400, 'INVALID_INPUT', 'namespace.userId'],
    ['post', '/v1/memories', { body: { namespace: ns, content: 7 } }, 400, 'INVALID_INPUT', 'content'],
    ['post', '/v1/memories', { body: { namespace: ns, content: 'x', colour: 'red' } }, 400, 'INVALID_INPUT'],
    ['post', '/v1/memories', { body: { namespace: ns, content: '   ' } }, 400, 'INVALID_INPUT', 'content'],
    ['post', '/v1/memories', { body: { namespace: ns, content: 'x', importance: 3 } }, 400, 'INVALID_INPUT', 'importance'],
    ['post', '/v1/memories', { raw: '{"namespace":', headers: { 'content-type': 'application/json' } }, 400, 'INVALID_INPUT'],
    ['post', '/v1/memories', { raw: 'content=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 400, 'INVALID_INPUT'],
    ['post', '/v1/memories', { body: { memories: [] } }, 400, 'INVALID_INPUT', 'memories'],
    ['post', '/v1/memories', { body: { memories: Array.from({ length: 6 }, (_, i) => ({ namespace: ns, content: `n${i}` })) } }, 413, 'PAYLOAD_TOO_LARGE'],
    ['post', '/v1/memories', { body: { namespace: ns, content: 'x'.repeat(70_000) } }, 413, 'PAYLOAD_TOO_LARGE'],
    ['get', '/v1/memories', { query: {} }, 400, 'NAMESPACE_REQUIRED'],
    ['get', '/v1/memories', { query: { ...nsQuery, limit: 'many' } }, 400, 'INVALID_INPUT', 'limit'],
    ['get', '/v1/memories', { query: { ...nsQuery, limit: '5000' } }, 400, 'INVALID_INPUT', 'limit'],
    ['get', '/v1/memories', { query: { ...nsQuery, cursor: 'forged' } }, 400, 'INVALID_INPUT', 'cursor'],
    ['get', '/v1/memories', { query: { ...nsQuery, where: '{not json' } }, 400, 'INVALID_INPUT', 'where'],
    ['get', '/v1/memories', { query: { ...nsQuery, where: '{"key":"a"}' } }, 400, 'INVALID_INPUT', 'where'],
    ['get', '/v1/memories/{id}', { params: { id: 'x' }, query: { agentId: 'a' } }, 400, 'NAMESPACE_REQUIRED'],
    ['get', '/v1/memories/{id}', { params: { id: 'bad id!' }, query: nsQuery }, 400, 'INVALID_INPUT', 'id'],
    ['patch', '/v1/memories/{id}', { params: { id: 'TS20240315' }, body: { namespace: ns, patch: { tags: 'x' } } }, 400, 'INVALID_INPUT', 'patch.tags'],
    ['post', '/v1/recall', { body: { namespace: ns, query: 'x', k: 0 } }, 400, 'INVALID_INPUT', 'k'],
    ['post', '/v1/recall', { body: { namespace: ns, query: 'x', minScore: -1 } }, 400, 'INVALID_INPUT', 'minScore'],
    ['post', '/v1/recall', { body: { namespace: ns } }, 400, 'INVALID_INPUT', 'query'],
    ['post', '/v1/context', { body: { namespace: ns, budget: -5 } }, 400, 'INVALID_INPUT', 'budget'],
    ['post', '/v1/context', { body: { namespace: ns, asOf: 'someday' } }, 400, 'INVALID_INPUT', 'asOf'],
    ['post', '/v1/memories', { body: { namespace: ns, content: 'x', key: 'Contact Channel' } }, 400, 'INVALID_INPUT', 'key'],
    ['post', '/v1/memories', { body: { namespace: ns, content: 'x', key: 'a.'.repeat(70) + 'b' } }, 400, 'INVALID_INPUT', 'key'],
    ['post', '/v1/memories', { body: { namespace: ns, content: 'x', validFrom: '2026-03-04' } }, 400, 'INVALID_INPUT', 'validFrom'],
    ['post', '/v1/memories', { body: { namespace: ns, content: 'x', key: 'contact.channel', validFrom: '2026-03-04', validUntil: '2026-03-01' } }, 400, 'INVALID_INPUT', 'validUntil'],
    ['post', '/v1/recall', { body: { namespace: ns, query: 'x', asOf: 'someday' } }, 400, 'INVALID_INPUT', 'asOf'],
    ['post', '/v1/recall', { body: { namespace: ns, query: 'x', includeClosed: 'yes' } }, 400, 'INVALID_INPUT', 'includeClosed'],
    ['get', '/v1/memories', { query: { ...nsQuery, includeClosed: 'yes' } }, 400, 'INVALID_INPUT', 'includeClosed'],
    ['get', '/v1/memories', { query: { ...nsQuery, key: 'BAD KEY' } }, 400, 'INVALID_INPUT', 'key'],
    ['get', '/v1/profile', { query: {} }, 400, 'NAMESPACE_REQUIRED'],
    ['get', '/v1/profile', { query: { ...nsQuery, asOf: 'someday' } }, 400, 'INVALID_INPUT', 'asOf'],
    ['get', '/v1/audit', { query: { ...nsQuery, limit: '0' } }, 400, 'INVALID_INPUT', 'limit'],
    ['delete', '/v1/users/{userId}', { params: { userId: ' ' } }, 400, 'INVALID_INPUT', 'userId'],
    ['post', '/v1/import', { raw: 'not jsonl', headers: { 'content-type': 'application/x-ndjson' } }, 400, 'INVALID_INPUT'],
    ['get', '/v1/nothing-here', {}, 404, 'NOT_FOUND'],
    ['put', '/v1/memories', { body: {} }, 404, 'NOT_FOUND'],
  ];
  it.each(cases.map((c) => [`${c[0]} ${c[1]} ${JSON.stringify(c[2]).slice(0, 120)} -> ${c[3]} ${c[4]}`, ...c] as const))('%s', async (_name, method, template, options, status, code, path) => {
    const before = (await api.call('get', '/v1/stats', { query: nsQuery })).body.count;
    const answer = await api.call(method, template, options);
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(answer.body.error.code).toBe(code);
    expect(typeof answer.body.error.message).toBe('string');
    expect(typeof answer.body.error.details).toBe('object');
    if (path !== undefined) expect(answer.body.error.details.issues?.map((i: { path: string }) => i.path)).toContain(path);
    expect((await api.call('get', '/v1/stats', { query: nsQuery })).body.count).toBe(before); // nothing written
  });
});

describe('coverage', () => {
  it('every documented operation was called and validated in this file', () => {
    const operations = Object.entries(api.doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`));
    const called = new Set([...api.checked].map((key) => key.split(' ').slice(0, 2).join(' ')));
    expect(operations.filter((op) => !called.has(op))).toEqual([]);
  });
});
