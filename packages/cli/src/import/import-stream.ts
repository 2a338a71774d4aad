import { MAX_REPORTED_LINES, isZeromemError, type InputIssue, type Memory, type Namespace, type RememberInput } from '@zeromem/core';
import { JobError } from '../jobs/job-error.ts';
import type { FailureLine } from './failure-report.ts';
import { toRememberInput } from './import-item.ts';
import type { InputUnit } from './input-units.ts';

/** What an import stored and refused so far (kept in the checkpoint). */
export interface ImportCounts {
  stored: number;
  duplicates: number;
  /** Records of an export that had already expired: skipped, as `importJsonl()` skips them. */
  expired: number;
  failed: number;
}

/** How {@link importUnits} runs. */
export interface ImportStreamOptions {
  /** The namespace of plain items that name none (`--user/--agent/--scope`). */
  namespace: Namespace | undefined;
  /** Items per transaction. */
  batch: number;
  /** Items an earlier run committed: read past, not stored again. */
  skip: number;
  /** Checked before each item: true stops after the batch in flight (Ctrl-C). */
  stopRequested(): boolean;
  /** A skipped item (progress). */
  onSkipped?(unit: InputUnit): void;
  /** After each committed batch (its failures, in file order, are already counted). */
  onCommitted(failures: FailureLine[], batch: readonly InputUnit[]): void;
}

/** What {@link importUnits} read. */
export interface ImportStreamResult {
  /** The export's header line when the file is a zeromem export, else `undefined` (one memory per line, or CSV). */
  header: string | undefined;
  /** Items read (records of an export, memories of a plain file), the skipped ones included. */
  items: number;
  /** Stopped early by {@link ImportStreamOptions.stopRequested}. */
  stopped: boolean;
}

/**
 * The one reader behind `zeromem import` and `zeromem check-import`: stores the file's
 * items a batch (one transaction) at a time and counts what happened to each, so both
 * commands say the same of every file. Plain items go through `rememberMany` (namespace
 * defaulted, an id derived when they have none); the record lines of a zeromem export go
 * through core's `importJsonl` with the export's own header, so this reads every export
 * core reads and keeps every field, as the SDK and `POST /v1/import` do.
 * @throws JobError INVALID_INPUT when the export's header is not one core reads (nothing is written)
 */
export async function importUnits(memory: Memory, units: AsyncIterable<InputUnit>, counts: ImportCounts, options: ImportStreamOptions): Promise<ImportStreamResult> {
  let header: string | undefined;
  let items = 0;
  let batch: InputUnit[] = [];
  const commit = async () => {
    const failures = header === undefined ? await storeItems(memory, batch, options.namespace, counts) : await storeRecords(memory, header, batch, counts);
    counts.failed += failures.length;
    options.onCommitted(failures, batch);
    batch = [];
  };
  for await (const unit of units) {
    if (unit.exportLine === 'header') {
      header = await checkedHeader(memory, unit);
      continue;
    }
    if (options.stopRequested()) return { header, items, stopped: true };
    if (items++ < options.skip) {
      options.onSkipped?.(unit);
      continue;
    }
    batch.push(unit);
    // An export's batch is at most what importJsonl reports line by line, so every bad line is in the report.
    if (batch.length >= (header === undefined ? options.batch : Math.min(options.batch, MAX_REPORTED_LINES))) await commit();
  }
  if (batch.length) await commit();
  if (header !== undefined) {
    const announced = (JSON.parse(header) as { records: number }).records;
    if (announced !== items) {
      // As importJsonl says it of a file whose count is off (it stores the good lines with skipInvalid, as here).
      const message = `records: the header announces ${announced} record lines, the file has ${items}: it is truncated or spliced`;
      counts.failed++;
      options.onCommitted([{ line: 1, code: 'INVALID_INPUT', message, issues: [{ path: 'records', message: message.slice('records: '.length) }], item: readable(header) }], []);
    }
  }
  return { header, items, stopped: false };
}

/** The export's header, checked by core (an import of no records under it); a header core refuses is INVALID_INPUT with its reasons. */
async function checkedHeader(memory: Memory, unit: InputUnit): Promise<string> {
  try {
    await memory.importJsonl([withRecords(unit.raw, 0)]);
  } catch (err) {
    if (!isZeromemError(err) || err.code !== 'INVALID_INPUT') throw err;
    const issues = err.details.lines?.flatMap((line) => line.issues) ?? [];
    throw new JobError('INVALID_INPUT', `line ${unit.line} is not a zeromem export header core can read: ${issues.map(describeIssue).join('; ') || err.message}`);
  }
  return unit.raw;
}

/** The header line with another record count: each batch is imported as an export of its own lines. */
function withRecords(header: string, records: number): string {
  return JSON.stringify({ ...(JSON.parse(header) as object), records });
}

/** One batch of an export's record lines: a single importJsonl transaction (good lines stored, bad ones returned). */
async function storeRecords(memory: Memory, header: string, batch: readonly InputUnit[], counts: ImportCounts): Promise<FailureLine[]> {
  const result = await memory.importJsonl([withRecords(header, batch.length), ...batch.map((unit) => unit.raw)], { skipInvalid: true });
  counts.stored += result.imported;
  counts.duplicates += result.deduplicated;
  counts.expired += result.expired;
  // Line 1 is the header, so line n is the batch's item n - 2.
  return result.failures.map((failure) => {
    const raw = batch[failure.line - 2]?.raw ?? header;
    return { line: batch[failure.line - 2]?.line ?? 1, code: failure.code, message: failure.issues.map(describeIssue).join('; ') || failure.code, issues: failure.issues, item: readable(raw) };
  });
}

/**
 * One batch of plain items: a single rememberMany transaction (valid items stored,
 * invalid ones returned); lines that could not be read are failures as they are.
 */
async function storeItems(memory: Memory, batch: readonly InputUnit[], fallback: Namespace | undefined, counts: ImportCounts): Promise<FailureLine[]> {
  const failures: FailureLine[] = [];
  const inputs: RememberInput[] = [];
  const sent: InputUnit[] = [];
  for (const unit of batch) {
    if (unit.error) failures.push({ line: unit.line, code: unit.error.code, message: unit.error.message, item: unit.raw });
    else {
      inputs.push(toRememberInput(unit.item!, fallback));
      sent.push(unit);
    }
  }
  if (inputs.length) {
    const { results, failures: refused } = await memory.rememberMany(inputs, { skipInvalid: true });
    for (const result of results) {
      if (result.deduplicated) counts.duplicates++;
      else counts.stored++;
    }
    for (const failure of refused) {
      const unit = sent[failure.index]!;
      const issues = failure.issues;
      failures.push({ line: unit.line, code: failure.code, message: issues.map(describeIssue).join('; ') || failure.code, issues, item: unit.item });
    }
  }
  return failures.sort((a, b) => a.line - b.line);
}

function describeIssue(issue: InputIssue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}

/** A line as an object when it is JSON, else its text (the failure report's `item`). */
function readable(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
