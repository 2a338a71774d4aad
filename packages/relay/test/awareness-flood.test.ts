import { readFileSync } from 'node:fs';
import * as encoding from 'lib0/encoding';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOSE } from '../src/index.ts';
import { flood, stopAttack } from './flood.ts';
import { client, closeCode, rawConnect, synced, tempDir, testRelay, token, until } from './helpers.ts';
import { type RelayProcess, serveRelay } from './spawn-relay.ts';

// Awareness is kept in memory and sent to every client that joins a room, so what one token
// subject and one room may hold is bounded (issue 29, item 14: one read-only socket published
// 867,200 client ids in 15 s, +100 MB on the relay, and a joiner was sent 7.7 MB).

const ROOM = 'u=alice;s=shared';
const running: RelayProcess[] = [];

afterEach(() => stopAttack(running));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident memory of a process (Linux), in MB. */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** An awareness message (type 1) publishing `ids` (clock `clock`) with `state` (`null` removes them). */
function awarenessMessage(ids: number[], state: unknown, clock = 1): Uint8Array {
  const update = encoding.createEncoder();
  encoding.writeVarUint(update, ids.length);
  for (const id of ids) {
    encoding.writeVarUint(update, id);
    encoding.writeVarUint(update, clock);
    encoding.writeVarString(update, JSON.stringify(state));
  }
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 1);
  encoding.writeVarUint8Array(encoder, encoding.toUint8Array(update));
  return encoding.toUint8Array(encoder);
}

const range = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i);

async function health(port: number): Promise<{ awarenessClients?: number; connections: number }> {
  return (await fetch(`http://127.0.0.1:${port}/healthz`)).json() as Promise<{ awarenessClients?: number; connections: number }>;
}

describe('an awareness flood from one read-only token, the attacker in its own process', { timeout: 120_000 }, () => {
  it('is bounded: the relay keeps at most the subject\'s share of client ids, a joiner is sent little, the others still see each other', async () => {
    const relay = await serveRelay(tempDir(), ['--quiet']);
    running.push(relay);
    const rw = await token([ROOM], { subject: 'alice' });
    const a = client(relay.url, ROOM, rw);
    const b = client(relay.url, ROOM, rw);
    await Promise.all([synced(a.provider), synced(b.provider)]);
    a.provider.awareness.setLocalStateField('name', 'laptop');
    await until(() => b.provider.awareness.getStates().get(a.doc.clientID)?.name === 'laptop', 'b to see a');
    const rssBefore = rssMb(relay.child.pid!);

    // 150 messages per second (under the 200 per socket allowed), 50 new client ids each.
    const readOnly = await token([ROOM], { subject: 'mallory', access: 'read' });
    const attacker = await flood(relay.url, [ROOM], readOnly, 1, 150, 'awareness');
    await sleep(4000);
    // What a client joining now is sent, and what the relay holds, while the flood goes on.
    const joiner = await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${await token([ROOM], { subject: 'joiner', access: 'read' })}`);
    if (joiner.kind !== 'open') throw new Error('expected the joiner to open');
    await until(() => joiner.received.length > 0, 'the room\'s awareness, sent at join');
    const joinerBytes = joiner.received[0]!.byteLength;
    const held = (await health(relay.port)).awarenessClients;
    const rssAfter = rssMb(relay.child.pid!);
    const report = attacker.last();
    attacker.child.kill('SIGKILL');
    console.log(`awareness flood: attacker ${JSON.stringify(report)}; relay holds ${held} client ids; joiner sent ${joinerBytes} bytes of awareness; relay RSS ${rssBefore.toFixed(0)} -> ${rssAfter.toFixed(0)} MB`);

    expect(report!.sent).toBeGreaterThan(20); // the flood did run: over 1,000 client ids offered
    expect(report!.closed[String(CLOSE.documentTooLarge)] ?? 0).toBeGreaterThan(0); // past its subject's bound
    // Mallory's 64 (states, and removed ones whose clock is kept a while against echoes), a and b.
    expect(held).toBeLessThanOrEqual(64 + 2);
    expect(joinerBytes).toBeLessThan(16 * 1024);
    // The well-behaved clients still see each other's changes.
    a.provider.awareness.setLocalStateField('name', 'laptop, after');
    await until(() => b.provider.awareness.getStates().get(a.doc.clientID)?.name === 'laptop, after', 'b to see a again');
    expect(relay.child.exitCode).toBeNull();
  });
});

describe('awareness bounds', () => {
  it('per token subject: states over all its sockets (past it the socket is closed, 4413, nothing applied); a removed id counts until forgotten, its owner may publish it again', async () => {
    const relay = await testRelay({ maxAwarenessStatesPerSubject: 10 });
    const watcher = client(relay.url, ROOM, await token([ROOM], { subject: 'alice' }));
    await synced(watcher.provider);
    const path = `/${encodeURIComponent(ROOM)}?token=${await token([ROOM], { subject: 'mallory', access: 'read' })}`;
    const first = await rawConnect(relay.url, path);
    const second = await rawConnect(relay.url, path);
    if (first.kind !== 'open' || second.kind !== 'open') throw new Error('expected the sockets to open');
    const states = () => watcher.provider.awareness.getStates();
    first.socket.send(awarenessMessage(range(100, 6), { n: 1 }));
    second.socket.send(awarenessMessage(range(200, 4), { n: 1 }));
    await until(() => states().has(105) && states().has(203), 'the watcher to see 10 states');
    // Removed, then published again by their socket: still 10.
    first.socket.send(awarenessMessage(range(100, 3), null, 2));
    await until(() => !states().has(100), 'the removal');
    first.socket.send(awarenessMessage(range(100, 3), { n: 2 }, 3));
    await until(() => states().get(100)?.n === 2, 'the same ids again');
    // One more, from either socket, is past the bound; removed ids still count (for 30 s): removing frees no room for new ones.
    second.socket.send(awarenessMessage([203], null, 2));
    await until(() => !states().has(203), 'the second removal');
    const closed = closeCode(first.socket);
    first.socket.send(awarenessMessage([400], { n: 3 }));
    expect(await closed).toBe(CLOSE.documentTooLarge);
    // Its states went with it; nothing of the refused update arrived; the other socket stays.
    await until(() => !states().has(105), 'the closed socket\'s states to go');
    expect(states().has(400)).toBe(false);
    expect(second.socket.readyState).toBe(second.socket.OPEN);
  });

  it('per token subject: bytes of its states', async () => {
    const relay = await testRelay({ maxAwarenessBytesPerSubject: 1000 });
    const path = `/${encodeURIComponent(ROOM)}?token=${await token([ROOM], { subject: 'mallory', access: 'read' })}`;
    const socket = await rawConnect(relay.url, path);
    if (socket.kind !== 'open') throw new Error('expected the socket to open');
    socket.socket.send(awarenessMessage([1], { note: 'x'.repeat(600) }));
    socket.socket.send(awarenessMessage([1], { note: 'x'.repeat(900) }, 2)); // replaces its own: 900 bytes held
    await until(() => relay.stats().awarenessClients === 1, 'the state');
    const closed = closeCode(socket.socket);
    socket.socket.send(awarenessMessage([2], { note: 'x'.repeat(200) }));
    expect(await closed).toBe(CLOSE.documentTooLarge);
  });

  it('per room: states past the bound are not applied nor forwarded, the socket stays; room again once one leaves', async () => {
    const relay = await testRelay({ maxAwarenessStatesPerRoom: 3 });
    const watcher = client(relay.url, ROOM, await token([ROOM], { subject: 'watcher' }));
    await synced(watcher.provider);
    const sockets = [];
    for (const subject of ['s1', 's2', 's3']) {
      const attempt = await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${await token([ROOM], { subject, access: 'read' })}`);
      if (attempt.kind !== 'open') throw new Error('expected the socket to open');
      sockets.push(attempt.socket);
    }
    const states = () => watcher.provider.awareness.getStates();
    sockets[0]!.send(awarenessMessage([11], { n: 1 }));
    sockets[1]!.send(awarenessMessage([12], { n: 1 }));
    sockets[2]!.send(awarenessMessage([13], { n: 1 }));
    await until(() => states().has(11) && states().has(12) && states().has(13), 'three states');
    sockets[2]!.send(awarenessMessage([14], { n: 1 }));
    sockets[2]!.send(awarenessMessage([13], { n: 2 }, 2)); // a change of a state it holds still passes
    await until(() => states().get(13)?.n === 2, 'the change');
    expect(states().has(14)).toBe(false);
    expect(sockets[2]!.readyState).toBe(sockets[2]!.OPEN);
    sockets[0]!.close();
    await until(() => !states().has(11), 'the first to leave');
    sockets[2]!.send(awarenessMessage([14], { n: 1 }));
    await until(() => states().has(14), 'the third socket\'s second state, now that there is room');
  });

  it('bounds churn: publishing and removing new client ids counts against the subject until their clocks are forgotten', async () => {
    const relay = await testRelay();
    const socket = await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${await token([ROOM], { subject: 'mallory', access: 'read' })}`);
    if (socket.kind !== 'open') throw new Error('expected the socket to open');
    const closed = closeCode(socket.socket);
    for (let from = 0; from < 2000; from += 50) {
      socket.socket.send(awarenessMessage(range(from, 50), { n: 1 }));
      socket.socket.send(awarenessMessage(range(from, 50), null, 2));
    }
    expect(await closed).toBe(CLOSE.documentTooLarge);
    // And removals of ids that have no state leave nothing either (y-websocket clients echo every removal they hear).
    const echo = await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${await token([ROOM], { subject: 'alice', access: 'read' })}`);
    if (echo.kind !== 'open') throw new Error('expected the socket to open');
    echo.socket.send(awarenessMessage(range(10_000, 1000), null, 5));
    echo.socket.send(awarenessMessage([99_999], { n: 'last' }));
    await until(() => relay.stats().awarenessClients <= 64 + 1 && relay.stats().connections === 1, 'the first socket to be gone');
    const watcher = client(relay.url, ROOM, await token([ROOM], { subject: 'watcher' }));
    await synced(watcher.provider);
    await until(() => watcher.provider.awareness.getStates().has(99_999), 'the last state');
    expect(relay.stats().awarenessClients).toBeLessThanOrEqual(64 + 2); // mallory's kept clocks, the last id, the watcher
  });
});
