import { afterEach, describe, expect, it } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import { namespaceKey } from '@zeromem/core';
import { replicaOf, type DocLogAccess } from '@zeromem/core/internal';
import { hashingEmbedder } from '../../../test/kit/hashing-embedder.ts';
import { cleanup, countingSocket, device, directoryContains, dumpAll, records, testRelay, token, twoSyncedDevices, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'shared' };
const ROOM = namespaceKey(SHARED);

afterEach(cleanup);

describe('shared namespaces through a real relay', () => {
  it('two replicas see each other’s writes, updates and forgets with the same ids, times and versions', async () => {
    const { laptop, phone } = await twoSyncedDevices(SHARED);

    const written = await laptop.memory.remember({ namespace: SHARED, content: 'Alice prefers green tea', tags: ['drinks'], metadata: { n: 1 } });
    await until(async () => (await phone.memory.get(SHARED, written.id)) !== undefined, 'the phone to see the write');
    expect(await records(phone.memory, SHARED)).toEqual(await records(laptop.memory, SHARED));
    expect((await phone.memory.recall(SHARED, 'green tea')).hits.map((h) => h.record.id)).toEqual([written.id]);

    const updated = await phone.memory.update(SHARED, written.id, { content: 'Alice prefers jasmine tea', importance: 0.9 });
    await until(async () => (await laptop.memory.get(SHARED, written.id))?.version === updated.version, 'the laptop to see the update');
    expect(await records(laptop.memory, SHARED)).toEqual(await records(phone.memory, SHARED));
    expect((await laptop.memory.recall(SHARED, 'jasmine')).hits).toHaveLength(1);
    expect((await laptop.memory.recall(SHARED, 'green')).hits).toHaveLength(0);

    await laptop.memory.forget(SHARED, written.id);
    await until(async () => (await phone.memory.get(SHARED, written.id)) === undefined, 'the phone to forget');
    expect((await phone.memory.recall(SHARED, 'jasmine')).hits).toHaveLength(0);
    expect(laptop.errors.concat(phone.errors)).toEqual([]);
  });

  it('stores another replica’s change and the document update that carried it in one commit, and a restart finds both', async () => {
    const { laptop, phone } = await twoSyncedDevices(SHARED);
    const log = replicaOf(phone.memory).docLog as { -readonly [K in keyof DocLogAccess]: DocLogAccess[K] };
    const append = log.append.bind(log);
    const appended: number[] = [];
    log.append = (room, updates, cursor) => {
      appended.push(updates.length);
      return append(room, updates, cursor);
    };
    const before = (await replicaOf(phone.memory).docLog.load(ROOM)).updates.length;
    const written = await laptop.memory.remember({ namespace: SHARED, content: 'Alice takes the 8:10 train' });
    await until(async () => (await phone.memory.get(SHARED, written.id)) !== undefined, 'the phone to see the write');
    await phone.close();
    // The update went into the log in the transaction that stored the record, not in a commit of its own before it.
    expect(appended.filter((n) => n > 0)).toEqual([]);
    const reopened = await phone.reopen();
    expect((await replicaOf(reopened.memory).docLog.load(ROOM)).updates.length).toBeGreaterThan(before);
    expect((await reopened.memory.get(SHARED, written.id))?.content).toBe('Alice takes the 8:10 train');
  });

  it('embeds records that arrive from another replica on this device', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const embedded: string[] = [];
    const laptop = await device('laptop');
    const phone = await device('phone', new IDBFactory(), hashingEmbedder({ onEmbed: (texts) => embedded.push(...texts) }));
    const a = await laptop.share(SHARED, { url: relay.url, token: rw });
    const b = await phone.share(SHARED, { url: relay.url, token: rw });
    await Promise.all([a.synced, b.synced]);
    const written = await laptop.memory.remember({ namespace: SHARED, content: 'Allergic to peanuts and shellfish' });
    await until(async () => (await phone.memory.get(SHARED, written.id)) !== undefined, 'the record to arrive');
    await phone.memory.whenEmbedded();
    expect(embedded).toContain('Allergic to peanuts and shellfish');
    const result = await phone.memory.recall(SHARED, 'shellfish peanuts');
    expect(result.vector).toBe('used');
    expect(result.hits[0]?.record.id).toBe(written.id);
    expect(result.hits[0]!.explain.vectorScore).toBeGreaterThan(0);
  });

  it('keeps private namespaces on the device: the relay never receives or stores their bytes', async () => {
    const relay = await testRelay();
    const laptop = await device('laptop');
    const phone = await device('phone');
    const rw = await token([ROOM]);
    const wire = countingSocket();
    const a = await laptop.share(SHARED, { url: relay.url, token: rw, WebSocketPolyfill: wire.WebSocketPolyfill });
    const b = await phone.share(SHARED, { url: relay.url, token: rw });
    await Promise.all([a.synced, b.synced]);
    await laptop.memory.remember({ namespace: { userId: 'alice' }, content: 'private-marker-7f3a bank PIN hint', tags: ['private-tag-7f3a'] });
    await laptop.memory.remember({ namespace: { userId: 'alice', scope: 'sharedx' }, content: 'private-marker-7f3a in a look-alike namespace' });
    const shared = await laptop.memory.remember({ namespace: SHARED, content: 'shared-marker-91c2 meeting at noon' });
    await until(async () => (await phone.memory.get(SHARED, shared.id)) !== undefined, 'the shared write to arrive');
    await a.flush();
    await relay.compact(ROOM);
    expect(directoryContains(relay.dataDir, 'shared-marker-91c2')).toBe(true); // the check can see what is there
    expect(directoryContains(relay.dataDir, 'private-marker-7f3a')).toBe(false);
    expect(directoryContains(relay.dataDir, 'private-tag-7f3a')).toBe(false);
    expect(await dumpAll(phone.factory)).not.toContain('private-marker-7f3a');
    // Every byte the laptop sent to the relay: the shared text is there, the private text never.
    const sent = Buffer.concat(wire.sent);
    expect(sent.includes(Buffer.from('shared-marker-91c2'))).toBe(true);
    expect(sent.includes(Buffer.from('private-marker-7f3a'))).toBe(false);
    expect(sent.includes(Buffer.from('private-tag-7f3a'))).toBe(false);
  });

  it('merges offline edits of two replicas on reconnect', async () => {
    const { laptop, phone, a, b } = await twoSyncedDevices(SHARED);
    const both = await laptop.memory.remember({ namespace: SHARED, content: 'written while online' });
    await until(async () => (await phone.memory.get(SHARED, both.id)) !== undefined, 'the first write');

    a.disconnect();
    b.disconnect();
    const fromLaptop = await laptop.memory.remember({ namespace: SHARED, content: 'laptop offline note' });
    const fromPhone = await phone.memory.remember({ namespace: SHARED, content: 'phone offline note' });
    await phone.memory.update(SHARED, both.id, { tags: ['edited-offline'] });
    await Promise.all([a.flush(), b.flush()]);
    expect(await laptop.memory.get(SHARED, fromPhone.id)).toBeUndefined();

    a.connect();
    b.connect();
    await until(async () => (await records(laptop.memory, SHARED)).length === 3 && (await records(phone.memory, SHARED)).length === 3, 'both to hold 3 records');
    await until(async () => (await laptop.memory.get(SHARED, both.id))?.tags[0] === 'edited-offline', 'the offline update');
    expect(await records(laptop.memory, SHARED)).toEqual(await records(phone.memory, SHARED));
    expect((await laptop.memory.get(SHARED, fromLaptop.id))?.content).toBe('laptop offline note');
  });

  it('a forget reaches every replica’s store, index and document, and the relay’s storage after compaction', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const devices = [await device('one'), await device('two'), await device('three')];
    const shares = await Promise.all(devices.map((d) => d.share(SHARED, { url: relay.url, token: rw })));
    await Promise.all(shares.map((s) => s.synced));
    const secret = await devices[0]!.memory.remember({ namespace: SHARED, content: 'forget-me-4b1d the door code is 8812' });
    await devices[0]!.memory.remember({ namespace: SHARED, content: 'keep-me-2e9f lunch order' });
    await until(async () => {
      for (const d of devices) if ((await records(d.memory, SHARED)).length !== 2) return false;
      return true;
    }, 'every replica to hold both');
    await until(async () => directoryContains(relay.dataDir, 'forget-me-4b1d'), 'the relay to store the record');

    await devices[1]!.memory.forget(SHARED, secret.id);
    for (const d of devices) {
      await until(async () => (await d.memory.get(SHARED, secret.id)) === undefined, `${d.name} to forget`);
      expect((await d.memory.recall(SHARED, 'door code')).hits).toHaveLength(0);
    }
    await Promise.all(shares.map((s) => s.flush()));
    await relay.compact(ROOM);
    expect(directoryContains(relay.dataDir, 'forget-me-4b1d')).toBe(false);
    expect(directoryContains(relay.dataDir, 'keep-me-2e9f')).toBe(true);
    for (const d of devices) {
      const dump = await dumpAll(d.factory);
      expect(dump, d.name).not.toContain('forget-me-4b1d'); // store, index snapshots and the stored document
      expect(dump, d.name).toContain('keep-me-2e9f');
    }
  });

  it('a forget wins over an offline update of the same record, everywhere and in the relay’s storage', async () => {
    const { relay, laptop, phone, a, b } = await twoSyncedDevices(SHARED);
    const target = await laptop.memory.remember({ namespace: SHARED, content: 'ex-partner-3d8a phone number 0612' });
    await until(async () => (await phone.memory.get(SHARED, target.id)) !== undefined, 'the phone to get it');

    a.disconnect();
    await laptop.memory.update(SHARED, target.id, { content: 'ex-partner-3d8a new phone number 0699' });
    await phone.memory.forget(SHARED, target.id);
    await b.flush();
    a.connect();
    await a.flush();
    await until(async () => (await laptop.memory.get(SHARED, target.id)) === undefined, 'the laptop to forget despite its offline edit');
    await Promise.all([a.flush(), b.flush()]);
    expect(await phone.memory.get(SHARED, target.id)).toBeUndefined();
    expect((await laptop.memory.recall(SHARED, 'phone number')).hits).toHaveLength(0);
    // A new record under another id is unaffected, and the same namespace keeps syncing.
    const later = await laptop.memory.remember({ namespace: SHARED, content: 'written after the forget' });
    await until(async () => (await phone.memory.get(SHARED, later.id)) !== undefined, 'the later write');
    await relay.compact(ROOM);
    expect(directoryContains(relay.dataDir, 'ex-partner-3d8a')).toBe(false);
    for (const d of [laptop, phone]) expect(await dumpAll(d.factory), d.name).not.toContain('ex-partner-3d8a');
    expect(laptop.errors.concat(phone.errors)).toEqual([]);
  });

  it('a forgotten custom id can be remembered again (a new incarnation)', async () => {
    const { laptop, phone, a, b } = await twoSyncedDevices(SHARED);
    const first = await laptop.memory.remember({ namespace: SHARED, id: 'WO-1', content: 'work order open', createdAt: Date.UTC(2026, 0, 1) });
    await until(async () => (await phone.memory.get(SHARED, 'WO-1')) !== undefined, 'the first incarnation');
    await phone.memory.forget(SHARED, 'WO-1');
    await until(async () => (await laptop.memory.get(SHARED, 'WO-1')) === undefined, 'the forget');
    await laptop.memory.remember({ namespace: SHARED, id: 'WO-1', content: 'work order reopened', createdAt: first.record.createdAt + 1 });
    await until(async () => (await phone.memory.get(SHARED, 'WO-1'))?.content === 'work order reopened', 'the second incarnation');
    await Promise.all([a.flush(), b.flush()]);
    expect(await records(laptop.memory, SHARED)).toEqual(await records(phone.memory, SHARED));
  });

  it('a restart keeps unsent changes and downloads only what is new', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const laptop = await device('laptop');
    const phone = await device('phone');
    const a = await laptop.share(SHARED, { url: relay.url, token: rw });
    await a.synced;
    for (let i = 0; i < 20; i++) await laptop.memory.remember({ namespace: SHARED, content: `fact number ${i} ${'padding '.repeat(40)}` });
    const first = countingSocket();
    const b = await phone.share(SHARED, { url: relay.url, token: rw, WebSocketPolyfill: first.WebSocketPolyfill });
    await b.synced;
    await until(async () => (await records(phone.memory, SHARED)).length === 20, 'the phone to get 20');

    b.disconnect();
    const unsent = await phone.memory.remember({ namespace: SHARED, content: 'written offline before a restart' });
    await phone.close(); // share closed while offline: the change exists only in the phone's stored document and store
    const reopened = await phone.reopen();
    const second = countingSocket();
    const again = await reopened.share(SHARED, { url: relay.url, token: rw, WebSocketPolyfill: second.WebSocketPolyfill });
    await again.synced;
    await until(async () => (await laptop.memory.get(SHARED, unsent.id)) !== undefined, 'the unsent change to arrive');
    expect(await records(reopened.memory, SHARED)).toEqual(await records(laptop.memory, SHARED));
    expect(reopened.errors).toEqual([]);
    // The 20 records came down once; after the restart none of them did (only the handshake and presence).
    const texts = (wire: { received: Buffer[] }) => [...Buffer.concat(wire.received).toString('latin1').matchAll(/fact number \d+/g)].length;
    expect(texts(first)).toBeGreaterThanOrEqual(20);
    expect(texts(second)).toBe(0);
  });
});
