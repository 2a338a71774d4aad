/**
 * A separate Node process using a store on disk, driven by the tests in this folder:
 *
 *   node --import tsx store-process.ts <command> <directory> <name> [n]
 *
 * remember: remembers n memories one at a time (forever when n is 0), printing `ack <id>` after each.
 * batches:  rememberMany of n memories at a time, forever, printing `ack <batch> <first id>` after each.
 * hold:     opens the store, prints `open`, and keeps it open until stdin closes.
 * read:     prints `{ count, ids }` of the namespace as JSON.
 * serve:    prints `open`, then answers one JSON command per stdin line with one JSON line
 *           (`{ ok: result }` or `{ error: code }`), see {@link answer}.
 * open:     tries to open; prints `{ ok: true }` or `{ code, reason }` as JSON.
 * default:  opens `name` with no directory (ZEROMEM_HOME, else ~/.zeromem), remembers one memory, prints `ok`.
 * auto:     imports fake-indexeddb/auto first, then the same as default.
 */
import type { Memory } from '../../../src/index.node.ts';
import { NS } from './run-store-process.ts';

const [command, directory, name, n] = process.argv.slice(2);
if (command === 'auto') await import('fake-indexeddb/auto' as string); // (its types are not in its exports map)
const { openMemory, ZeromemError } = await import('../../../src/index.node.ts');
const out = (line: string) => process.stdout.write(`${line}\n`);

async function allIds(memory: Memory): Promise<string[]> {
  const text = await memory.exportJsonl({ namespace: NS });
  return text.split('\n').slice(1).filter(Boolean).map((line) => (JSON.parse(line) as { record: { id: string } }).record.id);
}

/** A command of `serve`: a verb on the namespace. */
type Command =
  | { op: 'remember'; content: string }
  | { op: 'update'; id: string; content: string }
  | { op: 'forget'; id: string }
  | { op: 'get'; id: string }
  | { op: 'all' }
  | { op: 'recall'; query: string };

/** What `serve` answers: an id, a record's content (or null), every record as [id, content] sorted, or the ids recall found. */
async function answer(memory: Memory, command: Command): Promise<unknown> {
  switch (command.op) {
    case 'remember':
      return (await memory.remember({ namespace: NS, content: command.content })).id;
    case 'update':
      return (await memory.update(NS, command.id, { content: command.content })).content;
    case 'forget':
      return await memory.forget(NS, command.id);
    case 'get':
      return (await memory.get(NS, command.id))?.content ?? null;
    case 'all': {
      const all: Array<[string, string]> = [];
      let cursor: string | undefined;
      do {
        const page = await memory.list(NS, { limit: 100, ...(cursor ? { cursor } : {}) });
        for (const record of page.items) all.push([record.id, record.content]);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return all.sort(([a], [b]) => (a < b ? -1 : 1));
    }
    case 'recall':
      return (await memory.recall(NS, command.query)).hits.map((hit) => hit.id);
  }
}

if (command === 'default' || command === 'auto') {
  const memory = await openMemory({ name: directory! });
  await memory.remember({ namespace: NS, content: 'Stored where the defaults say' });
  await memory.close();
  out('ok');
} else if (command === 'open') {
  try {
    const memory = await openMemory({ name: name!, directory: directory! });
    await memory.close();
    out(JSON.stringify({ ok: true }));
  } catch (err) {
    if (!(err instanceof ZeromemError)) throw err;
    out(JSON.stringify({ code: err.code, reason: err.details.storage?.reason, message: err.message }));
  }
} else {
  const memory = await openMemory({ name: name!, directory: directory! });
  if (command === 'remember') {
    for (let i = 0; n === '0' || i < Number(n); i++) {
      const { id } = await memory.remember({ namespace: NS, content: `Memory number ${i} of process ${process.pid}` });
      out(`ack ${id}`);
    }
  } else if (command === 'batches') {
    for (let batch = 0; ; batch++) {
      const { results } = await memory.rememberMany(Array.from({ length: Number(n) }, (_, i) => ({ namespace: NS, content: `Batch ${batch} item ${i} of ${process.pid}` })));
      out(`ack ${batch} ${results[0]!.record.id}`);
    }
  } else if (command === 'hold') {
    out('open');
    process.stdin.resume();
    await new Promise((resolve) => process.stdin.on('end', resolve));
  } else if (command === 'serve') {
    out('open');
    const { createInterface } = await import('node:readline');
    for await (const line of createInterface({ input: process.stdin })) {
      try {
        out(JSON.stringify({ ok: await answer(memory, JSON.parse(line) as Command) }));
      } catch (err) {
        if (!(err instanceof ZeromemError)) throw err;
        out(JSON.stringify({ error: err.code, message: err.message }));
      }
    }
  } else if (command === 'read') {
    const ids = await allIds(memory);
    out(JSON.stringify({ count: await memory.count(NS), ids }));
  } else throw new Error(`unknown command ${command}`);
  await memory.close();
}
