import { afterEach, describe, expect, it } from 'vitest';
import { namespaceKey, type ZeromemError } from '@zeromem/core';
import { generateNamespaceKey } from '../src/index.ts';
import { cleanup, device, directoryContains, records, testRelay, token, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'vault' };
const ROOM = namespaceKey(SHARED);

afterEach(cleanup);

describe('end-to-end encryption', () => {
  it('replicas with the key sync; the relay stores only ciphertext', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const key = generateNamespaceKey();
    const laptop = await device('laptop');
    const phone = await device('phone');
    const a = await laptop.share(SHARED, { url: relay.url, token: rw, encryptionKey: key });
    const b = await phone.share(SHARED, { url: relay.url, token: rw, encryptionKey: key });
    await Promise.all([a.synced, b.synced]);
    const secret = await laptop.memory.remember({ namespace: SHARED, content: 'vault-secret-5c7e passport number X1234', tags: ['tag-secret-5c7e'], metadata: { note: 'meta-secret-5c7e' } });
    await until(async () => (await phone.memory.get(SHARED, secret.id)) !== undefined, 'the phone to decrypt the record');
    await phone.memory.update(SHARED, secret.id, { importance: 1 });
    await until(async () => (await laptop.memory.get(SHARED, secret.id))?.importance === 1, 'the laptop to see the update');
    expect(await records(laptop.memory, SHARED)).toEqual(await records(phone.memory, SHARED));
    await Promise.all([a.flush(), b.flush()]);
    await relay.compact(ROOM);
    for (const needle of ['vault-secret-5c7e', 'tag-secret-5c7e', 'meta-secret-5c7e', 'passport']) expect(directoryContains(relay.dataDir, needle), needle).toBe(false);
    expect(directoryContains(relay.dataDir, secret.id)).toBe(true); // ids travel in clear (see THREAT_MODEL.md)
    expect(laptop.errors.concat(phone.errors)).toEqual([]);
  });

  it('a wrong key fails with DECRYPTION_FAILED and writes nothing, here or in the room', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const key = generateNamespaceKey();
    const owner = await device('owner');
    const first = await owner.share(SHARED, { url: relay.url, token: rw, encryptionKey: key });
    await first.synced;
    await owner.memory.remember({ namespace: SHARED, content: 'encrypted fact' });
    await first.flush();

    const intruder = await device('intruder');
    await intruder.memory.remember({ namespace: SHARED, content: 'written before sharing with a wrong key' });
    const wrong = await intruder.share(SHARED, { url: relay.url, token: rw, encryptionKey: generateNamespaceKey() });
    let failure: ZeromemError | undefined;
    await wrong.synced.catch((err: ZeromemError) => (failure = err));
    expect(failure?.code).toBe('DECRYPTION_FAILED');
    expect(wrong.status).toBe('failed');
    expect(intruder.errors.map((e) => e.code)).toEqual(['DECRYPTION_FAILED']);
    expect((await records(intruder.memory, SHARED)).map((r) => r.content)).toEqual(['written before sharing with a wrong key']);

    const plain = await (await device('plain')).share(SHARED, { url: relay.url, token: rw });
    let plainFailure: ZeromemError | undefined;
    await plain.synced.catch((err: ZeromemError) => (plainFailure = err));
    expect(plainFailure?.code).toBe('DECRYPTION_FAILED');

    // The room holds only the owner's record: a new replica with the right key gets exactly that.
    const check = await device('check');
    await (await check.share(SHARED, { url: relay.url, token: rw, encryptionKey: key })).synced;
    expect((await records(check.memory, SHARED)).map((r) => r.content)).toEqual(['encrypted fact']);
    expect((await records(owner.memory, SHARED)).map((r) => r.content)).toEqual(['encrypted fact']);
    expect(owner.errors.concat(check.errors)).toEqual([]);
  });
});
