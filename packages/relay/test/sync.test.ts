import * as encoding from 'lib0/encoding';
import { afterEach, describe, expect, it } from 'vitest';
import { Awareness, encodeAwarenessUpdate } from 'y-protocols/awareness';
import * as Y from 'yjs';
import { CLOSE } from '../src/index.ts';
import { cleanup, client, closeCode, rawConnect, synced, testRelay, token, until } from './helpers.ts';

const ROOM = 'u=alice;s=shared';

afterEach(cleanup);

describe('sync through the relay', () => {
  it('forwards a write from one client to another and serves it to a late joiner', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const a = client(relay.url, ROOM, rw);
    const b = client(relay.url, ROOM, rw);
    await Promise.all([synced(a.provider), synced(b.provider)]);

    a.doc.getMap('records').set('r1', { content: 'likes green tea' });
    await until(() => b.doc.getMap('records').get('r1') !== undefined, 'b to see r1');
    expect(b.doc.getMap('records').toJSON()).toEqual({ r1: { content: 'likes green tea' } });

    const late = client(relay.url, ROOM, rw);
    await synced(late.provider);
    expect(late.doc.getMap('records').toJSON()).toEqual({ r1: { content: 'likes green tea' } });
  });

  it('keeps rooms apart', async () => {
    const relay = await testRelay();
    const a = client(relay.url, 'u=alice;s=one', await token(['u=alice;s=one', 'u=alice;s=two']));
    const b = client(relay.url, 'u=alice;s=two', await token(['u=alice;s=one', 'u=alice;s=two']));
    await Promise.all([synced(a.provider), synced(b.provider)]);
    a.doc.getMap('records').set('r1', 'only in one');
    const c = client(relay.url, 'u=alice;s=one', await token(['u=alice;s=one']));
    await synced(c.provider);
    await until(() => c.doc.getMap('records').get('r1') === 'only in one', 'c to see r1');
    await synced(client(relay.url, 'u=alice;s=two', await token(['u=alice;s=two'])).provider);
    expect(b.doc.getMap('records').size).toBe(0);
  });

  it('gives a read-only client the document but refuses its writes', async () => {
    const relay = await testRelay();
    const writer = client(relay.url, ROOM, await token([ROOM]));
    await synced(writer.provider);
    writer.doc.getMap('records').set('r1', 'from the writer');

    const reader = client(relay.url, ROOM, await token([ROOM], { access: 'read', subject: 'reader' }));
    await synced(reader.provider);
    await until(() => reader.doc.getMap('records').get('r1') === 'from the writer', 'reader to see r1');

    reader.doc.getMap('records').set('r2', 'from the reader');
    reader.doc.getMap('records').delete('r1');
    await until(() => relay.stats().refusedWrites >= 1, 'the relay to refuse the write');

    // A fresh client sees the relay's document: the reader's changes are not in it.
    const fresh = client(relay.url, ROOM, await token([ROOM]));
    await synced(fresh.provider);
    expect(fresh.doc.getMap('records').toJSON()).toEqual({ r1: 'from the writer' });
    expect(writer.doc.getMap('records').toJSON()).toEqual({ r1: 'from the writer' });

    // The reader still receives later writes.
    writer.doc.getMap('records').set('r3', 'later');
    await until(() => reader.doc.getMap('records').get('r3') === 'later', 'reader to see r3');
  });

  it('forwards awareness, also from read-only clients, and drops it when they leave', async () => {
    const relay = await testRelay();
    const a = client(relay.url, ROOM, await token([ROOM]));
    const reader = client(relay.url, ROOM, await token([ROOM], { access: 'read', subject: 'reader' }));
    await Promise.all([synced(a.provider), synced(reader.provider)]);
    reader.provider.awareness.setLocalStateField('device', 'phone');
    const readerId = reader.doc.clientID;
    await until(() => a.provider.awareness.getStates().get(readerId)?.device === 'phone', 'a to see the reader');
    reader.provider.disconnect();
    await until(() => !a.provider.awareness.getStates().has(readerId), 'a to drop the reader');
  });
});

/** An awareness message publishing `state` for a fresh client id. */
function awarenessMessageOf(state: Record<string, unknown>): { message: Uint8Array; clientId: number } {
  const awareness = new Awareness(new Y.Doc());
  awareness.setLocalState(state);
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 1);
  encoding.writeVarUint8Array(encoder, encodeAwarenessUpdate(awareness, [awareness.clientID]));
  const clientId = awareness.clientID;
  awareness.destroy();
  return { message: encoding.toUint8Array(encoder), clientId };
}

describe('awareness size', () => {
  it('forwards a read-only socket\'s awareness up to maxAwarenessBytes and closes it with 1009 beyond, forwarding nothing', async () => {
    const relay = await testRelay({ maxAwarenessBytes: 1024 });
    const a = client(relay.url, ROOM, await token([ROOM]));
    await synced(a.provider);
    const path = `/${encodeURIComponent(ROOM)}?token=${await token([ROOM], { access: 'read', subject: 'reader' })}`;

    const small = await rawConnect(relay.url, path);
    if (small.kind !== 'open') throw new Error('expected the socket to open');
    const fits = awarenessMessageOf({ device: 'phone', note: 'x'.repeat(900) });
    small.socket.send(fits.message);
    await until(() => a.provider.awareness.getStates().get(fits.clientId)?.device === 'phone', 'a to see the read-only socket');

    const big = await rawConnect(relay.url, path);
    if (big.kind !== 'open') throw new Error('expected the socket to open');
    const closed = closeCode(big.socket);
    const tooBig = awarenessMessageOf({ device: 'tablet', note: 'x'.repeat(1100) });
    big.socket.send(tooBig.message);
    expect(await closed).toBe(CLOSE.messageTooBig);
    // A later awareness change still arrives, and the oversized state never did.
    a.provider.awareness.setLocalStateField('name', 'a');
    const b = client(relay.url, ROOM, await token([ROOM]));
    await synced(b.provider);
    await until(() => b.provider.awareness.getStates().get(a.doc.clientID)?.name === 'a', 'b to see a');
    await until(() => b.provider.awareness.getStates().has(fits.clientId), 'b to see the read-only socket');
    expect(a.provider.awareness.getStates().has(tooBig.clientId)).toBe(false);
    expect(b.provider.awareness.getStates().has(tooBig.clientId)).toBe(false);
  });
});

describe('awareness ownership', () => {
  it('drops an awareness update that speaks for another socket\'s client id', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const a = client(relay.url, ROOM, rw);
    const b = client(relay.url, ROOM, rw);
    await Promise.all([synced(a.provider), synced(b.provider)]);
    a.provider.awareness.setLocalStateField('name', 'support agent');
    const victim = a.doc.clientID;
    await until(() => b.provider.awareness.getStates().get(victim)?.name === 'support agent', 'b to see a');

    // A raw socket claims a's client id with a newer clock.
    const spoof = await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${rw}`);
    if (spoof.kind !== 'open') throw new Error('expected the socket to open');
    const forged = new Awareness(new Y.Doc());
    forged.clientID = victim;
    forged.setLocalState({ name: 'impostor' });
    forged.setLocalState({ name: 'impostor' });
    forged.meta.set(victim, { clock: 1000, lastUpdated: Date.now() });
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 1);
    encoding.writeVarUint8Array(encoder, encodeAwarenessUpdate(forged, [victim]));
    spoof.socket.send(encoding.toUint8Array(encoder));

    // A later, honest change still arrives, and the impostor's never did.
    a.provider.awareness.setLocalStateField('name', 'support agent v2');
    await until(() => b.provider.awareness.getStates().get(victim)?.name === 'support agent v2', 'b to see a again');
    expect(b.provider.awareness.getStates().get(victim)?.name).toBe('support agent v2');
    forged.destroy();
  });
});
