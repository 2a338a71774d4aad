/**
 * A Node process that meets a storage fault, driven by storage-faults.test.ts (usually on
 * a small tmpfs of its own, run-store-process.ts `tmpfs`):
 *
 *   node --import tsx fault-process.ts <command> <directory> <name>
 *
 * full-recall: remembers 30 memories, fills the disk, recalls (its access counts are
 *              written in the background, and fail), waits for that write, prints `alive`.
 * full-forget: remembers 40 memories, fills the disk, then prints one JSON line per step:
 *              a remember, a forget, a forgetWhere, a second forget (`{ step, ok }` or
 *              `{ step, code, message }`), and `{ found }` with what is left.
 * damaged:     reads a store whose pages were damaged: list (every page), exportJsonl,
 *              stats, remember, recall (its access counts are written later), forgetUser,
 *              each a `{ step, ok }` or `{ step, code, reason, message }` line.
 * tampered:    get, list and exportJsonl of a store one record's content was changed in,
 *              then a forget of that record and a list.
 * migrated:    opens a store of an earlier release's format, printing each `{ progress }` of
 *              the migration it runs or waits for, then `{ count }` of the namespace.
 * Prints `closed` once the memory closed, then `open files <n>`: how many of the store's
 * files this process still has open.
 */
import { closeSync, openSync, readdirSync, readlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory, ZeromemError } from '../../../src/index.node.ts';
import { NS } from './run-store-process.ts';

const [command, directory, name] = process.argv.slice(2) as [string, string, string];
const out = (line: string) => process.stdout.write(`${line}\n`);

/** Writes a file until the disk refuses more, byte by byte at the end: nothing is left free. */
function fillDisk(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  try {
    for (const size of [1 << 16, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x5a);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        if ((err as { code?: string }).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** Runs one step and prints how it went. */
async function step(label: string, run: () => Promise<unknown>): Promise<void> {
  try {
    out(JSON.stringify({ step: label, ok: await run() }));
  } catch (err) {
    if (!(err instanceof ZeromemError)) throw err;
    out(JSON.stringify({ step: label, code: err.code, reason: err.details.storage?.reason, message: err.message }));
  }
}

// migrated: opens (migrating, or waiting for another process's migration), printing each progress heard as JSON, then `{ count }` of the namespace.
const memory = await openMemory({ name, directory, ...(command === 'migrated' ? { onMigration: (progress) => out(JSON.stringify({ progress })) } : {}) });
if (command === 'full-recall') {
  await memory.rememberMany(Array.from({ length: 30 }, (_, i) => ({ namespace: NS, content: `Note ${i} about the garden and its roses` })));
  fillDisk(directory);
  const { hits } = await memory.recall(NS, 'garden roses');
  out(`recalled ${hits.length}`);
  // The access counts are written about a second after the recall.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  out('alive');
} else if (command === 'full-forget') {
  const { results } = await memory.rememberMany(Array.from({ length: 40 }, (_, i) => ({ namespace: NS, content: `Secret ${i}: the code of safe number ${i} is ${1000 + i}`, tags: i % 2 ? ['odd'] : ['even'] })));
  fillDisk(directory);
  await step('remember', () => memory.remember({ namespace: NS, content: 'One more thing to keep, on a full disk' }).then((r) => r.id));
  await step('forget', () => memory.forget(NS, results[0]!.record.id));
  await step('forgetWhere', () => memory.forgetWhere(NS, { tags: { any: ['odd'] } }));
  await step('forget again', () => memory.forget(NS, results[2]!.record.id));
  out(JSON.stringify({ found: await memory.count(NS) }));
} else if (command === 'damaged') {
  await step('list', async () => {
    let count = 0;
    let cursor: string | undefined;
    do {
      const page = await memory.list(NS, { limit: 100, ...(cursor ? { cursor } : {}) });
      count += page.items.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return count;
  });
  await step('exportJsonl', () => memory.exportJsonl({ namespace: NS }).then((text) => text.length));
  await step('stats', () => memory.stats(NS).then((stats) => stats.count));
  await step('remember', () => memory.remember({ namespace: NS, content: 'Written into a file known to be damaged' }).then((r) => r.id));
  await step('recall', () => memory.recall(NS, 'number 7 words').then((r) => r.hits.length));
  await step('forgetUser', () => memory.forgetUser(NS.userId));
  // The recall's access counts are written about a second later.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  out('alive');
} else if (command === 'tampered') {
  const id = process.argv[5]!;
  await step('get', () => memory.get(NS, id).then((record) => record?.content));
  await step('list', () => memory.list(NS, { limit: 100 }).then((page) => page.items.length));
  await step('exportJsonl', () => memory.exportJsonl({ namespace: NS }).then((text) => text.length));
  await step('forget', () => memory.forget(NS, id));
  await step('list after forget', () => memory.list(NS, { limit: 100 }).then((page) => page.items.length));
} else if (command === 'migrated') {
  out(JSON.stringify({ count: await memory.count(NS) }));
} else throw new Error(`unknown command ${command}`);
await memory.close();
out('closed');
// The store's files this process still holds (a reader left in a transaction kept its connection open).
await new Promise((resolve) => setTimeout(resolve, 100));
const held = readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`).includes(join(directory, name));
  } catch {
    return false;
  }
});
out(`open files ${held.length}`);
