import fc from 'fast-check';
import * as encoding from 'lib0/encoding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { CLOSE, type Relay } from '../src/index.ts';
import { cleanup, client, rawConnect, synced, testRelay, token, until } from './helpers.ts';
import { testSeed } from '../../../test/kit/seed.ts';

// Seeded fuzz of what a socket may send (awareness and document updates: nesting, sizes,
// encodings), from read-only and read-write sockets, for a bounded time: whatever comes,
// the relay answers with one of its close codes or keeps the socket, and the other clients
// of the room are served on.

const ROOM = 'u=alice;s=fuzzed';
const FUZZ_MS = 12_000;
/** Every way the relay may close a fuzzing socket. */
const CLOSE_CODES: number[] = [CLOSE.messageTooBig, CLOSE.badMessage, CLOSE.documentTooLarge, CLOSE.rateLimited];

const bytes = (parts: (encoder: encoding.Encoder) => void): Uint8Array => {
  const encoder = encoding.createEncoder();
  parts(encoder);
  return encoding.toUint8Array(encoder);
};

/** JSON texts an awareness state may carry, and some it may not. */
const stateText = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.integer({ min: 0, max: 9000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  // Deep enough to overflow JSON.stringify's stack, small enough for the awareness limit.
  fc.integer({ min: 5000, max: 8100 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.integer({ min: 0, max: 3000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  fc.integer({ min: 0, max: 20_000 }).map((size) => JSON.stringify({ note: 'x'.repeat(size) })),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.constantFrom('null', '{x', '"\\', '[[[', '{"a":"[[[[[[["}'),
);

/** Awareness messages (type 1): well formed or not, with several states, trailing or missing bytes. */
const awareness = fc
  .record({
    states: fc.array(fc.record({ id: fc.nat({ max: 2 ** 32 }), clock: fc.nat(), state: stateText }), { minLength: 0, maxLength: 3 }),
    // Mostly well-formed, so that the states themselves are tried.
    count: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, fc.nat({ max: 5 })),
    trailing: fc.oneof({ weight: 4, arbitrary: fc.constant(new Uint8Array(0)) }, fc.uint8Array({ minLength: 1, maxLength: 3 })),
  })
  .map(({ states, count, trailing }) => {
    const update = bytes((e) => {
      encoding.writeVarUint(e, count ?? states.length);
      for (const { id, clock, state } of states) {
        encoding.writeVarUint(e, id);
        encoding.writeVarUint(e, clock);
        encoding.writeVarString(e, state);
      }
    });
    return bytes((e) => {
      encoding.writeVarUint(e, 1);
      encoding.writeVarUint8Array(e, update);
      encoding.writeUint8Array(e, trailing);
    });
  });

/** A real Yjs update of a few map and text operations (integrates, or waits for a dependency when `skipFirst`). */
const yjsUpdate = fc
  .record({ ops: fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 200 })), { minLength: 1, maxLength: 6 }), skipFirst: fc.boolean(), big: fc.nat({ max: 40_000 }) })
  .map(({ ops, skipFirst, big }) => {
    const doc = new Y.Doc();
    doc.getMap('records').set('first', 'x'.repeat(big));
    const before = skipFirst ? Y.encodeStateVector(doc) : new Uint8Array([0]);
    for (const [key, value] of ops) doc.getMap('records').set(key, value);
    doc.getText('notes').insert(0, ops[0]![1]);
    return Y.encodeStateAsUpdate(doc, before);
  });

/** Sync messages (type 0) carrying real, cut, flipped or random updates and state vectors. */
const syncMessage = fc
  .record({
    step: fc.constantFrom(0, 1, 2, 2, 2, 7),
    payload: fc.oneof(
      yjsUpdate,
      fc.tuple(yjsUpdate, fc.nat()).map(([update, at]) => update.slice(0, at % (update.length + 1))),
      fc.tuple(yjsUpdate, fc.nat(), fc.integer({ min: 1, max: 255 })).map(([update, at, flip]) => {
        const copy = update.slice();
        if (copy.length > 0) copy[at % copy.length]! ^= flip;
        return copy;
      }),
      fc.uint8Array({ maxLength: 64 }),
    ),
  })
  .map(({ step, payload }) =>
    bytes((e) => {
      encoding.writeVarUint(e, 0);
      encoding.writeVarUint(e, step);
      encoding.writeVarUint8Array(e, payload);
    }),
  );

const message = fc.oneof(awareness, awareness, syncMessage, syncMessage, fc.constant(new Uint8Array([3])), fc.uint8Array({ maxLength: 32 }));

let relay: Relay;
beforeAll(async () => {
  relay = await testRelay({ maxDocumentBytes: 4 * 1024 * 1024 });
});
afterAll(cleanup);

describe('fuzzed messages from read-only and read-write sockets', () => {
  it(`get a defined answer and never hurt the room's other clients (${FUZZ_MS / 1000} s, seeded)`, async () => {
    const rw = await token([ROOM]);
    const writer = client(relay.url, ROOM, rw);
    const reader = client(relay.url, ROOM, rw);
    await Promise.all([synced(writer.provider), synced(reader.provider)]);
    let round = 0;
    const seed = testSeed('relay fuzz');
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<'read' | 'read-write'>('read', 'read-write'), fc.array(message, { minLength: 1, maxLength: 8 }), fc.boolean(), async (access, messages, reads) => {
        const attempt = await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${await token([ROOM], { access, subject: `fuzz-${round % 4}` })}`);
        if (attempt.kind !== 'open') throw new Error(`fuzzing socket refused: ${attempt.status}`);
        const socket = attempt.socket;
        const closed = new Promise<number>((resolve) => socket.once('close', (code: number) => resolve(code)));
        const sent = messages.map((data) => new Promise<void>((resolve) => (socket.readyState === WebSocket.OPEN ? socket.send(data, () => resolve()) : resolve())));
        // A socket that stops reading never completes a close: to the relay it stays in the room, its awareness too.
        if (!reads) {
          await Promise.all(sent);
          (socket as unknown as { _socket: { pause(): void } })._socket.pause();
        }
        // A client joining now is sent the room's awareness, the fuzzing socket's included.
        const joiner = await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${rw}`);
        if (joiner.kind !== 'open') throw new Error(`joining socket refused: ${joiner.status}`);
        let joinerClosed: number | undefined;
        joiner.socket.once('close', (code: number) => (joinerClosed = code));
        joiner.socket.send(new Uint8Array([3])); // query awareness: answered with every state
        await until(() => joinerClosed !== undefined || joiner.received.some((m) => m[0] === 1), 'the joining socket to get the awareness');
        expect(joinerClosed, 'the joining socket was closed').toBeUndefined();
        joiner.socket.close(1000);
        // The room still forwards between its other clients.
        const key = `round-${round++}`;
        writer.doc.getMap('records').set(key, true);
        await until(() => reader.doc.getMap('records').get(key) === true, `round ${key} to be forwarded`);
        if (!reads) {
          socket.terminate();
          return;
        }
        if (socket.readyState === WebSocket.OPEN) socket.close(1000);
        const code = await closed;
        expect([1000, 1005, ...CLOSE_CODES], `close code ${code}`).toContain(code);
      }),
      { seed, interruptAfterTimeLimit: FUZZ_MS, markInterruptAsFailure: false, numRuns: 100_000 },
    );
    expect(round).toBeGreaterThan(10);
    const late = client(relay.url, ROOM, rw);
    await synced(late.provider);
    expect(late.doc.getMap('records').get('round-0')).toBe(true);
    expect(relay.stats()).toMatchObject({ unreadableRooms: 0 });
    console.log(`relay fuzz: ${round} rounds in ${Date.now() - started} ms`);
  }, 60_000);
});
