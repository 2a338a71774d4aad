import { DEFAULT_CONSOLIDATE_THRESHOLD, type Namespace } from '@zeromem/core';
import { NAMESPACE_OPTIONS, STORE_OPTIONS, parseJobArgs, requirePositionals } from './job-args.ts';
import { EXIT, invalidArgument, printSummary, type JobIo } from './job-error.ts';
import { Interrupt } from './interrupt.ts';
import { JobProgress } from './job-progress.ts';
import { namespaceArgs } from './namespace-args.ts';
import { openStore, storeChoice } from './open-store.ts';

const STORE_HELP = `  --dir <dir>, --name <name>  the store (default $ZEROMEM_HOME or ~/.zeromem, name zeromem)
  -h, --help         show this help

Meant for a schedule (cron, a systemd timer): each run opens the store, does one pass and
exits. It shares the store with the other processes that have it open (zeromem-mcp,
zeromem serve, the desktop app): its writes take turns with theirs. A run that fails
(e.g. STORAGE_FAILED) exits 1; the next run catches up.`;

export const SWEEP_USAGE = `Usage: zeromem sweep

Deletes every expired record now (memory.sweep()), purged as by a forget.

Options:
${STORE_HELP}
`;

export const RETIER_USAGE = `Usage: zeromem retier [--user <id> [--agent <id>] [--scope <s>]]

Ages records by the clock (memory.retier()): untouched records' importance decays, and
records untouched long enough with low importance go to the cold tier. Every record, or
one namespace.

Options:
  --user <id>, --agent <id>, --scope <s>   only this namespace
${STORE_HELP}
`;

export const CONSOLIDATE_USAGE = `Usage: zeromem consolidate [--user <id> [--agent <id>] [--scope <s>]] [--threshold <0..1>] [--dry-run]

Merges near-duplicate memories (memory.consolidate()) in every namespace, one user's, or
one namespace: the newest content survives with the highest importance and the union of
tags; the others are forgotten. Ctrl-C stops after the namespace in flight (each one is
its own transaction); a rerun does the rest.

Options:
  --user <id>        only this user's namespaces (with --agent/--scope: one namespace)
  --threshold <x>    cosine similarity from which two records are one fact (default ${DEFAULT_CONSOLIDATE_THRESHOLD})
  --dry-run          only print the planned merges
${STORE_HELP}
`;

/** `zeromem sweep`: see {@link SWEEP_USAGE}. */
export async function runSweep(args: readonly string[], io: JobIo): Promise<number> {
  const { values, positionals } = parseJobArgs(args, STORE_OPTIONS);
  if (values.help) {
    io.stdout.write(SWEEP_USAGE);
    return EXIT.ok;
  }
  requirePositionals(positionals, 0, 'sweep takes no arguments');
  const memory = await openStore(storeChoice(values));
  try {
    const deleted = await memory.sweep();
    printSummary(io, { ok: true, command: 'sweep', deleted });
    return EXIT.ok;
  } finally {
    await memory.close();
  }
}

/** `zeromem retier`: see {@link RETIER_USAGE}. */
export async function runRetier(args: readonly string[], io: JobIo): Promise<number> {
  const { values, positionals } = parseJobArgs(args, { ...STORE_OPTIONS, ...NAMESPACE_OPTIONS });
  if (values.help) {
    io.stdout.write(RETIER_USAGE);
    return EXIT.ok;
  }
  requirePositionals(positionals, 0, 'options only');
  const namespace = namespaceArgs(values);
  const memory = await openStore(storeChoice(values));
  try {
    const result = await memory.retier(namespace ? { namespace } : {});
    printSummary(io, { ok: true, command: 'retier', namespace: namespace ?? null, ...result });
    return EXIT.ok;
  } finally {
    await memory.close();
  }
}

/** `zeromem consolidate`: see {@link CONSOLIDATE_USAGE}. */
export async function runConsolidate(args: readonly string[], io: JobIo): Promise<number> {
  const { values, positionals } = parseJobArgs(args, { ...STORE_OPTIONS, ...NAMESPACE_OPTIONS, threshold: { type: 'string' }, 'dry-run': { type: 'boolean' } });
  if (values.help) {
    io.stdout.write(CONSOLIDATE_USAGE);
    return EXIT.ok;
  }
  requirePositionals(positionals, 0, 'options only');
  let threshold: number | undefined;
  if (values.threshold !== undefined) {
    threshold = Number(values.threshold);
    if (values.threshold.trim() === '' || !(threshold >= 0 && threshold <= 1)) throw invalidArgument(`--threshold must be a number from 0 to 1, got "${values.threshold}"`);
  }
  const one = values.agent !== undefined || values.scope !== undefined ? namespaceArgs(values, true) : undefined;
  const dryRun = values['dry-run'] === true;
  const memory = await openStore(storeChoice(values));
  const interrupt = new Interrupt();
  const progress = new JobProgress('consolidate', io.stderr, 'records');
  try {
    const namespaces: Namespace[] = one ? [one] : await memory.listNamespaces(values.user === undefined ? {} : { userId: values.user });
    progress.start(namespaces.length, 0, 'namespaces');
    let done = 0;
    let merged = 0;
    let groups = 0;
    let skipped = 0;
    const planned = [];
    for (const namespace of namespaces) {
      if (interrupt.requested) break;
      const result = await memory.consolidate(namespace, { dryRun, ...(threshold !== undefined ? { threshold } : {}) });
      groups += result.groups.length;
      skipped += result.skipped.length;
      merged += result.groups.reduce((sum, g) => sum + g.mergedIds.length, 0);
      if (dryRun) for (const g of result.groups) planned.push({ namespace, keepId: g.keepId, mergedIds: g.mergedIds, similarity: g.similarity });
      progress.update(++done, 'namespaces');
    }
    progress.stop();
    const interrupted = interrupt.requested !== undefined;
    printSummary(io, { ok: !interrupted, command: 'consolidate', dryRun, namespaces: done, of: namespaces.length, groups, merged, skipped, interrupted, ...(dryRun ? { planned } : {}) });
    return interrupted ? EXIT.interrupted : EXIT.ok;
  } finally {
    progress.stop();
    interrupt.dispose();
    await memory.close();
  }
}
