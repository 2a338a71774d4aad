import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AuditEntry, type ListPage, type Memory, type Namespace } from '../src/index.ts';
import { hashingEmbedder } from '../../../test/kit/hashing-embedder.ts';
import { expectCode, openTestMemory, type TestMemory } from './helpers.ts';

const ns: Namespace = { userId: 'u1' };
const HOUR = 3_600_000;
const AUDIT_FIELDS = ['actor', 'at', 'id', 'namespace', 'op', 'seq'];

afterEach(() => {
  vi.useRealTimers();
});

/** Lets pending IndexedDB work and promise callbacks run, without timers. */
async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Every read a caller has, for "is it returned anywhere?" checks. */
async function visibleIds(memory: Memory, namespace: Namespace): Promise<{ listed: string[]; count: number; statsCount: number }> {
  return {
    listed: (await memory.list(namespace, { limit: 1000 })).items.map((r) => r.id),
    count: await memory.count(namespace),
    statsCount: (await memory.stats(namespace)).count,
  };
}

/** Asserts the audit log has no content or hash, in its public entries and in its stored rows. */
async function expectAuditHasNoContent(t: TestMemory, namespace: Namespace): Promise<AuditEntry[]> {
  const entries = await t.memory.audit(namespace);
  for (const entry of entries) expect(Object.keys(entry).sort()).toEqual(AUDIT_FIELDS);
  for (const row of (await t.stores()).audit!) {
    expect(Object.keys(row as object).sort()).toEqual([...AUDIT_FIELDS, 'ns'].sort());
  }
  return entries;
}

describe('TTL (fake clock, no sleeping)', () => {
  it('an expired record is returned by no read, and sweep() deletes it, counts it and audits "expire"', async () => {
    const t = await openTestMemory();
    const { memory, clock } = t;
    const keep = await memory.remember({ namespace: ns, content: 'keeps forever' });
    const brief = await memory.remember({ namespace: ns, content: 'expires in an hour', ttl: '1h', tags: ['t'] });
    expect(brief.record.expiresAt).toBe(clock.now() + HOUR);

    clock.advance(HOUR - 1); // one millisecond before expiry: still there
    expect((await memory.get(ns, brief.id))?.id).toBe(brief.id);
    expect((await visibleIds(memory, ns)).count).toBe(2);

    clock.advance(1); // expiresAt <= now: expired
    expect(await memory.get(ns, brief.id)).toBeUndefined();
    expect(await visibleIds(memory, ns)).toEqual({ listed: [keep.id], count: 1, statsCount: 1 });
    expect((await memory.list(ns, { tags: { any: ['t'] } })).items).toEqual([]);
    expect(await memory.count(ns, { tags: { all: ['t'] } })).toBe(0);
    expect((await memory.stats(ns)).expiredPendingSweep).toBe(1);
    await expectCode(memory.update(ns, brief.id, { importance: 1 }), 'NOT_FOUND');

    const stored = await t.stores();
    expect(stored.records).toHaveLength(2); // still stored until swept, never returned
    expect(await memory.sweep()).toBe(1);
    expect((await t.stores()).records).toHaveLength(1);
    expect(await t.dump()).not.toContain('expires in an hour');
    expect((await memory.stats(ns)).expiredPendingSweep).toBe(0);
    expect(await memory.sweep()).toBe(0);

    const log = await expectAuditHasNoContent(t, ns);
    expect(log.map((e) => [e.op, e.id, e.actor, e.at])).toEqual([
      ['remember', keep.id, 'local', keep.record.createdAt],
      ['remember', brief.id, 'local', brief.record.createdAt],
      ['expire', brief.id, 'sweep', clock.now()],
    ]);
  });

  it('sweep() covers every namespace and all expiry forms (ttl, expiresAt, ttl from an old createdAt)', async () => {
    const { memory, clock } = await openTestMemory();
    const now = clock.now();
    await memory.remember({ namespace: ns, content: 'a', ttl: 1000 });
    await memory.remember({ namespace: { userId: 'u2' }, content: 'b', expiresAt: new Date(now + 500) });
    await memory.remember({ namespace: { userId: 'u2', agentId: 'x' }, content: 'c', createdAt: now - HOUR, ttl: '1h1s' });
    await memory.remember({ namespace: { userId: 'u3' }, content: 'd', expiresAt: '2030-01-01T00:00:00Z' });
    clock.advance(1000);
    expect(await memory.sweep()).toBe(3);
    expect(await memory.count({ userId: 'u3' })).toBe(1);
  });

  it('an expired record is not in a watched page after the next change', async () => {
    const t = await openTestMemory();
    const { memory, clock } = t;
    const brief = await memory.remember({ namespace: ns, content: 'brief', ttl: '1m' });
    const pages: ListPage[] = [];
    const stop = memory.watch(ns, undefined, (page) => pages.push(page));
    await vi.waitFor(() => expect(pages).toHaveLength(1));
    expect(pages[0]!.items.map((r) => r.id)).toEqual([brief.id]);
    clock.advance(2 * 60_000);
    const later = await memory.remember({ namespace: ns, content: 'later' });
    await vi.waitFor(() => expect(pages.length).toBeGreaterThan(1));
    expect(pages.at(-1)!.items.map((r) => r.id)).toEqual([later.id]);
    stop();
  });

  it('remembering the content of an expired record makes a new one and retires the old', async () => {
    const t = await openTestMemory();
    const { memory, clock } = t;
    const old = await memory.remember({ namespace: ns, content: 'Port is loose', ttl: '1h' });
    clock.advance(2 * HOUR);
    const fresh = await memory.remember({ namespace: ns, content: 'Port is loose' });
    expect(fresh.deduplicated).toBe(false);
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.record.expiresAt).toBeNull();
    expect((await t.stores()).records).toHaveLength(1);
    expect((await memory.audit(ns)).map((e) => [e.op, e.id])).toEqual([
      ['remember', old.id],
      ['expire', old.id],
      ['remember', fresh.id],
    ]);
  });

  it('forget() of an expired record deletes it, returns false and audits an expiry', async () => {
    const t = await openTestMemory();
    const { id } = await t.memory.remember({ namespace: ns, content: 'gone soon', ttl: '1s' });
    t.clock.advance(1000);
    expect(await t.memory.forget(ns, id)).toBe(false);
    expect((await t.stores()).records).toEqual([]);
    expect((await t.memory.audit(ns)).map((e) => [e.op, e.actor])).toEqual([
      ['remember', 'local'],
      ['expire', 'sweep'],
    ]);
  });

  it('the sweepEveryMs timer runs sweep(), and close() stops it', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const errors: unknown[] = [];
    const t = await openTestMemory({ sweepEveryMs: 5_000, onBackgroundError: (err) => errors.push(err) });
    const { memory, clock } = t;
    await memory.remember({ namespace: ns, content: 'short lived', ttl: '10s' });
    await memory.remember({ namespace: ns, content: 'stays' });
    expect(vi.getTimerCount()).toBe(1);

    vi.advanceTimersByTime(5_000); // a tick with nothing expired yet
    await settle();
    expect((await t.stores()).records).toHaveLength(2);

    clock.advance(10_000);
    vi.advanceTimersByTime(5_000);
    for (let i = 0; i < 50 && (await t.stores()).records!.length > 1; i++) await settle(2);
    expect((await t.stores()).records).toHaveLength(1);
    expect((await memory.audit(ns)).filter((e) => e.op === 'expire')).toHaveLength(1);

    await memory.close();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(20_000); // no tick after close, so no CLOSED error either
    await settle();
    expect(errors).toEqual([]);
  });
});

describe('update()', () => {
  it('moves updatedAt and version, keeps createdAt, and recomputes the hash only when content changes', async () => {
    const { memory, clock } = await openTestMemory();
    const { id, record } = await memory.remember({ namespace: ns, content: 'Prefers  email', tags: ['contact'] });
    clock.advance(5000);
    const tagged = await memory.update(ns, id, { tags: ['contact', 'channel'], metadata: { k: 1 } });
    expect(tagged).toMatchObject({ version: 2, createdAt: record.createdAt, updatedAt: record.createdAt + 5000, contentHash: record.contentHash });
    expect(tagged.tags).toEqual(['contact', 'channel']);

    clock.advance(5000);
    const same = await memory.update(ns, id, { content: ' Prefers email ' }); // same normalized content
    expect(same.contentHash).toBe(record.contentHash);
    expect(same.content).toBe(' Prefers email ');

    clock.advance(5000);
    const changed = await memory.update(ns, id, { content: 'Prefers phone' });
    expect(changed.contentHash).not.toBe(record.contentHash);
    expect(changed.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(changed).toMatchObject({ version: 4, updatedAt: record.createdAt + 15_000 });
    // The new hash is the one a fresh remember of that content gets (it deduplicates to this record).
    const again = await memory.remember({ namespace: ns, content: 'Prefers   phone' });
    expect(again).toMatchObject({ id, deduplicated: true });
    expect(await memory.get(ns, id)).toEqual({ ...changed });
  });

  it('updatedAt never goes back when the clock does', async () => {
    const { memory, clock } = await openTestMemory();
    const { id, record } = await memory.remember({ namespace: ns, content: 'x' });
    clock.advance(-60_000);
    const updated = await memory.update(ns, id, { importance: 0.9 });
    expect(updated.updatedAt).toBe(record.updatedAt);
    expect(updated.version).toBe(2);
  });

  it('changes expiry: ttl from now, expiresAt null for never', async () => {
    const { memory, clock } = await openTestMemory();
    const { id } = await memory.remember({ namespace: ns, content: 'x', ttl: '1h' });
    clock.advance(30 * 60_000);
    expect((await memory.update(ns, id, { ttl: '2h' })).expiresAt).toBe(clock.now() + 2 * HOUR);
    expect((await memory.update(ns, id, { expiresAt: null })).expiresAt).toBeNull();
    clock.advance(100 * HOUR);
    expect(await memory.get(ns, id)).toBeDefined();
  });

  it('ifVersion: CONFLICT with the stored version when it does not match, success when it does', async () => {
    const t = await openTestMemory();
    const { id } = await t.memory.remember({ namespace: ns, content: 'x' });
    await t.memory.update(ns, id, { importance: 0.1 });
    const err = await expectCode(t.memory.update(ns, id, { importance: 0.2 }, { ifVersion: 1 }), 'CONFLICT');
    expect(err.details.currentVersion).toBe(2);
    expect((await t.memory.get(ns, id))?.importance).toBe(0.1);
    expect((await t.memory.update(ns, id, { importance: 0.3 }, { ifVersion: 2 })).version).toBe(3);
    expect((await t.memory.audit(ns)).map((e) => e.op)).toEqual(['remember', 'update', 'update']);
  });

  it('content equal to another record of the namespace: CONFLICT naming it; in another namespace: fine', async () => {
    const { memory } = await openTestMemory();
    const a = await memory.remember({ namespace: ns, content: 'alpha' });
    const b = await memory.remember({ namespace: ns, content: 'beta' });
    await memory.remember({ namespace: { userId: 'u2' }, content: 'gamma' });
    const err = await expectCode(memory.update(ns, b.id, { content: ' alpha' }), 'CONFLICT');
    expect(err.details.existingId).toBe(a.id);
    expect((await memory.get(ns, b.id))?.content).toBe('beta');
    expect((await memory.update(ns, b.id, { content: 'gamma' })).content).toBe('gamma');
  });

  it('content equal to an expired record: the expired one is retired, the update goes through', async () => {
    const t = await openTestMemory();
    const old = await t.memory.remember({ namespace: ns, content: 'alpha', ttl: '1s' });
    const b = await t.memory.remember({ namespace: ns, content: 'beta' });
    t.clock.advance(1000);
    expect((await t.memory.update(ns, b.id, { content: 'alpha' })).content).toBe('alpha');
    expect((await t.stores()).records).toHaveLength(1);
    expect((await t.memory.audit(ns)).slice(-2).map((e) => [e.op, e.id])).toEqual([
      ['expire', old.id],
      ['update', b.id],
    ]);
  });

  it('NOT_FOUND for a missing, forgotten, expired, or other-namespace record', async () => {
    const { memory, clock } = await openTestMemory();
    const { id } = await memory.remember({ namespace: ns, content: 'x' });
    const brief = await memory.remember({ namespace: ns, content: 'y', ttl: '1s' });
    await expectCode(memory.update(ns, 'nope', { importance: 1 }), 'NOT_FOUND');
    await expectCode(memory.update({ userId: 'u2' }, id, { importance: 1 }), 'NOT_FOUND');
    await expectCode(memory.update({ userId: 'u1', agentId: 'a' }, id, { importance: 1 }), 'NOT_FOUND');
    clock.advance(1000);
    await expectCode(memory.update(ns, brief.id, { importance: 1 }), 'NOT_FOUND');
    await memory.forget(ns, id);
    await expectCode(memory.update(ns, id, { importance: 1 }, { ifVersion: 1 }), 'NOT_FOUND');
  });
});

describe('forgetting leaves nothing behind', () => {
  const SECRET = 'door-code-4711-xyzzy';

  /** Opens a memory with an embedder (so vectors are stored too) and a secret among other records. */
  async function withSecret(namespace: Namespace = ns, historyDepth?: number) {
    const t = await openTestMemory({ embedder: hashingEmbedder(), ...(historyDepth === undefined ? {} : { historyDepth }) });
    const secret = await t.memory.remember({
      namespace,
      content: `The ${SECRET} opens the back door`,
      tags: ['secret', SECRET],
      metadata: { note: SECRET, nested: { deeper: [SECRET] } },
    });
    const other = await t.memory.remember({ namespace, content: 'The front door is blue', tags: ['secret'] });
    await t.memory.whenEmbedded();
    const before = await t.dump();
    expect(before).toContain(SECRET);
    expect(before).toContain(secret.record.contentHash);
    expect((await t.stores()).vectors).toHaveLength(2);
    return { t, secret, other };
  }

  /** The secret, its hash and its vector are gone from every object store; the audit keeps only ids. */
  async function expectGone(t: TestMemory, namespace: Namespace, secretHash: string): Promise<void> {
    const dump = await t.dump();
    expect(dump).not.toContain(SECRET);
    expect(dump).not.toContain(secretHash);
    expect(((await t.stores()).vectors as Array<{ hash: string }>).map((v) => v.hash)).not.toContain(secretHash);
    const hits = await t.memory.recall(namespace, `${SECRET} back door`, { trackAccess: false });
    expect(hits.hits.map((h) => h.record.content).join('\n')).not.toContain(SECRET);
    await expectAuditHasNoContent(t, namespace);
  }

  it('forget()', async () => {
    const { t, secret, other } = await withSecret();
    expect(await t.memory.forget(ns, secret.id, { actor: 'gdpr-bot' })).toBe(true);
    await expectGone(t, ns, secret.record.contentHash);
    expect(await t.memory.forget(ns, secret.id)).toBe(false);
    expect((await t.memory.get(ns, other.id))?.content).toBe('The front door is blue');
    expect((await t.memory.audit(ns)).at(-1)).toMatchObject({ op: 'forget', id: secret.id, actor: 'gdpr-bot', namespace: ns });
  });

  it('forgetWhere()', async () => {
    const { t, secret, other } = await withSecret();
    expect(await t.memory.forgetWhere(ns, { tags: { all: ['secret', SECRET] } })).toEqual([secret.id]);
    await expectGone(t, ns, secret.record.contentHash);
    expect(await t.memory.count(ns)).toBe(1);
    expect(await t.memory.forgetWhere(ns, { metadata: { note: SECRET } })).toEqual([]);
    expect((await t.memory.get(ns, other.id))?.id).toBe(other.id);
  });

  it('forgetNamespace()', async () => {
    const { t, secret } = await withSecret();
    expect(await t.memory.forgetNamespace(ns)).toBe(2);
    await expectGone(t, ns, secret.record.contentHash);
    expect((await t.stores()).records).toEqual([]);
    expect((await t.memory.audit(ns)).filter((e) => e.op === 'forget')).toHaveLength(2);
  });

  it('forgetUser()', async () => {
    const scoped = { userId: 'u1', agentId: 'bot', scope: 'thread-9' };
    const { t, secret } = await withSecret(scoped);
    expect(await t.memory.forgetUser('u1')).toBe(2);
    await expectGone(t, scoped, secret.record.contentHash);
  });

  it('update() of the content leaves no trace of the old content when no history is kept', async () => {
    const { t, secret } = await withSecret(ns, 0);
    await t.memory.update(ns, secret.id, { content: 'The back door has a new code', tags: ['door'], metadata: {} });
    await t.memory.whenEmbedded();
    await expectGone(t, ns, secret.record.contentHash);
  });

  it('a vector shared by equal content elsewhere stays until its last record goes', async () => {
    const t = await openTestMemory({ embedder: hashingEmbedder() });
    const content = `shared ${SECRET}`;
    const a = await t.memory.remember({ namespace: ns, content });
    await t.memory.remember({ namespace: { userId: 'u2' }, content });
    await t.memory.whenEmbedded();
    expect((await t.stores()).vectors).toHaveLength(1);
    await t.memory.forget(ns, a.id);
    expect((await t.stores()).vectors).toHaveLength(1);
    expect(await t.memory.forgetUser('u2')).toBe(1);
    await expectGone(t, { userId: 'u2' }, a.record.contentHash);
  });
});

describe('forgetNamespace() and forgetUser() reach exactly as far as they say', () => {
  async function populated() {
    const t = await openTestMemory();
    const spaces: Namespace[] = [
      { userId: 'u1' },
      { userId: 'u1', agentId: 'a' },
      { userId: 'u1', scope: 's' },
      { userId: 'u1', agentId: 'a', scope: 's' },
      { userId: 'u10' },
      { userId: 'u' },
      { userId: 'U1' },
      { userId: 'u2', agentId: 'u1' },
    ];
    for (const [i, namespace] of spaces.entries()) {
      await t.memory.rememberMany([
        { namespace, content: 'same in every namespace' },
        { namespace, content: `own ${i}` },
      ]);
    }
    return { t, spaces };
  }

  it('forgetNamespace({ userId }) leaves { userId, agentId } and { userId, scope } alone', async () => {
    const { t, spaces } = await populated();
    expect(await t.memory.forgetNamespace({ userId: 'u1' })).toBe(2);
    expect(await Promise.all(spaces.map((s) => t.memory.count(s)))).toEqual([0, 2, 2, 2, 2, 2, 2, 2]);
    expect(await t.memory.forgetNamespace({ userId: 'u1', agentId: 'a' })).toBe(2);
    expect(await Promise.all(spaces.map((s) => t.memory.count(s)))).toEqual([0, 0, 2, 2, 2, 2, 2, 2]);
    expect(await t.memory.forgetNamespace({ userId: 'nobody' })).toBe(0);
  });

  it("forgetUser() removes all of the user's namespaces and nothing of users with similar ids", async () => {
    const { t, spaces } = await populated();
    expect(await t.memory.forgetUser('u1')).toBe(8);
    expect(await Promise.all(spaces.map((s) => t.memory.count(s)))).toEqual([0, 0, 0, 0, 2, 2, 2, 2]);
    expect((await t.stores()).records).toHaveLength(8);
    for (const namespace of spaces.slice(0, 4)) {
      expect((await t.memory.audit(namespace)).map((e) => e.op)).toEqual(['remember', 'remember', 'forget', 'forget']);
    }
    expect(await t.memory.forgetUser('u1')).toBe(0);
  });
});

describe('audit()', () => {
  it('records op, id, namespace, time and actor (default, per memory, per call), and nothing else', async () => {
    const t = await openTestMemory({ actor: 'agent-7' });
    const { memory, clock } = t;
    const start = clock.now();
    const a = await memory.remember({ namespace: ns, content: 'a' });
    clock.advance(10);
    const b = await memory.remember({ namespace: ns, content: 'b' }, { actor: 'importer' });
    clock.advance(10);
    await memory.update(ns, a.id, { importance: 0.8 }, { actor: 'editor' });
    clock.advance(10);
    await memory.remember({ namespace: ns, content: 'a', importance: 0.9 }); // a duplicate that raises importance: an update
    clock.advance(10);
    await memory.forget(ns, b.id);
    await memory.remember({ namespace: { userId: 'u2' }, content: 'elsewhere' });
    const log = await expectAuditHasNoContent(t, ns);
    expect(log.map(({ op, id, namespace, at, actor }) => ({ op, id, namespace, at, actor }))).toEqual([
      { op: 'remember', id: a.id, namespace: ns, at: start, actor: 'agent-7' },
      { op: 'remember', id: b.id, namespace: ns, at: start + 10, actor: 'importer' },
      { op: 'update', id: a.id, namespace: ns, at: start + 20, actor: 'editor' },
      { op: 'update', id: a.id, namespace: ns, at: start + 30, actor: 'agent-7' },
      { op: 'forget', id: b.id, namespace: ns, at: start + 40, actor: 'agent-7' },
    ]);
    const seqs = log.map((e) => e.seq);
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect((await memory.audit({ userId: 'u2' })).map((e) => e.op)).toEqual(['remember']);
  });

  it('pages with after (exclusive) and limit, oldest first', async () => {
    const { memory } = await openTestMemory();
    await memory.rememberMany(Array.from({ length: 7 }, (_, i) => ({ namespace: ns, content: `r${i}` })));
    await memory.remember({ namespace: { userId: 'other' }, content: 'interleaved' });
    await memory.rememberMany(Array.from({ length: 5 }, (_, i) => ({ namespace: ns, content: `s${i}` })));
    const all = await memory.audit(ns);
    expect(all).toHaveLength(12);
    const paged: AuditEntry[] = [];
    let after = 0;
    for (;;) {
      const page = await memory.audit(ns, { after, limit: 5 });
      expect(page.length).toBeLessThanOrEqual(5);
      if (page.length === 0) break;
      paged.push(...page);
      after = page.at(-1)!.seq;
    }
    expect(paged).toEqual(all);
    expect(await memory.audit(ns, { after: all.at(-1)!.seq })).toEqual([]);
    expect(await memory.audit(ns, { after: all[2]!.seq, limit: 2 })).toEqual(all.slice(3, 5));
  });
});
