import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { namespaceKey } from '@zeromem/core';
import { cleanup, device, records, testRelay, token, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'open' };
const ROOM = namespaceKey(SHARED);

afterEach(cleanup);

/** A valid record state as a replica writes it into the shared document. */
const good = { content: 'valid fact', source: 'user', layer: 'long_term', tags: [], metadata: {}, importance: 0.5, createdAt: 1, updatedAt: 2, expiresAt: null, version: 1, mergedFrom: [] };

/** A hostile or broken replica speaking plain Yjs to the relay, synced. */
async function hostilePeer(url: string, authToken: string) {
  const doc = new Y.Doc();
  const provider = new WebsocketProvider(url, encodeURIComponent(ROOM), doc, { WebSocketPolyfill: WebSocket as never, params: { token: authToken }, disableBc: true });
  await new Promise<void>((resolve) => provider.once('sync', () => resolve()));
  return { doc, provider, map: doc.getMap('records') };
}

describe('data from another replica', () => {
  it('reports records that fail validation, writes none of them, and applies the valid ones', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const phone = await device('phone');
    const share = await phone.share(SHARED, { url: relay.url, token: rw });
    await share.synced;

    const { doc, provider, map } = await hostilePeer(relay.url, rw);
    try {
      doc.transact(() => {
        map.set('good-1', good);
        map.set('bad-content', { ...good, content: '' });
        map.set('bad-extra', { ...good, injected: '<script>' });
        map.set('not-an-object', 'just a string');
        map.set('bad id with spaces', good);
      });
      await until(async () => (await phone.memory.get(SHARED, 'good-1')) !== undefined, 'the valid record');
      await until(() => phone.errors.length === 4, 'four reports');
    } finally {
      provider.destroy();
      doc.destroy();
    }
    expect(phone.errors.every((e) => e.code === 'INVALID_INPUT')).toBe(true);
    expect(phone.errors.map((e) => e.message).join('\n')).toMatch(/bad-content[\s\S]*bad-extra|bad-extra[\s\S]*bad-content/);
    expect((await records(phone.memory, SHARED)).map((r) => r.id)).toEqual(['good-1']);
  });

  it('without onError, invalid records from a hostile peer are kept on share.rejected (the last 100), never thrown', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const phone = await device('phone');
    const share = await phone.share(SHARED, { url: relay.url, token: rw, onError: undefined });
    await share.synced;
    const { doc, provider, map } = await hostilePeer(relay.url, rw);
    try {
      doc.transact(() => {
        map.set('good-1', good);
        for (let i = 0; i < 120; i++) map.set(`bad-${i}`, { ...good, content: '' });
      });
      await until(async () => (await phone.memory.get(SHARED, 'good-1')) !== undefined, 'the valid record');
      await until(() => share.rejected.length === 100, 'the rejections to be kept');
      await share.flush();
    } finally {
      provider.destroy();
      doc.destroy();
    }
    expect(share.rejected).toHaveLength(100);
    expect(share.rejected.every((e) => e.code === 'INVALID_INPUT')).toBe(true);
    expect(share.status).not.toBe('failed');
    expect((await records(phone.memory, SHARED)).map((r) => r.id)).toEqual(['good-1']);
  });
});
