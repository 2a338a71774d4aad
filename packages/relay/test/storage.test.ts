import { openSync, writeFileSync, writeSync, closeSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { CLOSE, DATABASE_FILE } from '../src/index.ts';
import { cleanup, client, synced, tempDir, testRelay, token, until } from './helpers.ts';
import { spawnRelay } from './spawn-relay.ts';

const ROOM = 'u=alice;s=shared';
const DAMAGED = 'u=alice;s=damaged';

afterEach(cleanup);

/** Runs the relay bin on `dataDir`; resolves with its exit, or kills it and says so if it started serving. */
async function startOrExit(dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const relay = spawnRelay(['--port', '0', '--data-dir', dataDir]);
  const started = (async () => {
    while (!relay.stdout().includes('ws://')) await new Promise((resolve) => setTimeout(resolve, 25));
    relay.child.kill('SIGKILL');
  })();
  const code = await Promise.race([relay.exited, started.then(() => relay.exited.then(() => 'started' as const))]);
  return { code: code === 'started' ? null : code, stdout: relay.stdout(), stderr: relay.stderr() };
}

/** A data directory holding a real relay database with `rooms` rooms of small updates. */
async function populated(rooms: number): Promise<string> {
  const dataDir = tempDir();
  const relay = await testRelay({ dataDir, compactEvery: 1_000_000 });
  for (let r = 0; r < rooms; r++) {
    const room = `u=alice;s=room-${r}`;
    const writer = client(relay.url, room, await token([room]));
    await synced(writer.provider);
    const records = writer.doc.getMap('records');
    for (let i = 0; i < 40; i++) records.set(`r${i}`, `memory ${r}/${i}`);
    writer.doc.getMap('records').set('last', true);
    const check = client(relay.url, room, await token([room]));
    await synced(check.provider);
    await until(() => check.doc.getMap('records').get('last') === true, 'the writes to be stored');
    writer.provider.destroy();
    check.provider.destroy();
  }
  await relay.close();
  return dataDir;
}

describe('the database at start', () => {
  it('refuses to start (exit 1) when relay.sqlite exists but is empty', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, DATABASE_FILE), '');
    const result = await startOrExit(dataDir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is empty');
    expect(result.stdout).toBe('');
  });

  it('refuses to start (exit 1) when relay.sqlite fails its integrity check', async () => {
    const dataDir = await populated(3);
    const file = join(dataDir, DATABASE_FILE);
    const pageSize = 4096;
    const pages = Math.floor(statSync(file).size / pageSize);
    expect(pages).toBeGreaterThan(4);
    // Overwrite one whole page in the middle of the file (not the header).
    const garbage = Buffer.alloc(pageSize, 0).map((_, i) => (i * 31 + 7) & 0xff);
    const fd = openSync(file, 'r+');
    writeSync(fd, garbage, 0, pageSize, Math.floor(pages / 2) * pageSize);
    closeSync(fd);
    const result = await startOrExit(dataDir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/damaged|malformed|not a database/);
    expect(result.stdout).toBe('');
  });
});

describe('a room whose stored document cannot be read', () => {
  it('is reported in /healthz and the log, and its clients are closed with 4422, which y-websocket does not retry', async () => {
    const dataDir = tempDir();
    const first = await testRelay({ dataDir });
    await first.close();
    // A stored update that is not one (cut in half): the database itself is sound.
    const doc = new Y.Doc();
    doc.getMap('records').set('r1', 'x'.repeat(64));
    const update = Y.encodeStateAsUpdate(doc);
    const db = new Database(join(dataDir, DATABASE_FILE));
    db.prepare('INSERT INTO updates (room, data) VALUES (?, ?)').run(DAMAGED, update.slice(0, update.byteLength >> 1));
    db.close();

    const errors: Array<Record<string, unknown>> = [];
    const logger = { error: (msg: string, fields?: Record<string, unknown>) => void errors.push({ msg, ...fields }), warn() {}, info() {}, debug() {} };
    const relay = await testRelay({ dataDir, logger });
    const victim = client(relay.url, DAMAGED, await token([DAMAGED]));
    const closed = new Promise<{ code: number }>((resolve) => victim.provider.once('closed', resolve));
    expect((await closed).code).toBe(CLOSE.roomUnreadable);
    expect(victim.provider.shouldConnect).toBe(false);
    expect(errors).toContainEqual(expect.objectContaining({ msg: 'room unreadable', room: DAMAGED }));
    const health = await (await fetch(`http://127.0.0.1:${relay.port}/healthz`)).json();
    expect(health).toMatchObject({ status: 'degraded', unreadableRooms: 1 });

    // Other rooms are served as usual, and the damaged row is left for the operator, not compacted away.
    const other = client(relay.url, ROOM, await token([ROOM]));
    await synced(other.provider);
    await relay.close();
    const rows = new Database(join(dataDir, DATABASE_FILE), { readonly: true }).prepare('SELECT count(*) AS n FROM updates WHERE room = ?').get(DAMAGED);
    expect(rows).toEqual({ n: 1 });
  });
});
