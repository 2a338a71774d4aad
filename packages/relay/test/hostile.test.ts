import * as encoding from 'lib0/encoding';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CLOSE } from '../src/index.ts';
import { cleanup, client, closeCode, rawConnect, synced, testRelay, token, until } from './helpers.ts';

const ROOM = 'u=alice;s=shared';
const PATH = `/${encodeURIComponent(ROOM)}`;

afterEach(cleanup);

async function openSocket(url: string, authToken: string): Promise<WebSocket> {
  const attempt = await rawConnect(url, `${PATH}?token=${authToken}`);
  if (attempt.kind !== 'open') throw new Error(`expected the socket to open, got ${attempt.status}`);
  return attempt.socket;
}

/** Sync step 1 (type 0, sync type 0) whose state vector is `[5, 0xff x 10, 1]`: not a state vector. */
function garbageStateVector(): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint8Array(encoder, new Uint8Array([5, ...new Array<number>(10).fill(0xff), 1]));
  return encoding.toUint8Array(encoder);
}

/** An awareness message (type 1) for client 123456, clock 1, whose state `{x` is not JSON. */
function awarenessNotJson(): Uint8Array {
  const update = encoding.createEncoder();
  encoding.writeVarUint(update, 1);
  encoding.writeVarUint(update, 123456);
  encoding.writeVarUint(update, 1);
  encoding.writeVarString(update, '{x');
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 1);
  encoding.writeVarUint8Array(encoder, encoding.toUint8Array(update));
  return encoding.toUint8Array(encoder);
}

describe('a malformed message', () => {
  for (const [what, message] of [
    ['a sync step 1 with a garbage state vector', garbageStateVector],
    ['an awareness update whose state is not JSON', awarenessNotJson],
  ] as const) {
    it(`(${what}) from a read-only socket closes only that socket with 4400; the room goes on`, async () => {
      const relay = await testRelay();
      const rw = await token([ROOM]);
      const writer = client(relay.url, ROOM, rw);
      const reader = client(relay.url, ROOM, rw);
      await Promise.all([synced(writer.provider), synced(reader.provider)]);
      const closes: number[] = [];
      for (const side of [writer, reader]) side.provider.on('connection-close', (event: { code: number } | null) => closes.push(event?.code ?? 0));

      const attacker = await openSocket(relay.url, await token([ROOM], { access: 'read', subject: 'attacker' }));
      const closed = closeCode(attacker);
      attacker.send(message());
      expect(await closed).toBe(CLOSE.badMessage);

      writer.doc.getMap('records').set('after', 'still forwarded');
      await until(() => reader.doc.getMap('records').get('after') === 'still forwarded', 'the room to go on forwarding');
      expect(closes).toEqual([]);
      expect(relay.stats()).toMatchObject({ rooms: 1, connections: 2 });
    });
  }
});
