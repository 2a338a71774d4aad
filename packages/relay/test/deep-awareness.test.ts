import * as encoding from 'lib0/encoding';
import { afterEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { CLOSE } from '../src/index.ts';
import { cleanup, client, closeCode, rawConnect, synced, tempDir, token, until } from './helpers.ts';
import { type RelayProcess, serveRelay } from './spawn-relay.ts';

const ROOM = 'u=alice;s=shared';
const running: RelayProcess[] = [];

afterEach(async () => {
  await cleanup();
  for (const relay of running.splice(0)) {
    if (relay.child.exitCode === null && relay.child.signalCode === null) relay.child.kill('SIGKILL');
    await relay.exited;
  }
});

/** An awareness message (type 1) for client `clientId`, clock 1, with `state` as its JSON text. */
function awarenessMessage(clientId: number, state: string): Uint8Array {
  const update = encoding.createEncoder();
  encoding.writeVarUint(update, 1);
  encoding.writeVarUint(update, clientId);
  encoding.writeVarUint(update, 1);
  encoding.writeVarString(update, state);
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 1);
  encoding.writeVarUint8Array(encoder, encoding.toUint8Array(update));
  return encoding.toUint8Array(encoder);
}

describe('an awareness state nested deeper than JSON.stringify can go', { timeout: 120_000 }, () => {
  it('from a read-only socket closes only that socket (4400): the relay process lives and keeps serving the room', async () => {
    const relay = await serveRelay(tempDir(), ['--log-level', 'warn']);
    running.push(relay);
    const rw = await token([ROOM]);
    const writer = client(relay.url, ROOM, rw);
    await synced(writer.provider);

    const attempt = await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${await token([ROOM], { access: 'read', subject: 'attacker' })}`);
    if (attempt.kind !== 'open') throw new Error('expected the socket to open');
    const attacker: WebSocket = attempt.socket;
    const closed = closeCode(attacker);
    // ~16 KB, under the default 16 KiB awareness limit; JSON.parse accepts it, JSON.stringify overflows the stack.
    attacker.send(awarenessMessage(424242, '['.repeat(8000) + ']'.repeat(8000)));
    expect(await closed).toBe(CLOSE.badMessage);
    expect(relay.stderr()).toContain('awareness state nested too deep');

    // A client joining now is sent the room's awareness.
    const joiner = client(relay.url, ROOM, rw);
    await synced(joiner.provider);
    writer.doc.getMap('records').set('after', 'still served');
    await until(() => joiner.doc.getMap('records').get('after') === 'still served', 'the room to go on forwarding');
    expect(relay.child.exitCode).toBeNull();
    const health = await fetch(`http://127.0.0.1:${relay.port}/healthz`);
    expect(await health.json()).toMatchObject({ status: 'ok', connections: 2 });
  });

  it('is refused even when the sender never reads the close frame', async () => {
    const relay = await serveRelay(tempDir(), ['--quiet']);
    running.push(relay);
    const rw = await token([ROOM]);
    const writer = client(relay.url, ROOM, rw);
    await synced(writer.provider);
    const attempt = await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${await token([ROOM], { access: 'read', subject: 'attacker' })}`);
    if (attempt.kind !== 'open') throw new Error('expected the socket to open');
    const raw = (attempt.socket as unknown as { _socket: { pause(): void } })._socket;
    attempt.socket.send(awarenessMessage(424243, '['.repeat(8000) + ']'.repeat(8000)), () => raw.pause());

    const joiner = client(relay.url, ROOM, rw);
    await synced(joiner.provider);
    writer.doc.getMap('records').set('after', 'still served');
    await until(() => joiner.doc.getMap('records').get('after') === 'still served', 'the room to go on forwarding');
    expect(relay.child.exitCode).toBeNull();
  });
});
