import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXPORT_FORMAT, type Namespace } from '@zeromem/core';
import { NAMESPACE_OPTIONS, STORE_OPTIONS, parseJobArgs, requirePositionals, wholeNumber } from '../jobs/job-args.ts';
import { EXIT, JobError, invalidArgument, printSummary, type JobIo } from '../jobs/job-error.ts';
import { JobProgress } from '../jobs/job-progress.ts';
import { Interrupt } from '../jobs/interrupt.ts';
import { namespaceArgs } from '../jobs/namespace-args.ts';
import { openStore, storeChoice } from '../jobs/open-store.ts';
import { checkResumable, checkpointPath, fingerprint, readCheckpoint, removeCheckpoint, writeCheckpoint, type ImportCheckpoint } from './checkpoint.ts';
import { FailureReport } from './failure-report.ts';
import { importUnits } from './import-stream.ts';
import { formatOf, readUnits, type InputFormat } from './input-units.ts';

export const IMPORT_USAGE = `Usage: zeromem import <file> [options]

Stores the memories of a JSONL or CSV file (.jsonl, .ndjson, .csv; gzipped with .gz) in
the store, a batch at a time (one transaction each). Progress and an estimate go to
stderr, one JSON summary line to stdout. Items that cannot be stored are listed in the
failure report (JSONL: line, code, message, item); the others are stored.

A zeromem export (what zeromem export and memory.exportJsonl() write: a first line with
"format") is read as memory.importJsonl() reads it, every field kept (ids, times,
access counts, keyed facts, vectors), at most 100 records per transaction; --user,
--agent and --scope do not apply to it (its records name their namespaces). Any other
JSONL file has one memory per line: {"namespace":{"userId":"u1"},"content":"...",
"tags":[...], "metadata":{...}, "importance":0.7, "createdAt":"...", "id":"..."};
"userId", "agentId" and "scope" may also be top-level fields, and these go through
rememberMany. CSV has a header row with the columns content, id, userId, agentId, scope,
source, layer, tags (|-separated), metadata (JSON), importance, createdAt, expiresAt, ttl,
or metadata.<key> columns. zeromem check-import reads a file the same way without
keeping anything.

Ctrl-C stops after the batch in flight; run the same command again to continue. A
checkpoint (<dir>/jobs/) keeps how far the last committed batch got, and every item is
stored under its own "id" or one derived from its content, so an item stored twice
(after a crash between a commit and its checkpoint) is found again, never copied.

Options:
  --user <id>, --agent <id>, --scope <s>
                     namespace of the items that name none
  --format jsonl|csv the file's format (default: from its name)
  --batch <n>        items per transaction (1..10000, default 500)
  --report <file>    failure report (default <file>.failures.jsonl)
  --restart          ignore a checkpoint and start from the first line
  --dir <dir>        the store's directory (default $ZEROMEM_HOME, else ~/.zeromem)
  --name <name>      the store's name (default zeromem)
  -h, --help         show this help

Exit codes: 0 every item stored; 1 some items failed (see the report) or the job failed;
2 invalid arguments or file (nothing written); 130 interrupted (a rerun continues).
`;

interface ImportArgs {
  file: string;
  format: InputFormat;
  namespace: Namespace | undefined;
  batch: number;
  report: string;
  restart: boolean;
  store: ReturnType<typeof storeChoice>;
}

function parseImportJobArgs(args: readonly string[]): ImportArgs | 'help' {
  const { values, positionals } = parseJobArgs(args, {
    ...STORE_OPTIONS,
    ...NAMESPACE_OPTIONS,
    format: { type: 'string' },
    batch: { type: 'string' },
    report: { type: 'string' },
    restart: { type: 'boolean' },
  });
  if (values.help) return 'help';
  if (positionals.length === 0) throw invalidArgument('which file? zeromem import <file.jsonl|file.csv>');
  requirePositionals(positionals, 1, 'one file at a time');
  const file = resolve(positionals[0]!);
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    throw new JobError('NOT_FOUND', `no such file: ${file}`);
  }
  if (!isFile) throw invalidArgument(`not a file: ${file}`);
  const format = values.format ?? formatOf(file);
  if (format !== 'jsonl' && format !== 'csv') {
    throw invalidArgument(values.format === undefined ? `cannot tell the format of ${file} from its name; pass --format jsonl or --format csv` : `--format must be jsonl or csv, got "${values.format}"`);
  }
  const report = resolve(values.report ?? `${file}.failures.jsonl`);
  if (report === file) throw invalidArgument('--report must not be the input file');
  return {
    file,
    format,
    namespace: namespaceArgs(values),
    batch: values.batch === undefined ? 500 : wholeNumber('--batch', values.batch, 1, 10_000),
    report,
    restart: values.restart === true,
    store: storeChoice(values),
  };
}

/** `zeromem import`: see {@link IMPORT_USAGE}. Resolves to the exit code. */
export async function runImport(args: readonly string[], io: JobIo): Promise<number> {
  const options = parseImportJobArgs(args);
  if (options === 'help') {
    io.stdout.write(IMPORT_USAGE);
    return EXIT.ok;
  }
  const started = Date.now();
  const settings = { format: options.format, namespace: options.namespace ?? null };
  const current = fingerprint(options.file);
  const checkpointFile = checkpointPath(options.store.directory, options.store.name, options.file);
  if (options.restart) removeCheckpoint(checkpointFile);
  const resumed = readCheckpoint(checkpointFile);
  if (resumed) checkResumable(resumed, current, settings, checkpointFile);
  const resumedAfterLine = resumed ? resumed.line : null;

  const interrupt = new Interrupt(); // from here on, Ctrl-C ends the job with its summary
  const memory = await openStore(options.store).catch((err: unknown) => {
    interrupt.dispose();
    throw err;
  });
  const report = new FailureReport(options.report, resumed?.reportBytes);
  const progress = new JobProgress('import', io.stderr, 'bytes');
  interrupt.onRequest = () => progress.stop();
  const state: ImportCheckpoint = resumed ?? {
    version: 1,
    input: options.file,
    fingerprint: current,
    settings,
    units: 0,
    line: 0,
    reportBytes: 0,
    counts: { stored: 0, duplicates: 0, expired: 0, failed: 0 },
  };
  state.counts.expired ??= 0; // a checkpoint written before exports were read
  const { units, bytesRead } = readUnits(options.file, options.format);
  // Progress in bytes of the file: exact item ends for a plain file, the read position for a gzipped one.
  const gzipped = options.file.endsWith('.gz');
  let position = 0;
  const done = () => (gzipped ? bytesRead() : position);
  try {
    if (resumed) io.stderr.write(`import: continuing after line ${resumed.line} (${resumed.units} items committed before)\n`);
    const detail = () => `${state.units.toLocaleString('en-US')} items, ${state.counts.failed.toLocaleString('en-US')} failed`;
    progress.start(current.size, done(), detail());
    const read = await importUnits(memory, units, state.counts, {
      namespace: options.namespace,
      batch: options.batch,
      skip: state.units,
      stopRequested: () => interrupt.requested !== undefined,
      onSkipped: (unit) => (position = unit.end), // committed by an earlier run
      onCommitted: (failures, batch) => {
        // The failures (synced), then the checkpoint: a crash before it leaves the old one, and the rerun finds the batch's records again.
        report.append(failures);
        state.units += batch.length;
        if (batch.length) {
          state.line = batch[batch.length - 1]!.line;
          position = batch[batch.length - 1]!.end;
        }
        state.reportBytes = report.bytes;
        writeCheckpoint(checkpointFile, state);
        progress.update(done(), detail());
      },
    });
    progress.update(read.stopped ? done() : current.size, detail());
    progress.stop();
    const interrupted = read.stopped;
    if (!interrupted) removeCheckpoint(checkpointFile);
    const summary = {
      ok: !interrupted && state.counts.failed === 0,
      command: 'import',
      file: options.file,
      format: read.header === undefined ? options.format : EXPORT_FORMAT,
      items: state.units,
      ...state.counts,
      report: report.written ? options.report : null,
      resumedAfterLine,
      interrupted,
      checkpoint: interrupted ? checkpointFile : null,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
    if (interrupted) io.stderr.write(`import: stopped after line ${state.line} (${interrupt.requested}); run the same command again to continue\n`);
    else if (state.counts.failed) io.stderr.write(`import: ${state.counts.failed} items not stored, listed in ${options.report}\n`);
    printSummary(io, summary);
    return interrupted ? EXIT.interrupted : state.counts.failed ? EXIT.failed : EXIT.ok;
  } finally {
    progress.stop();
    interrupt.dispose();
    report.close();
    await units.return(undefined);
    await memory.close();
  }
}
