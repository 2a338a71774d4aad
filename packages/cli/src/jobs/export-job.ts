import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { namespaceKey } from '@zeromem/core';
import { NAMESPACE_OPTIONS, STORE_OPTIONS, parseJobArgs, requirePositionals } from './job-args.ts';
import { EXIT, JobError, invalidArgument, printSummary, type JobIo } from './job-error.ts';
import { namespaceArgs } from './namespace-args.ts';
import { openStore, storeChoice } from './open-store.ts';

export const EXPORT_USAGE = `Usage: zeromem export --user <id> [--agent <id>] [--scope <s>] [--out <file.jsonl>]

Writes a user's memories (all their namespaces, or one with --agent/--scope) as zeromem's
versioned JSONL export (memory.exportJsonl(): a header line, then one line per record),
read in one transaction. With --out the file appears whole or not at all and the summary
line goes to stdout; without it (or with --out -) the export goes to stdout and the
summary to stderr. Import it into this or another store with zeromem import (--dir,
--name) or memory.importJsonl(); zeromem check-import checks it first.

Options:
  --user <id>        whose memories (required)
  --agent <id>, --scope <s>   only this namespace
  --out <file>       where to write (default: stdout)
  --dir <dir>, --name <name>  the store (default $ZEROMEM_HOME or ~/.zeromem, name zeromem)
  -h, --help         show this help

Exit codes: 0 written; 1 the store failed; 2 invalid arguments, or nothing to export
(NOT_FOUND: the user, or the namespace, has no memories in this store; nothing written).
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
  if (values.out !== undefined && values.out.trim() === '') throw invalidArgument('--out must name a file (or - for stdout)');
  const toStdout = values.out === undefined || values.out === '-';
  const store = storeChoice(values);
  const memory = await openStore(store);
  try {
    const scope = values.agent === undefined && values.scope === undefined ? { userId: namespace.userId } : { namespace };
    const text = await memory.exportJsonl(scope);
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { records: number };
    if (header.records === 0) {
      const whose = 'namespace' in scope ? `namespace ${namespaceKey(namespace)}` : `user "${namespace.userId}"`;
      throw new JobError('NOT_FOUND', `${whose} has no memories in ${join(store.directory, `${store.name}.sqlite`)}: nothing exported (zeromem inspect lists who has)`);
    }
    const bytes = Buffer.byteLength(text);
    if (toStdout) {
      await writeOut(io.stdout, text);
      io.stderr.write(`${JSON.stringify({ ok: true, command: 'export', out: '-', scope, records: header.records, bytes })}\n`);
      return EXIT.ok;
    }
    const out = resolve(values.out!);
    writeWhole(out, text);
    printSummary(io, { ok: true, command: 'export', out, scope, records: header.records, bytes });
    return EXIT.ok;
  } finally {
    await memory.close();
  }
}

/** Writes `text` and waits until the stream took it (a pipe to `head` or `gzip` may be slower than the export). */
function writeOut(stream: JobIo['stdout'], text: string): Promise<void> {
  return new Promise((done, fail) => {
    const writable = stream as NodeJS.WritableStream;
    if (typeof writable.once !== 'function') {
      stream.write(text);
      done();
      return;
    }
    writable.write(text, (err) => (err ? fail(err) : done()));
  });
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
