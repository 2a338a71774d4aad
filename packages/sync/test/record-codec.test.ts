import { describe, expect, it } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { openMemory } from '@zeromem/core';
import { generateNamespaceKey } from '../src/index.ts';
import { importNamespaceKey } from '../src/encryption.ts';
import { RecordCodec } from '../src/record-codec.ts';

describe('record codec contexts', () => {
  it('a record whose id is "key-check" round-trips and is never taken for the key check (nor the other way)', async () => {
    const memory = await openMemory({ indexedDB: new IDBFactory(), IDBKeyRange, name: 'codec' });
    try {
      const namespace = { userId: 'alice', scope: 'codec' };
      const { record } = await memory.remember({ namespace, id: 'key-check', content: 'zeromem-namespace-key' });
      const codec = new RecordCodec('u=alice/s=codec', await importNamespaceKey(generateNamespaceKey()));
      const sealed = await codec.encode(record);
      expect(await codec.decode('key-check', sealed)).toMatchObject({ id: 'key-check', content: 'zeromem-namespace-key' });
      await expect(codec.verify(sealed)).rejects.toMatchObject({ code: 'DECRYPTION_FAILED' });
      await expect(codec.decode('key-check', await codec.keyCheck())).rejects.toMatchObject({ code: 'DECRYPTION_FAILED' });
      await expect(codec.verify(await codec.keyCheck())).resolves.toBeUndefined();
    } finally {
      await memory.close();
    }
  });
});
