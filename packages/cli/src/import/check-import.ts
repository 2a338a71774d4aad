import { openMemory, type Namespace } from '@zeromem/core';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { JobError } from '../jobs/job-error.ts';
import type { FailureLine } from './failure-report.ts';
import { importUnits, type ImportCounts } from './import-stream.ts';
import { readUnits, type InputFormat } from './input-units.ts';

/** Options of {@link checkImport}, as `zeromem check-import` parsed them. */
export interface ImportCheckOptions {
  file: string;
  format: InputFormat;
  /** The namespace of items that name none (`--user/--agent/--scope`). */
  namespace: Namespace | undefined;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Items per transaction, as `zeromem import` by default. */
const BATCH = 500;

/**
 * Reads a file as `zeromem import` does (the same reader, {@link importUnits}) into a
 * fresh in-process memory (fake-indexeddb: nothing is kept when the command ends), and
 * reports what it stored and every bad line by number, as they come. Exit code 0 when
 * every line is good, 1 otherwise.
 */
export async function checkImport(options: ImportCheckOptions): Promise<number> {
  const { stdout, stderr } = options;
  const memory = await openMemory({ name: 'zeromem-import-check', indexedDB: new IDBFactory(), IDBKeyRange });
  const { units } = readUnits(options.file, options.format);
  const counts: ImportCounts = { stored: 0, duplicates: 0, expired: 0, failed: 0 };
  const print = (failures: readonly FailureLine[]) => {
    for (const failure of failures) stderr.write(`line ${failure.line}: ${failure.code} ${failure.message}\n`);
  };
  try {
    const read = await importUnits(memory, units, counts, { namespace: options.namespace, batch: BATCH, skip: 0, stopRequested: () => false, onCommitted: print });
    stdout.write(`${options.file}: ${describeFile(read.header, options.format)}\n`);
    stdout.write(`records: ${counts.stored} imported, ${counts.duplicates} duplicates, ${counts.expired} expired (skipped), ${counts.failed} bad lines\n`);
    return counts.failed ? 1 : 0;
  } catch (err) {
    if (!(err instanceof JobError)) throw err;
    stderr.write(`${options.file}: ${err.message}\n`);
    return 1;
  } finally {
    await units.return(undefined);
    await memory.close();
  }
}

/** What kind of file it is, for the summary: an export's header, or the plain format. */
function describeFile(header: string | undefined, format: InputFormat): string {
  if (header === undefined) return format === 'csv' ? 'CSV, one memory per row' : 'JSONL, one memory per line';
  const { version, scope, vectors } = JSON.parse(header) as { version: number; scope: { namespace?: unknown; userId?: string }; vectors: { model: string; dimension: number } | null };
  const whose = scope.namespace !== undefined ? `namespace ${JSON.stringify(scope.namespace)}` : `user ${scope.userId}`;
  return `zeromem export version ${version}, ${whose}, vectors: ${vectors ? `${vectors.model} (${vectors.dimension}-d)` : 'none'}`;
}
