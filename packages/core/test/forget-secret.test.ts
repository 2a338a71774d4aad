import { IDBFactory } from 'fake-indexeddb';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { namespaceKey, type Embedder, type Namespace } from '../src/index.ts';
import { historyInternals, memoryInternals } from '../src/test-hooks.ts';
import { replicaOf } from '../src/internal.ts';
import { contentHash } from '../src/model/content-hash.ts';
import { MemoryDatabase } from '../src/store/dexie/database.ts';
import { hashingEmbedder } from '../../../test/kit/hashing-embedder.ts';
import { expectCode, openTestMemory, type TestMemory } from './helpers.ts';
import { databaseTraces, indexTraces, recordingTokenizer } from './traces.ts';

const SECRET = 'The vault code is quokka-7731-xylophone';
/** The secret, its distinctive words (what an index keeps) and its content hash (what identifies it). */
async function needles(secret = SECRET): Promise<string[]> {
  return [secret, 'quokka', 'xylophone', await contentHash(secret)];
}

/** Uses the secret every way the lifecycle can: recalled, used, aged, planned for merging, exported. */
async function touchEverything(t: TestMemory, namespaces: Namespace[]): Promise<string[]> {
  const ids: string[] = [];
  for (const ns of namespaces) {
    // A conversation turn (session and seq), so recall's turn order holds it too.
    const { id } = await t.memory.remember({ namespace: ns, content: SECRET, tags: ['secret'], importance: 0.2, metadata: { session: 'chat-7', seq: 2 } });
    ids.push(id);
    await t.memory.remember({ namespace: ns, content: 'Prefers phone calls over e-mail', tags: ['contact'], metadata: { session: 'chat-7', seq: 3 } });
  }
  await t.memory.whenEmbedded();
  for (const [i, ns] of namespaces.entries()) {
    expect((await t.memory.recall(ns, 'vault code quokka')).hits[0]?.id).toBe(ids[i]);
    await t.memory.markUsed(ns, [ids[i]!]);
    await t.memory.consolidate(ns, { dryRun: true });
    expect(await t.memory.exportJsonl({ namespace: ns }, { vectors: true })).toContain(SECRET);
    const built = await t.memory.buildContext({ namespace: ns, query: 'vault code quokka', fullHistory: true });
    expect(built.text).toContain(SECRET); // its line was counted (and cached) for the context and the full history
  }
  t.clock.advance(60 * 86_400_000);
  expect((await t.memory.retier()).cooled).toBeGreaterThan(0); // tier data written for the secret's records
  return ids;
}

/** An embedder that blocks inside its first call until released; `started` resolves once that call began. */
function blockedEmbedder(): { embedder: Embedder; started: Promise<void>; release: () => void } {
  let release!: () => void;
  let begin!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (begin = resolve));
  const inner = hashingEmbedder();
  const embedder: Embedder = { ...inner, embed: async (texts, kind) => (begin(), await gate, inner.embed(texts, kind)) };
  return { embedder, started, release };
}

describe('a forgotten secret leaves no trace', () => {
  it('the search finds a secret in any store, including one added later, and in binary values (control)', async () => {
    const factory = new IDBFactory();
    await new Promise<void>((resolve, reject) => {
      const request = factory.open('control', 1);
      request.onupgradeneeded = () => {
        request.result.createObjectStore('records', { keyPath: 'id' }).put({ id: 'a', content: 'nothing here' });
        request.result.createObjectStore('snapshotsAddedLater').put({ blob: new TextEncoder().encode(`...${SECRET}...`) }, 'k');
      };
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
    });
    expect(await databaseTraces({ engine: 'dexie', indexedDB: factory }, 'control', [SECRET, 'nothing here'])).toEqual([`records: nothing here`, `snapshotsAddedLater: ${SECRET}`]);
  });

  it('after forget(): not in any table, not in the loaded index (records, words, vectors)', async () => {
    const counts = await recordingTokenizer();
    const t = await openTestMemory({ embedder: hashingEmbedder(), tokenizer: counts.tokenizer });
    const ns = { userId: 'u1', agentId: 'support' };
    const [id] = await touchEverything(t, [ns]);
    const look = await needles();
    const secretTexts = [...counts.counted].filter((text) => text.includes('quokka'));
    expect(secretTexts.length).toBeGreaterThan(0);
    expect(secretTexts.filter((text) => counts.cached(text))).toEqual(secretTexts); // control: the token-count cache keeps them
    const historyCounts = historyInternals.get(t.memory)!;
    expect((await historyCounts.countedIds()).get(namespaceKey(ns))).toContain(id); // control: the full-history count holds it
    // Control: before forgetting, the search does find it, in the records, the vectors and the index.
    expect(await databaseTraces(t.place, t.name, look)).toEqual(expect.arrayContaining([`records: ${SECRET}`, `vectors: ${look[3]}`]));
    expect(indexTraces(t.memory, look, [id!])).toEqual(expect.arrayContaining([`index u=u1;a=support: quokka`, `index u=u1;a=support: record ${id}`]));
    const turns = () => [...memoryInternals.get(t.memory)!.indexes.loaded(memoryInternals.get(t.memory)!.indexes.loadedKeys()[0]!)!.turns.entries()].map(([, turn]) => turn);
    expect(turns()).toContain(id); // control: the turn order holds the secret's turn

    // The search covers every table of the schema (today records, audit, vectors, snapshots; any added later too).
    const tables = new MemoryDatabase(t.name).tables.map((table) => table.name).sort();
    expect(tables.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(await t.stores()).sort()).toEqual(tables); // ...and they are the object stores searched

    expect(await t.memory.forget(ns, id!)).toBe(true);
    expect(await databaseTraces(t.place, t.name, look)).toEqual([]);
    expect(indexTraces(t.memory, look, [id!])).toEqual([]); // at once, before any recall
    expect(turns()).not.toContain(id); // nor in the turn order recall reads neighbours from
    expect(secretTexts.filter((text) => counts.cached(text))).toEqual([]); // the token-count cache keeps no line of it
    expect((await historyCounts.countedIds()).get(namespaceKey(ns))).not.toContain(id); // nor does the full-history count
    expect(await t.memory.count(ns)).toBe(1); // the other memory stays
    expect((await t.memory.recall(ns, 'vault code quokka xylophone', { includeCold: true })).hits.map((h) => h.record.content)).not.toContain(SECRET);
    expect((await t.memory.audit(ns)).filter((e) => e.id === id).map((e) => e.op)).toContain('forget'); // ids only
  });

  it('after forgetUser(): not in any table or index, in any of the user\'s namespaces; other users keep theirs', async () => {
    const t = await openTestMemory({ embedder: hashingEmbedder() });
    const namespaces = [{ userId: 'u1' }, { userId: 'u1', agentId: 'sales' }, { userId: 'u1', agentId: 'sales', scope: 'q3' }];
    const ids = await touchEverything(t, namespaces);
    const other = { userId: 'u10' }; // a userId the user's id is a prefix of
    await t.memory.remember({ namespace: other, content: 'Another user: the boat is called xylophone' });
    await t.memory.recall(other, 'boat');
    const look = await needles();

    expect(await t.memory.forgetUser('u1')).toBe(6);
    expect(await databaseTraces(t.place, t.name, look.filter((n) => n !== 'xylophone'))).toEqual([]);
    expect(indexTraces(t.memory, look.filter((n) => n !== 'xylophone'), ids)).toEqual([]);
    // The only xylophone left is the other user's own memory.
    expect(await databaseTraces(t.place, t.name, ['xylophone'])).toEqual(['records: xylophone']);
    expect(indexTraces(t.memory, ['xylophone', 'quokka'], ids)).toEqual(['index u=u10: xylophone']);
  });

  it('history: a secret replaced by an update stays in the record\'s history until any forget, which takes it too', async () => {
    const look = await needles();
    const forgets: Array<[string, (t: TestMemory, ns: Namespace, id: string) => Promise<unknown>]> = [
      ['forget', (t, ns, id) => t.memory.forget(ns, id)],
      ['forgetWhere', (t, ns) => t.memory.forgetWhere(ns, { tags: { any: ['secret'] } })],
      ['forgetNamespace', (t, ns) => t.memory.forgetNamespace(ns)],
      ['forgetUser', (t, ns) => t.memory.forgetUser(ns.userId)],
      ['expiry + sweep', async (t) => (t.clock.advance(2 * 3_600_000), t.memory.sweep())],
    ];
    for (const [how, forgetIt] of forgets) {
      const t = await openTestMemory({ embedder: hashingEmbedder() });
      const ns = { userId: 'u1', agentId: 'support' };
      const { id } = await t.memory.remember({ namespace: ns, content: SECRET, tags: ['secret'], ttl: '1h' });
      await t.memory.update(ns, id, { content: 'The vault code was changed' });
      await t.memory.whenEmbedded();
      // Control: the current record no longer holds the secret, its history does.
      expect((await t.memory.get(ns, id))!.content).not.toContain('quokka');
      expect((await t.memory.history(ns, id)).map((v) => v.content)).toEqual([SECRET]);
      expect(await databaseTraces(t.place, t.name, look), how).toEqual(expect.arrayContaining([`records: ${SECRET}`]));
      await forgetIt(t, ns, id);
      expect(await databaseTraces(t.place, t.name, look), how).toEqual([]);
      await expectCode(t.memory.history(ns, id), 'NOT_FOUND');
    }
  });

  it('a secret forgotten while its embedding is still queued leaves the queue at once, and no vector is stored later', async () => {
    const { embedder, started, release } = blockedEmbedder();
    const t = await openTestMemory({ embedder });
    const ns = { userId: 'u1' };
    await t.memory.remember({ namespace: ns, content: 'Prefers phone calls' });
    await started; // the first batch is now inside the (blocked) embedder
    const { id } = await t.memory.remember({ namespace: ns, content: SECRET });
    expect(t.memory.pendingEmbeddings()).toBe(2);
    expect(await t.memory.forget(ns, id)).toBe(true);
    expect(t.memory.pendingEmbeddings()).toBe(1); // the secret's job, and its text, are gone
    release();
    await t.memory.whenEmbedded();
    expect(await databaseTraces(t.place, t.name, await needles())).toEqual([]);
    expect(((await t.stores()).vectors as unknown[]).length).toBe(1);
  });
});

describe('records deleted by maintenance leave the embedding queue at once', () => {
  async function blocked() {
    const { embedder, started, release } = blockedEmbedder();
    const t = await openTestMemory({ embedder });
    const ns = { userId: 'u1' };
    await t.memory.remember({ namespace: ns, content: 'Prefers phone calls' });
    await started; // this job stays queued inside the blocked embedder
    return { t, ns, release };
  }

  it('sweep() drops the queued jobs (and text) of the expired records it deleted', async () => {
    const { t, ns, release } = await blocked();
    await t.memory.remember({ namespace: ns, content: SECRET, ttl: '1h' });
    expect(t.memory.pendingEmbeddings()).toBe(2);
    t.clock.advance(2 * 3_600_000);
    expect(await t.memory.sweep()).toBe(1);
    expect(t.memory.pendingEmbeddings()).toBe(1);
    release();
    await t.memory.whenEmbedded();
    expect(await databaseTraces(t.place, t.name, await needles())).toEqual([]);
  });

  it('consolidate() drops the queued jobs of the records it merged away', async () => {
    const { t, ns, release } = await blocked();
    await t.memory.remember({ namespace: ns, content: SECRET });
    t.clock.advance(1000);
    const { id: keepId } = await t.memory.remember({ namespace: ns, content: `${SECRET.toUpperCase()}!` });
    expect(t.memory.pendingEmbeddings()).toBe(3);
    const { groups } = await t.memory.consolidate(ns);
    expect(groups.map((g) => g.keepId)).toEqual([keepId]);
    expect(t.memory.pendingEmbeddings()).toBe(2); // the survivor's job stays, the merged-away one's is gone
    release();
    await t.memory.whenEmbedded();
    expect(await databaseTraces(t.place, t.name, await needles())).toEqual([]);
  });

  it('importJsonl() drops the queued jobs of the expired rows it deleted on the way', async () => {
    const { t, ns, release } = await blocked();
    await t.memory.remember({ namespace: ns, content: SECRET, ttl: '1h' });
    t.clock.advance(2 * 3_600_000);
    const other = await openTestMemory({ clock: t.clock });
    await other.memory.remember({ namespace: ns, content: SECRET });
    const result = await t.memory.importJsonl(await other.memory.exportJsonl({ namespace: ns }));
    expect(result.imported).toBe(1);
    expect(t.memory.pendingEmbeddings()).toBe(2); // the blocked job and the imported record's; the expired row's is gone
    release();
    await t.memory.whenEmbedded();
    expect(await t.memory.count(ns)).toBe(2);
  });

  it('a replica apply() drops the queued job of a record another replica forgot', async () => {
    const { t, ns, release } = await blocked();
    const state = { id: 'r1', content: SECRET, source: 'user', layer: 'long_term', tags: [], metadata: {}, importance: 0.5, createdAt: 1, updatedAt: 1, expiresAt: null, version: 1, mergedFrom: [], key: null, validFrom: null, statedUntil: null } as const;
    const put = await replicaOf(t.memory).apply(ns, [{ put: { ...state, tags: [], mergedFrom: [] } }], { after: (await t.memory.audit(ns)).at(-1)!.seq });
    expect(t.memory.pendingEmbeddings()).toBe(2);
    await replicaOf(t.memory).apply(ns, [{ delete: 'r1' }], { after: put.lastSeq });
    expect(t.memory.pendingEmbeddings()).toBe(1);
    release();
    await t.memory.whenEmbedded();
    expect(await databaseTraces(t.place, t.name, await needles())).toEqual([]);
  });
});

/** Which needles the bytes of any file in the directory hold (as UTF-8/Latin-1 or UTF-16, how SQLite and node:v8 store text). */
function fileTraces(directory: string, look: string[]): string[] {
  const found: string[] = [];
  for (const file of readdirSync(directory).sort()) {
    const bytes = readFileSync(join(directory, file));
    for (const needle of look) {
      if (bytes.includes(Buffer.from(needle, 'utf8')) || bytes.includes(Buffer.from(needle, 'utf16le'))) found.push(`${file}: ${needle}`);
    }
  }
  return found;
}

describe('a forgotten secret leaves no trace in the files of a store on disk (Node)', () => {
  async function onDisk() {
    const directory = mkdtempSync(join(tmpdir(), 'zeromem-secret-'));
    // Snapshots from the first record, at once: the secret's index snapshot is on disk too.
    const t = await openTestMemory({ place: { engine: 'sqlite', directory }, embedder: hashingEmbedder(), indexSnapshots: { minRecords: 1, delayMs: 0 } });
    return { t, directory, cleanup: () => rmSync(directory, { recursive: true, force: true }) };
  }

  it('after forget(): not in the database file or its WAL, before and after close; the control finds it there first', async () => {
    const { t, directory, cleanup } = await onDisk();
    try {
      const ns = { userId: 'u1', agentId: 'support' };
      const [id] = await touchEverything(t, [ns]);
      await t.memory.recall(ns, 'phone calls'); // the snapshot writer has run once the index is built
      await new Promise((resolve) => setTimeout(resolve, 100));
      const look = await needles();
      expect((await t.stores()).indexSnapshots?.length).toBe(1);
      expect(fileTraces(directory, look)).toEqual(expect.arrayContaining([`test.sqlite-wal: ${SECRET}`, `test.sqlite-wal: ${look[3]}`])); // control

      expect(await t.memory.forget(ns, id!)).toBe(true);
      expect(fileTraces(directory, look)).toEqual([]); // the forget's checkpoint truncated the WAL
      expect(await databaseTraces(t.place, t.name, look)).toEqual([]);
      await t.memory.close();
      expect(fileTraces(directory, look)).toEqual([]);
      expect(readdirSync(directory).sort()).toEqual(['test.sqlite', 'test.sqlite-reserve']); // the reserve a forget on a full disk uses: zeros
      expect(fileTraces(directory, ['Prefers phone calls'])).toEqual(['test.sqlite: Prefers phone calls']); // the other memory is on disk
    } finally {
      cleanup();
    }
  });

  // Without an embedder no vector of the old content is deleted: the update alone must erase.
  it.each([
    ['without an embedder', {}],
    ['with an embedder and index snapshots', { embedder: hashingEmbedder(), indexSnapshots: { minRecords: 1, delayMs: 0 } }],
  ])('an update that replaces the content with historyDepth 0 erases the old text like a forget, before and after close (issue 29 item 11), %s', async (_, options) => {
    const directory = mkdtempSync(join(tmpdir(), 'zeromem-secret-'));
    const t = await openTestMemory({ place: { engine: 'sqlite', directory }, ...options, historyDepth: 0 });
    try {
      const ns = { userId: 'u1' };
      const { id } = await t.memory.remember({ namespace: ns, content: SECRET, tags: ['quokka-tag'], metadata: { note: 'xylophone-note' } });
      await t.memory.remember({ namespace: ns, content: 'Prefers phone calls over e-mail' });
      expect((await t.memory.recall(ns, 'vault code quokka')).hits[0]?.id).toBe(id);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the snapshot writer has run
      const look = [...(await needles()), 'quokka-tag', 'xylophone-note'];
      expect(fileTraces(directory, look)).toEqual(expect.arrayContaining([`test.sqlite-wal: ${SECRET}`])); // control

      await t.memory.update(ns, id, { content: 'The vault was emptied', tags: ['plain'], metadata: { note: 'plain' } });
      expect(fileTraces(directory, look)).toEqual([]);
      expect((await t.memory.recall(ns, 'vault emptied')).hits[0]?.id).toBe(id);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(fileTraces(directory, look)).toEqual([]);
      await t.memory.close();
      expect(fileTraces(directory, look)).toEqual([]);
      expect(fileTraces(directory, ['The vault was emptied'])).toEqual(['test.sqlite: The vault was emptied']);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('after forgetUser() and sweep(): none of the secrets is in any file', async () => {
    const { t, directory, cleanup } = await onDisk();
    try {
      await touchEverything(t, [{ userId: 'u1' }, { userId: 'u1', agentId: 'sales' }]);
      await t.memory.remember({ namespace: { userId: 'u2' }, content: `${SECRET} (expiring)`, ttl: '1h' });
      const look = await needles();
      expect(fileTraces(directory, look).length).toBeGreaterThan(0); // control
      expect(await t.memory.forgetUser('u1')).toBe(4);
      t.clock.advance(2 * 3_600_000);
      expect(await t.memory.sweep()).toBe(1);
      expect(fileTraces(directory, look)).toEqual([]);
      await t.memory.close();
      expect(fileTraces(directory, look)).toEqual([]);
    } finally {
      cleanup();
    }
  });
});
