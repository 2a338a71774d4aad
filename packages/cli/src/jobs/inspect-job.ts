import { statSync } from 'node:fs';
import { join } from 'node:path';
import { namespaceKey, type Namespace } from '@zeromem/core';
import { STORE_OPTIONS, parseJobArgs, requirePositionals, wholeNumber } from './job-args.ts';
import { EXIT, printSummary, type JobIo } from './job-error.ts';
import { JobProgress } from './job-progress.ts';
import { openStore, storeChoice } from './open-store.ts';

export const INSPECT_USAGE = `Usage: zeromem inspect [--user <id>] [--top <n>]

Prints what the store holds as one JSON line: its file and size, every namespace (or a
user's) with its record count, content bytes, sources, layers, time span and expired
records waiting for a sweep, the totals, and the most used tags.

Options:
  --user <id>        only this user's namespaces
  --top <n>          how many tags to list (default 10)
  --dir <dir>, --name <name>  the store (default $ZEROMEM_HOME or ~/.zeromem, name zeromem)
  -h, --help         show this help
`;

/** `zeromem inspect`: see {@link INSPECT_USAGE}. */
export async function runInspect(args: readonly string[], io: JobIo): Promise<number> {
  const { values, positionals } = parseJobArgs(args, { ...STORE_OPTIONS, user: { type: 'string' }, top: { type: 'string' } });
  if (values.help) {
    io.stdout.write(INSPECT_USAGE);
    return EXIT.ok;
  }
  requirePositionals(positionals, 0, 'options only');
  const top = values.top === undefined ? 10 : wholeNumber('--top', values.top, 0, 1000);
  const store = storeChoice(values);
  const memory = await openStore(store);
  try {
    const namespaces = await memory.listNamespaces(values.user === undefined ? {} : { userId: values.user });
    const tags = new Map<string, number>();
    const rows = [];
    const progress = new JobProgress('inspect', io.stderr, 'records');
    let total = 0;
    const stats = [];
    for (const namespace of namespaces) stats.push(await memory.stats(namespace));
    const records = stats.reduce((sum, s) => sum + s.count, 0);
    progress.start(records, 0, `${namespaces.length} namespaces`);
    for (const [i, namespace] of namespaces.entries()) {
      total += await countTags(memory, namespace, tags, () => progress.update(total, `${namespaces.length} namespaces`));
      rows.push({ namespace, key: namespaceKey(namespace), ...stats[i]! });
      progress.update(total, `${namespaces.length} namespaces`);
    }
    progress.stop();
    const file = join(store.directory, `${store.name}.sqlite`);
    printSummary(io, {
      ok: true,
      command: 'inspect',
      store: { file, bytes: fileSize(file) },
      namespaces: rows.length,
      records,
      contentBytes: rows.reduce((sum, r) => sum + r.contentBytes, 0),
      users: new Set(namespaces.map((n) => n.userId)).size,
      topTags: [...tags.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, top).map(([tag, count]) => ({ tag, count })),
      byNamespace: rows,
    });
    return EXIT.ok;
  } finally {
    await memory.close();
  }
}

/** Adds the namespace's tags to `tags`, a page at a time; returns the records read. */
async function countTags(memory: Awaited<ReturnType<typeof openStore>>, namespace: Namespace, tags: Map<string, number>, onPage: () => void): Promise<number> {
  let read = 0;
  let cursor: string | undefined;
  do {
    const page = await memory.list(namespace, { limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const record of page.items) for (const tag of record.tags) tags.set(tag, (tags.get(tag) ?? 0) + 1);
    read += page.items.length;
    onPage();
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return read;
}

function fileSize(file: string): number | null {
  try {
    return statSync(file).size;
  } catch {
    return null;
  }
}
