import { join } from 'node:path';
import { STORE_OPTIONS, parseJobArgs, requirePositionals } from './job-args.ts';
import { EXIT, invalidArgument, printSummary, type JobIo } from './job-error.ts';
import { openStore, storeChoice } from './open-store.ts';

export const FORGET_USER_USAGE = `Usage: zeromem forget-user <userId> --yes

Deletes every memory of a user, in all of their namespaces (memory.forgetUser()): the
records, their vectors, index entries, earlier versions and search snapshots. The audit
log keeps that it happened, never the content. --yes confirms; without it nothing is
deleted and the command says how many records it would delete.

Options:
  --yes              really delete
  --dir <dir>, --name <name>  the store (default $ZEROMEM_HOME or ~/.zeromem, name zeromem)
  -h, --help         show this help
`;

/** `zeromem forget-user`: see {@link FORGET_USER_USAGE}. */
export async function runForgetUser(args: readonly string[], io: JobIo): Promise<number> {
  const { values, positionals } = parseJobArgs(args, { ...STORE_OPTIONS, yes: { type: 'boolean' } });
  if (values.help) {
    io.stdout.write(FORGET_USER_USAGE);
    return EXIT.ok;
  }
  if (positionals.length === 0) throw invalidArgument('whose memories? zeromem forget-user <userId> --yes');
  requirePositionals(positionals, 1, 'one user at a time');
  const userId = positionals[0]!;
  const store = storeChoice(values);
  const memory = await openStore(store);
  try {
    const namespaces = await memory.listNamespaces({ userId });
    // An unknown user is most often a typo: say so, on stderr and in the summary.
    const warning = namespaces.length === 0 ? `no memories of "${userId}" in ${join(store.directory, `${store.name}.sqlite`)}: check the user id (zeromem inspect lists the users)` : undefined;
    if (warning) io.stderr.write(`forget-user: warning: ${warning}\n`);
    if (!values.yes) {
      let records = 0;
      for (const namespace of namespaces) records += await memory.count(namespace);
      if (!warning) io.stderr.write(`forget-user: would delete ${records} records of "${userId}"; pass --yes to delete them\n`);
      printSummary(io, { ok: true, command: 'forget-user', userId, dryRun: true, records, ...(warning ? { warning } : {}) });
      return EXIT.ok;
    }
    const forgotten = await memory.forgetUser(userId);
    printSummary(io, { ok: true, command: 'forget-user', userId, dryRun: false, forgotten, ...(warning ? { warning } : {}) });
    return EXIT.ok;
  } finally {
    await memory.close();
  }
}
