import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CLOSE, verifyToken } from '../src/index.ts';
import { SECRET, cleanup, client, closeCode, rawConnect, synced, tempDir, token, until } from './helpers.ts';
import { type RelayProcess, runRelay, serveRelay } from './spawn-relay.ts';

const ROOM = 'u=alice;s=shared';
const running: RelayProcess[] = [];

afterEach(async () => {
  await cleanup();
  for (const relay of running.splice(0)) {
    if (relay.child.exitCode === null && relay.child.signalCode === null) relay.child.kill('SIGKILL');
    await relay.exited;
  }
});

async function serve(dataDir: string, extra: readonly string[] = []) {
  const relay = await serveRelay(dataDir, extra);
  running.push(relay);
  return relay;
}

// Each test starts several processes that compile the TypeScript bin on load (tsx): slow on a loaded machine.
describe('the zeromem-relay process', { timeout: 120_000 }, () => {
  it('prints its help and refuses bad command lines with exit 2', async () => {
    // Independent processes, started together: each start is slow on a loaded machine.
    const [help, noSecret, short, unknown, badNumber] = await Promise.all([
      runRelay(['--help']),
      runRelay(['--data-dir', tempDir()], { ZEROMEM_RELAY_SECRET: '' }),
      runRelay(['--data-dir', tempDir(), '--secret', 'too-short']),
      runRelay(['--no-such-flag']),
      runRelay(['--port', 'eighty']),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('ZEROMEM_RELAY_SECRET');
    expect(help.stdout).toContain('--max-connections-per-subject');
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain('A token secret is required');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('too short');
    expect(unknown.code).toBe(2);
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toContain('--port must be a whole number');
  });

  it('exits 1 when its port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runRelay(['--port', String(port), '--data-dir', tempDir()]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('EADDRINUSE');
    } finally {
      blocker.close();
    }
  });

  it('takes --max-awareness-bytes: a larger awareness update closes the socket with 1009', async () => {
    const relay = await serve(tempDir(), ['--quiet', '--max-awareness-bytes', '100']);
    const attempt = await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${await token([ROOM], { access: 'read' })}`);
    if (attempt.kind !== 'open') throw new Error('expected the socket to open');
    const closed = closeCode(attempt.socket);
    // Type 1 (awareness), then the update: one client id 7, clock 1, a 119-character JSON state (123 bytes).
    const state = JSON.stringify({ note: 'x'.repeat(108) });
    attempt.socket.send(new Uint8Array([1, 3 + state.length + 1, 1, 7, 1, state.length, ...Buffer.from(state)]));
    expect(await closed).toBe(CLOSE.messageTooBig);
  });

  it('issues tokens with "token", and refuses bad token command lines with exit 2', async () => {
    const issued = await runRelay(['token', '--room', ROOM, '--room', 'u=alice;s=two', '--read-only', '--ttl', '2h', '--subject', 'phone']);
    expect(issued.code).toBe(0);
    const grant = await verifyToken(issued.stdout.trim(), SECRET);
    expect(grant.subject).toBe('phone');
    expect([...grant.rooms]).toEqual([
      [ROOM, 'read'],
      ['u=alice;s=two', 'read'],
    ]);
    expect(Math.abs(grant.expiresAt - Date.now() - 2 * 3600_000)).toBeLessThan(10_000);

    const [noRoom, badTtl, badRoom, noSecret] = await Promise.all([
      runRelay(['token']),
      runRelay(['token', '--room', ROOM, '--ttl', 'forever']),
      runRelay(['token', '--room', 'a\u0001b']),
      runRelay(['token', '--room', ROOM], { ZEROMEM_RELAY_SECRET: '' }),
    ]);
    expect([noRoom.code, badTtl.code, badRoom.code, noSecret.code]).toEqual([2, 2, 2, 2]);
    expect(noSecret.stderr).toContain('A token secret is required');
  });

  it('serves a client holding a token that "token" issued', async () => {
    const relay = await serve(tempDir(), ['--quiet']);
    const rw = (await runRelay(['token', '--room', ROOM])).stdout.trim();
    // Without --subject every token gets its own subject, so they do not share a connection limit.
    expect((await verifyToken(rw, SECRET)).subject).toMatch(/^client-[0-9a-f]{12}$/);
    expect((await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${rw}`)).kind).toBe('open');
    expect(await (await fetch(`http://127.0.0.1:${relay.port}/healthz`)).json()).toMatchObject({ status: 'ok', connections: 1 });
  });

  it('loses nothing it forwarded when killed (SIGKILL) and restarted on the same directory', async () => {
    const dataDir = tempDir();
    const first = await serve(dataDir);
    const rw = await token([ROOM]);
    const writer = client(first.url, ROOM, rw);
    const reader = client(first.url, ROOM, rw);
    await Promise.all([synced(writer.provider), synced(reader.provider)]);
    const records = writer.doc.getMap('records');
    for (let i = 0; i < 50; i++) records.set(`r${i}`, { content: `memory ${i}` });
    records.delete('r7');
    // Forwarded to the reader = acknowledged by the relay.
    await until(() => reader.doc.getMap('records').size === 49 && reader.doc.getMap('records').has('r49'), 'the reader to see every write');
    writer.provider.destroy();
    reader.provider.destroy();
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await serve(dataDir);
    const fresh = client(second.url, ROOM, rw);
    await synced(fresh.provider);
    expect(fresh.doc.getMap('records').toJSON()).toEqual(reader.doc.getMap('records').toJSON());
  });

  it('on SIGTERM stops accepting, closes sockets with 1001, stores everything and exits 0', async () => {
    const dataDir = tempDir();
    const relay = await serve(dataDir);
    const rw = await token([ROOM]);
    const writer = client(relay.url, ROOM, rw);
    await synced(writer.provider);
    const reader = client(relay.url, ROOM, rw);
    await synced(reader.provider);
    writer.doc.getMap('records').set('r1', 'kept across the stop');
    await until(() => reader.doc.getMap('records').has('r1'), 'the relay to forward r1');
    const watcher = await rawConnect(relay.url, `/${encodeURIComponent(ROOM)}?token=${rw}`);
    if (watcher.kind !== 'open') throw new Error('expected the socket to open');
    await until(() => watcher.received.length >= 1, 'the watcher to get the handshake');
    const closed = closeCode(watcher.socket);
    writer.provider.shouldConnect = false;
    reader.provider.shouldConnect = false;

    relay.child.kill('SIGTERM');
    expect(await closed).toBe(CLOSE.goingAway);
    expect(await relay.exited).toBe(0);
    const messages = relay
      .stderr()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toContain('stopping');
    expect(messages.at(-1)).toBe('stopped');
    await expect(rawConnect(relay.url, '/x')).rejects.toThrow(/ECONNREFUSED/);

    const again = await serve(dataDir);
    const fresh = client(again.url, ROOM, rw);
    await synced(fresh.provider);
    expect(fresh.doc.getMap('records').toJSON()).toEqual({ r1: 'kept across the stop' });
    expect(WebSocket.CLOSED).toBe(watcher.socket.readyState);
  });
});
