import { statSync } from 'node:fs';
import { join } from 'node:path';
import { namespaceKey, type ProfileEntry } from '@zeromem/core';
import { STORE_OPTIONS, parseJobArgs, requirePositionals, wholeNumber } from './job-args.ts';
import { EXIT, printSummary, type JobIo } from './job-error.ts';
import { JobProgress, formatBytes } from './job-progress.ts';
import { openStore, storeChoice } from './open-store.ts';

export const INSPECT_USAGE = `Usage: zeromem inspect [--user <id>] [--top <n>] [--json]

Prints what the store holds: its file and size, every namespace (or a user's) with its
record count, content bytes, layers, time span and expired records waiting for a sweep,
its profile (the current fact of every key, with the day it holds since), the totals, and
the most used tags. A summary for people by default; --json prints it all
as one JSON line (with sources per namespace), for scripts.

Options:
  --user <id>        only this user's namespaces
  --top <n>          how many tags to list (default 10)
  --json             one JSON line instead of the summary
  --dir <dir>, --name <name>  the store (default $ZEROMEM_HOME or ~/.zeromem, name zeromem)
  -h, --help         show this help
`;

/** `zeromem inspect`: see {@link INSPECT_USAGE}. */
export async function runInspect(args: readonly string[], io: JobIo): Promise<number> {
  const { values, positionals } = parseJobArgs(args, { ...STORE_OPTIONS, user: { type: 'string' }, top: { type: 'string' }, json: { type: 'boolean' } });
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
    const progress = new JobProgress('inspect', io.stderr, 'records');
    progress.start(namespaces.length, 0, `${namespaces.length} namespaces`);
    const rows = [];
    const tags = new Map<string, number>();
    for (const namespace of namespaces) {
      const { byTag, ...stats } = await memory.stats(namespace); // one read of the namespace's records: counts, sizes and tags
      for (const [tag, count] of Object.entries(byTag)) tags.set(tag, (tags.get(tag) ?? 0) + count);
      const profile = await memory.profile(namespace); // the current keyed facts, by key
      rows.push({ namespace, key: namespaceKey(namespace), ...stats, profile });
      progress.update(rows.length, `${rows.length}/${namespaces.length} namespaces`);
    }
    progress.stop();
    const file = join(store.directory, `${store.name}.sqlite`);
    const summary = {
      ok: true,
      command: 'inspect',
      store: { file, bytes: fileSize(file) },
      namespaces: rows.length,
      records: rows.reduce((sum, r) => sum + r.count, 0),
      contentBytes: rows.reduce((sum, r) => sum + r.contentBytes, 0),
      users: new Set(namespaces.map((n) => n.userId)).size,
      topTags: [...tags.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, top).map(([tag, count]) => ({ tag, count })),
      byNamespace: rows,
    };
    if (values.json) printSummary(io, summary);
    else io.stdout.write(describeStore(summary));
    return EXIT.ok;
  } finally {
    await memory.close();
  }
}

type InspectSummary = {
  store: { file: string; bytes: number | null };
  namespaces: number;
  records: number;
  contentBytes: number;
  users: number;
  topTags: Array<{ tag: string; count: number }>;
  byNamespace: Array<{
    key: string;
    count: number;
    contentBytes: number;
    byLayer: Record<string, number>;
    oldestCreatedAt: number | null;
    newestCreatedAt: number | null;
    expiredPendingSweep: number;
    profile: ProfileEntry[];
  }>;
};

/** Longest fact content a profile line shows, in characters. */
const PROFILE_TEXT = 80;

/** The summary as people read it: the totals, one line per namespace and its profile, the top tags. */
export function describeStore(summary: InspectSummary): string {
  const day = (time: number | null) => (time === null ? '-' : new Date(time).toISOString().slice(0, 10));
  const lines = [
    `${summary.store.file} (${summary.store.bytes === null ? 'no file yet' : formatBytes(summary.store.bytes)})`,
    `${summary.records} records in ${summary.namespaces} namespaces of ${summary.users} users, ${formatBytes(summary.contentBytes)} of text`,
  ];
  if (summary.byNamespace.length > 0) {
    const width = Math.max(...summary.byNamespace.map((row) => row.key.length));
    lines.push('');
    for (const row of summary.byNamespace) {
      const layers = Object.entries(row.byLayer).filter(([, n]) => n > 0).map(([layer, n]) => `${layer} ${n}`).join(', ') || 'empty';
      const expired = row.expiredPendingSweep ? `, ${row.expiredPendingSweep} expired awaiting sweep` : '';
      lines.push(`  ${row.key.padEnd(width)}  ${String(row.count).padStart(7)} records  ${formatBytes(row.contentBytes).padStart(8)}  ${day(row.oldestCreatedAt)} .. ${day(row.newestCreatedAt)}  (${layers}${expired})`);
      for (const fact of row.profile) {
        const flat = fact.content.replace(/\s+/g, ' ');
        const text = flat.length > PROFILE_TEXT ? `${flat.slice(0, PROFILE_TEXT - 1)}…` : flat;
        lines.push(`    ${fact.key}: ${text} (since ${day(fact.validFrom)})`);
      }
    }
  }
  if (summary.topTags.length > 0) lines.push('', `top tags: ${summary.topTags.map(({ tag, count }) => `${tag} ${count}`).join(', ')}`);
  lines.push('', 'zeromem inspect --json prints all of it as one JSON line.');
  return `${lines.join('\n')}\n`;
}

function fileSize(file: string): number | null {
  try {
    return statSync(file).size;
  } catch {
    return null;
  }
}
