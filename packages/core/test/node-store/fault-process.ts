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
 * Prints `closed` once the memory closed.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory, ZeromemError } from '../../src/index.node.ts';
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

const memory = await openMemory({ name, directory });
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
} else throw new Error(`unknown command ${command}`);
await memory.close();
out('closed');
