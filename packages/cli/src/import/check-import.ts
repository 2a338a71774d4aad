import { isZeromemError, openMemory, type ExportHeader, type LineFailure } from '@zeromem/core';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { fileLines } from '../file-lines.ts';

/** Options of {@link checkImport}, as `zeromem check-import` parsed them. */
export interface ImportCheckOptions {
  file: string;
  /** Import the good lines when some are bad (as `importJsonl({ skipInvalid: true })`). */
  skipInvalid: boolean;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

function printFailures(failures: readonly LineFailure[], stderr: ImportCheckOptions['stderr']): void {
  for (const failure of failures) {
    for (const issue of failure.issues) stderr.write(`line ${failure.line}: ${failure.code} ${issue.path ? `${issue.path}: ` : ''}${issue.message}\n`);
  }
}

/**
 * Imports a zeromem JSONL export into a fresh in-process memory (fake-indexeddb: nothing
 * is kept when the command ends) through `importJsonl`, and reports what it stored and
 * every bad line by number. Exit code 0 when every line is good, 1 otherwise.
 */
export async function checkImport(options: ImportCheckOptions): Promise<number> {
  const { stdout, stderr } = options;
  const memory = await openMemory({ name: 'zeromem-import-check', indexedDB: new IDBFactory(), IDBKeyRange });
  try {
    let header: ExportHeader | undefined;
    const lines = (async function* () {
      for await (const line of fileLines(options.file)) {
        if (header === undefined) header = tryHeader(line);
        yield line;
      }
    })();
    const result = await memory.importJsonl(lines, { skipInvalid: options.skipInvalid });
    const scope = header && ('namespace' in header.scope ? `namespace ${JSON.stringify(header.scope.namespace)}` : `user ${header.scope.userId}`);
    stdout.write(`${options.file}: zeromem export version ${header?.version}, ${scope}, vectors: ${header?.vectors ? `${header.vectors.model} (${header.vectors.dimension}-d)` : 'none'}\n`);
    stdout.write(`records: ${result.imported} imported, ${result.deduplicated} duplicates, ${result.expired} expired (skipped), ${result.failures.length} bad lines\n`);
    printFailures(result.failures, stderr);
    return result.failures.length ? 1 : 0;
  } catch (err) {
    if (isZeromemError(err) && err.details.lines) {
      stderr.write(`${options.file}: ${err.message}\n`);
      printFailures(err.details.lines, stderr);
      return 1;
    }
    throw err;
  } finally {
    await memory.close();
  }
}

/** The header, for the summary (core validates it; a bad one fails the import with its reason). */
function tryHeader(line: string): ExportHeader | undefined {
  try {
    return JSON.parse(line) as ExportHeader;
  } catch {
    return undefined;
  }
}
