import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { openMemory } from '../../../src/index.node.ts';
import { expectCode } from '../../helpers.ts';
import { NS, runStoreProcess, startStoreProcess } from './run-store-process.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-disk-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function read(dir: string, name: string): Promise<{ count: number; ids: string[] }> {
  const lines = await runStoreProcess(['read', dir, name]);
  return JSON.parse(lines.at(-1)!) as { count: number; ids: string[] };
}

async function tryOpen(dir: string, name: string, user?: { uid: number; gid: number }): Promise<{ ok?: true; code?: string; reason?: string; message?: string }> {
  const lines = await runStoreProcess(['open', dir, name], user ?? {});
  return JSON.parse(lines.at(-1)!) as { ok?: true; code?: string; reason?: string };
}

/** Every file of a directory with its bytes, to check that a failed open changed nothing. */
function snapshotFiles(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((file) => [file, readFileSync(join(dir, file)).toString('base64')]));
}

// Each test starts Node processes (tsx compiles on start): generous on a loaded machine.
describe('memories on disk in Node', { timeout: 120_000 }, () => {
  it('a process killed with SIGKILL right after acknowledgements loses none of them', async () => {
    const dir = tempDir();
    const writer = startStoreProcess(['remember', dir, 'agent', '0']);
    await writer.waitFor((line) => writer.lines.filter((l) => l.startsWith('ack ')).length >= 25 && line.startsWith('ack '));
    writer.child.kill('SIGKILL');
    const { signal } = await writer.exited;
    expect(signal).toBe('SIGKILL');
    const acknowledged = writer.lines.filter((line) => line.startsWith('ack ')).map((line) => line.slice(4));
    expect(acknowledged.length).toBeGreaterThanOrEqual(25);
    const found = await read(dir, 'agent');
    expect(found.ids).toEqual(expect.arrayContaining(acknowledged));
    // At most the write in flight when the signal came is there unacknowledged.
    expect(found.count - acknowledged.length).toBeLessThanOrEqual(1);
  });

  it('a batch is all or nothing on disk, also when the process is killed while writing batches', async () => {
    const dir = tempDir();
    const writer = startStoreProcess(['batches', dir, 'agent', '200']);
    await writer.waitFor((line) => line.startsWith('ack 3 '));
    writer.child.kill('SIGKILL');
    await writer.exited;
    const acknowledged = writer.lines.filter((line) => line.startsWith('ack ')).length;
    const found = await read(dir, 'agent');
    expect(found.count % 200).toBe(0); // never part of a batch
    expect(found.count / 200 - acknowledged).toBeGreaterThanOrEqual(0);
    expect(found.count / 200 - acknowledged).toBeLessThanOrEqual(1);
  });

  it('keeps memories, updates and forgets across a restart of the process', async () => {
    const dir = tempDir();
    let memory = await openMemory({ name: 'agent', directory: dir });
    const { id: kept } = await memory.remember({ namespace: NS, content: 'Prefers phone calls', tags: ['contact'] });
    const { id: changed } = await memory.remember({ namespace: NS, content: 'Lives in Berlin' });
    const { id: gone } = await memory.remember({ namespace: NS, content: 'Temporary note' });
    await memory.update(NS, changed, { content: 'Lives in Hamburg' });
    await memory.forget(NS, gone);
    await memory.rememberMany([1, 2, 3].map((i) => ({ namespace: NS, content: `Batch item ${i}` })));
    await memory.close();

    const found = await read(dir, 'agent');
    expect(found.count).toBe(5);
    expect(found.ids).toEqual(expect.arrayContaining([kept, changed]));
    expect(found.ids).not.toContain(gone);

    memory = await openMemory({ name: 'agent', directory: dir });
    expect((await memory.get(NS, changed))?.content).toBe('Lives in Hamburg');
    expect((await memory.get(NS, kept))?.tags).toEqual(['contact']);
    // The index trees built at load answer like the ones built write by write.
    expect((await memory.list(NS, { tags: { any: ['contact'] } })).items.map((r) => r.id)).toEqual([kept]);
    expect((await memory.list(NS, { limit: 10 })).items.map((r) => r.content)).toEqual(['Batch item 3', 'Batch item 2', 'Batch item 1', 'Lives in Hamburg', 'Prefers phone calls']);
    expect((await memory.recall(NS, 'phone')).hits[0]?.id).toBe(kept);
    const seqs = (await memory.audit(NS)).map((entry) => entry.seq);
    const { id: later } = await memory.remember({ namespace: NS, content: 'Written after the reopen' });
    const next = (await memory.audit(NS)).filter((entry) => entry.id === later)[0]!.seq;
    expect(next).toBeGreaterThan(Math.max(...seqs)); // the audit sequence goes on, never reused
    await memory.close();
  });

  it('two memories in one process on one store share it, like two tabs', async () => {
    const dir = tempDir();
    const a = await openMemory({ name: 'agent', directory: dir });
    const b = await openMemory({ name: 'agent', directory: dir });
    const { id } = await a.remember({ namespace: NS, content: 'Written by a' });
    expect((await b.get(NS, id))?.content).toBe('Written by a');
    await a.close();
    await b.remember({ namespace: NS, content: 'Written by b after a closed' });
    await b.close();
    expect((await read(dir, 'agent')).count).toBe(2);
  });

  it('processes share one store: each sees the others\' acknowledged writes at once in get, list and recall', async () => {
    const dir = tempDir();
    const memory = await openMemory({ name: 'agent', directory: dir });
    const { id: mine } = await memory.remember({ namespace: NS, content: 'Written by the test process before the others started' });
    const holder = startStoreProcess(['hold', dir, 'agent']);
    await holder.waitFor((line) => line === 'open' || line.startsWith('exited'));
    const writers = [startStoreProcess(['remember', dir, 'agent', '30']), startStoreProcess(['remember', dir, 'agent', '30'])];
    const ours: string[] = [];
    for (let i = 0; i < 30; i++) ours.push((await memory.remember({ namespace: NS, content: `Test process line ${i}` })).id);
    for (const writer of writers) expect((await writer.exited).code, (await writer.exited).stderr).toBe(0);
    const theirs = writers.flatMap((writer) => writer.lines.filter((line) => line.startsWith('ack ')).map((line) => line.slice(4)));
    expect(theirs).toHaveLength(60);
    for (const id of theirs) expect((await memory.get(NS, id))?.id).toBe(id);
    expect(await memory.count(NS)).toBe(91);
    const listed = await memory.list(NS, { limit: 100 });
    expect(listed.items.map((record) => record.id).sort()).toEqual([mine, ...ours, ...theirs].sort());
    // recall catches up with the audit log the other processes appended to
    const pid = writers[1]!.child.pid!;
    const hit = (await memory.recall(NS, `Memory number 29 of process ${pid}`)).hits[0];
    expect(hit?.id).toBe(theirs.at(-1));
    // and the others see this process's writes
    expect((await read(dir, 'agent')).ids).toEqual(expect.arrayContaining([mine, ...ours]));
    holder.child.stdin!.end();
    expect((await holder.exited).code).toBe(0);
    const audit = await memory.audit(NS);
    expect(new Set(audit.map((entry) => entry.seq)).size).toBe(audit.length); // one audit sequence for every process
    await memory.close();
  });

  it('watch() and recall in one process see another process\'s acknowledged writes', async () => {
    const dir = tempDir();
    const memory = await openMemory({ name: 'agent', directory: dir });
    const pages: string[][] = [];
    let seen: (ids: string[]) => void = () => {};
    const stop = memory.watch(NS, undefined, (page) => {
      const ids = page.items.map((record) => record.id);
      pages.push(ids);
      seen(ids);
    });
    const writer = startStoreProcess(['remember', dir, 'agent', '1']);
    expect((await writer.exited).code).toBe(0);
    const [theirs] = writer.lines.filter((line) => line.startsWith('ack ')).map((line) => line.slice(4));
    // Delivered once the poll sees the other process's commit (a tenth of a second), without any call of this process.
    await new Promise<void>((resolve) => {
      seen = (ids) => ids.includes(theirs!) && resolve();
      if (pages.some((ids) => ids.includes(theirs!))) resolve();
    });
    expect(pages[0]).toEqual([]);
    expect((await memory.recall(NS, `Memory number 0 of process ${writer.child.pid}`)).hits[0]?.id).toBe(theirs);
    stop();
    await memory.close();
  });

  it('a process whose store another release changed the format of gets STORAGE_FAILED (locked) saying why, and writes nothing', async () => {
    const dir = tempDir();
    const memory = await openMemory({ name: 'agent', directory: dir });
    await memory.remember({ namespace: NS, content: 'Written before the upgrade' });
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');
    const other = new Database(join(dir, 'agent.sqlite'));
    other.prepare("UPDATE meta SET v = v + 10 WHERE k = 'version'").run(); // what a newer release's upgrade does
    other.close();
    const err = await expectCode(memory.remember({ namespace: NS, content: 'Written after it' }), 'STORAGE_FAILED');
    expect(err.message, JSON.stringify(err.details)).toContain('changed this memory\'s format');
    expect(err.details.storage?.reason).toBe('locked');
    await memory.close();
  });

  it('a corrupt store gives STORAGE_FAILED (corrupt) at open and is left as it was', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'garbage.sqlite'), 'this is not a database file, but someone may want it back'.repeat(100));
    const before = snapshotFiles(dir);
    expect(await tryOpen(dir, 'garbage')).toMatchObject({ code: 'STORAGE_FAILED', reason: 'corrupt' });
    const err = await expectCode(openMemory({ name: 'garbage', directory: dir }), 'STORAGE_FAILED');
    expect(err.details.storage?.reason).toBe('corrupt');
    expect(snapshotFiles(dir)).toEqual(before);

    // A real store whose pages are damaged after the header.
    const memory = await openMemory({ name: 'damaged', directory: dir });
    await memory.rememberMany(Array.from({ length: 300 }, (_, i) => ({ namespace: NS, content: `Memory ${i} with some words to fill pages` })));
    await memory.close();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the file closes once the connection's work is done
    const file = join(dir, 'damaged.sqlite');
    const bytes = readFileSync(file);
    bytes.fill(0xa5, 4096, bytes.length - 4096);
    writeFileSync(file, bytes);
    const damaged = snapshotFiles(dir);
    expect(await tryOpen(dir, 'damaged')).toMatchObject({ code: 'STORAGE_FAILED', reason: 'corrupt' });
    expect(snapshotFiles(dir)).toEqual(damaged);
  });

  it('a zero-byte store file is STORAGE_FAILED (corrupt) at open, never an empty store, and is left as it was', async () => {
    const dir = tempDir();
    const memory = await openMemory({ name: 'c', directory: dir });
    await memory.remember({ namespace: NS, content: 'Every record of this store' });
    await memory.close();
    truncateSync(join(dir, 'c.sqlite'), 0);
    const before = snapshotFiles(dir);
    const err = await expectCode(openMemory({ name: 'c', directory: dir }), 'STORAGE_FAILED');
    expect(err.details.storage).toEqual({ reason: 'corrupt', path: join(dir, 'c.sqlite') });
    expect(err.message).toContain('empty');
    expect(snapshotFiles(dir)).toEqual(before);
  });

  it('a truncated store file is STORAGE_FAILED (corrupt) at open and is left as it was', async () => {
    const dir = tempDir();
    const memory = await openMemory({ name: 'cut', directory: dir });
    await memory.rememberMany(Array.from({ length: 300 }, (_, i) => ({ namespace: NS, content: `Memory ${i} with some words to fill pages` })));
    await memory.close();
    const file = join(dir, 'cut.sqlite');
    for (const length of [50, 4096 + 17, Math.floor(statSync(file).size / 2 / 4096) * 4096]) {
      const whole = readFileSync(file);
      writeFileSync(file, whole.subarray(0, length));
      const before = snapshotFiles(dir);
      const err = await expectCode(openMemory({ name: 'cut', directory: dir }), 'STORAGE_FAILED');
      expect(err.details.storage?.reason).toBe('corrupt');
      expect(snapshotFiles(dir)).toEqual(before);
      writeFileSync(file, whole);
    }
  });

  it('a name whose file names would be over 255 bytes is INVALID_INPUT naming the limit, and nothing is created', async () => {
    const dir = tempDir();
    // 200 characters pass the name check; %-encoded for the file they are 600 bytes.
    const err = await expectCode(openMemory({ name: 'ü'.repeat(100), directory: dir }), 'INVALID_INPUT', 'name');
    expect(err.message).toContain('255 bytes');
    expect(readdirSync(dir)).toEqual([]);
    const longest = 'n'.repeat(255 - '.sqlite-journal'.length); // the longest file SQLite keeps next to the store
    const memory = await openMemory({ name: longest, directory: dir });
    await memory.close();
    await expectCode(openMemory({ name: `${longest}n`, directory: dir }), 'INVALID_INPUT', 'name');
  });

  it('a store this process cannot write gives STORAGE_FAILED (read-only) at open and is left as it was', async () => {
    const dir = tempDir();
    const memory = await openMemory({ name: 'agent', directory: dir });
    await memory.remember({ namespace: NS, content: 'Written while it was writable' });
    await memory.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'agent.sqlite'), 0o444);
    // Root ignores file modes: then the check runs as an unprivileged user.
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    if (user) chownSync(dir, 0, 0);
    const before = snapshotFiles(dir);
    const refused = await tryOpen(dir, 'agent', user);
    expect(refused, refused.message).toMatchObject({ code: 'STORAGE_FAILED', reason: 'read-only' });
    expect(snapshotFiles(dir)).toEqual(before);
    chmodSync(join(dir, 'agent.sqlite'), 0o644);
    expect((await read(dir, 'agent')).count).toBe(1);
  });

  it('a bad directory option is INVALID_INPUT, and directory with indexedDB is refused', async () => {
    await expectCode(openMemory({ name: 'x', directory: '' }), 'INVALID_INPUT', 'directory');
    await expectCode(openMemory({ name: 'x', directory: 42 as unknown as string }), 'INVALID_INPUT', 'directory');
    await expectCode(openMemory({ name: 'x', directory: tempDir(), indexedDB: new IDBFactory(), IDBKeyRange }), 'INVALID_INPUT', 'directory');
  });

  it('without a directory, Node stores under ZEROMEM_HOME, else ~/.zeromem; with fake-indexeddb/auto nothing goes to disk', async () => {
    const zeromemHome = tempDir();
    expect(await runStoreProcess(['default', 'my-agent'], { env: { ZEROMEM_HOME: zeromemHome } })).toEqual(['ok']);
    expect(readdirSync(zeromemHome).sort()).toEqual(['my-agent.sqlite', 'my-agent.sqlite-reserve']); // the space a forget on a full disk uses

    const home = tempDir();
    expect(await runStoreProcess(['default', 'my-agent'], { env: { ZEROMEM_HOME: '', HOME: home, USERPROFILE: home } })).toEqual(['ok']);
    expect(readdirSync(join(home, '.zeromem')).sort()).toEqual(['my-agent.sqlite', 'my-agent.sqlite-reserve']);

    const untouched = tempDir();
    expect(await runStoreProcess(['auto', 'my-agent'], { env: { ZEROMEM_HOME: untouched, HOME: untouched } })).toEqual(['ok']);
    expect(readdirSync(untouched)).toEqual([]);
  });

  it('names map to one file each, whatever characters they hold', async () => {
    const dir = tempDir();
    for (const name of ['a/b', 'a%2Fb', '..', 'Ünïcödé name']) {
      const memory = await openMemory({ name, directory: dir });
      await memory.remember({ namespace: NS, content: `In ${name}` });
      await memory.close();
    }
    const files = ['%2E%2E.sqlite', 'a%252Fb.sqlite', 'a%2Fb.sqlite', '%C3%9Cn%C3%AFc%C3%B6d%C3%A9%20name.sqlite'];
    expect(readdirSync(dir).sort()).toEqual([...files, ...files.map((file) => `${file}-reserve`)].sort()); // closed: no WAL left
    expect(existsSync(join(dir, 'a'))).toBe(false);
    for (const name of ['a/b', '..']) {
      const memory = await openMemory({ name, directory: dir });
      expect(await memory.count(NS)).toBe(1); // each name opens its own file again
      await memory.close();
    }
  });

  it('NFC and NFD spellings of a name open one store, also one an earlier release created under the NFD spelling', async () => {
    const dir = tempDir();
    const nfc = 'Café Zoë'.normalize('NFC');
    const nfd = nfc.normalize('NFD');
    expect(nfd).not.toBe(nfc);
    const a = await openMemory({ name: nfc, directory: dir });
    await a.remember({ namespace: NS, content: 'Written under the NFC spelling' });
    await a.close();
    const b = await openMemory({ name: nfd, directory: dir });
    expect(await b.count(NS)).toBe(1);
    await b.close();
    expect(readdirSync(dir).filter((file) => file.endsWith('.sqlite'))).toHaveLength(1);

    // A file an earlier release named after the NFD bytes: both spellings find it, none creates a second.
    const old = tempDir();
    const legacy = await openMemory({ name: nfd, directory: old });
    await legacy.remember({ namespace: NS, content: 'Written by an earlier release' });
    await legacy.close();
    const encodedNfd = `${[...Buffer.from(nfd, 'utf8')].map((byte) => (/[A-Za-z0-9_-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)).join('')}.sqlite`;
    for (const file of readdirSync(old)) renameSync(join(old, file), join(old, file.replace(/^[^.]*\.sqlite/, encodedNfd)));
    for (const name of [nfc, nfd]) {
      const memory = await openMemory({ name, directory: old });
      expect(await memory.count(NS)).toBe(1);
      await memory.close();
    }
    expect(readdirSync(old).filter((file) => file.endsWith('.sqlite'))).toEqual([encodedNfd]);
  });

  it('Windows reserved names (con, NUL, com1, lpt9) are stored under file names Windows accepts, and open the same store again', async () => {
    const dir = tempDir();
    for (const name of ['con', 'NUL', 'com1', 'Lpt9', 'aux', 'prn']) {
      const memory = await openMemory({ name, directory: dir });
      await memory.remember({ namespace: NS, content: `In ${name}` });
      await memory.close();
      const again = await openMemory({ name, directory: dir });
      expect((await again.list(NS)).items.map((record) => record.content)).toEqual([`In ${name}`]);
      await again.close();
    }
    const reserved = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;
    const stores = readdirSync(dir).filter((file) => file.endsWith('.sqlite'));
    expect(stores).toHaveLength(6);
    for (const file of readdirSync(dir)) expect(reserved.test(file.split('.')[0]!), file).toBe(false);
  });
});
