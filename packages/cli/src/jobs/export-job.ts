import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { NAMESPACE_OPTIONS, STORE_OPTIONS, parseJobArgs, requirePositionals } from './job-args.ts';
import { EXIT, invalidArgument, printSummary, type JobIo } from './job-error.ts';
import { namespaceArgs } from './namespace-args.ts';
import { openStore, storeChoice } from './open-store.ts';

export const EXPORT_USAGE = `Usage: zeromem export --user <id> [--agent <id>] [--scope <s>] --out <file.jsonl>

Writes a user's memories (all their namespaces, or one with --agent/--scope) as zeromem's
versioned JSONL export (memory.exportJsonl(): a header line, then one line per record),
read in one transaction. The file appears whole or not at all. Import it into another
store with memory.importJsonl() (check it first with zeromem check-import).

Options:
  --user <id>        whose memories (required)
  --agent <id>, --scope <s>   only this namespace
  --out <file>       where to write (required)
  --dir <dir>, --name <name>  the store (default $ZEROMEM_HOME or ~/.zeromem, name zeromem)
  -h, --help         show this help

Exit codes: 0 written; 1 the store failed; 2 invalid arguments.
`;

/** `zeromem export`: see {@link EXPORT_USAGE}. */
export async function runExport(args: readonly string[], io: JobIo): Promise<number> {
  const { values, positionals } = parseJobArgs(args, { ...STORE_OPTIONS, ...NAMESPACE_OPTIONS, out: { type: 'string' } });
  if (values.help) {
    io.stdout.write(EXPORT_USAGE);
    return EXIT.ok;
  }
  requirePositionals(positionals, 0, 'options only, e.g. --user u1 --out export.jsonl');
  const namespace = namespaceArgs(values, true);
  if (!values.out) throw invalidArgument('--out <file> is required');
  const out = resolve(values.out);
  const store = storeChoice(values);
  const memory = await openStore(store);
  try {
    const scope = values.agent === undefined && values.scope === undefined ? { userId: namespace.userId } : { namespace };
    const text = await memory.exportJsonl(scope);
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { records: number };
    writeWhole(out, text);
    printSummary(io, { ok: true, command: 'export', out, scope, records: header.records, bytes: Buffer.byteLength(text) });
    return EXIT.ok;
  } finally {
    await memory.close();
  }
}

/** Temporary file, fsync, rename: a crash never leaves half an export under the name. */
function writeWhole(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}
