import type { Embedder } from './public/embedder.ts';
import type { IndexSnapshotOptions, DatabaseOptions, OpenMemoryOptions } from './public/options.ts';
import type { Clock } from './public/clock.ts';
import { IssueList, checkKnownKeys, checkName, describe, isPlainObject } from './model/checks.ts';
import { invalidInput } from './model/errors.ts';
import type { ZeromemError } from './public/errors.ts';
import { probe, readInput } from './model/read-input.ts';
import { DEFAULT_LIMITS } from './model/limits.ts';
import type { Limits } from './public/limits.ts';
import { isTokenizer } from './context/tokenizer.ts';
import type { Tokenizer } from './public/tokenizer.ts';
import { checkLifecycle } from './lifecycle/policy.ts';
import type { LifecycleOptions, LifecyclePolicy } from './public/lifecycle.ts';
import { DEFAULT_HISTORY_DEPTH, MAX_HISTORY_DEPTH } from './store/history.ts';
import { checkRedaction, type Redactor } from './redact/redactor.ts';
import type { RedactionOptions } from './public/redaction.ts';

/** Options that are providers or host objects: used as given, not copied (their methods may rely on `this`). */
const PROVIDER_FIELDS = ['clock', 'embedder', 'tokenizer', 'indexedDB', 'IDBKeyRange'];
const OPTION_FIELDS = ['name', 'clock', 'limits', 'actor', 'sweepEveryMs', 'onBackgroundError', 'indexedDB', 'IDBKeyRange', 'durability', 'embedder', 'indexSnapshots', 'tokenizer', 'lifecycle', 'historyDepth', 'redaction'] as const;

/**
 * The options of {@link openMemory} as validated: the data-only copy (providers kept as
 * given, for the store's opener and the runtime) and the values read from it.
 */
export interface MemorySettings {
  options: OpenMemoryOptions;
  name: string;
  actor: string;
  limits: Limits;
  lifecycle: LifecyclePolicy;
  redactor: Redactor | undefined;
  historyDepth: number;
}

/**
 * Reads and validates the options of {@link openMemory}: every bad option is listed in one
 * INVALID_INPUT, and nothing is opened. Kept at the top of src, not in model/: the options
 * name the providers and policies of layers above model/ (store, embed, index, context,
 * redact, lifecycle), which model/ may not import (test/layers.test.ts).
 * @throws ZeromemError INVALID_INPUT
 */
export function readMemoryOptions(options: OpenMemoryOptions): MemorySettings {
  options = readInput(options, PROVIDER_FIELDS);
  const issues = new IssueList();
  const raw: unknown = options;
  if (!isPlainObject(raw)) {
    issues.add('', `must be an object, got ${describe(raw)}`);
    throw invalidInput('openMemory options', issues.items);
  }
  checkKnownKeys(raw, OPTION_FIELDS, '', issues);
  const name = options.name === undefined ? 'zeromem' : checkName(options.name, 'name', 256, issues);
  const actor = options.actor === undefined ? 'local' : checkName(options.actor, 'actor', DEFAULT_LIMITS.maxNameLength, issues);
  const limits = checkLimits(options.limits, issues);
  const lifecycle = checkLifecycle(options.lifecycle, issues);
  if (options.clock !== undefined && !probe(() => typeof options.clock?.now === 'function')) issues.add('clock', 'must be an object with a now() method');
  if (options.sweepEveryMs !== undefined && !(typeof options.sweepEveryMs === 'number' && options.sweepEveryMs >= 10 && Number.isFinite(options.sweepEveryMs))) {
    issues.add('sweepEveryMs', 'must be a number of milliseconds, 10 or more');
  }
  if (options.onBackgroundError !== undefined && typeof options.onBackgroundError !== 'function') {
    // Checked now: a bad one would only fail inside a timer, when an error is already being reported.
    issues.add('onBackgroundError', 'must be a function that receives a ZeromemError');
  }
  if (options.durability !== undefined && !(['default', 'strict', 'relaxed'] as unknown[]).includes(options.durability)) {
    issues.add('durability', 'must be "default", "strict" or "relaxed"');
  }
  checkIndexSnapshots(options.indexSnapshots, issues);
  const redactor = checkRedaction(options.redaction, limits, issues);
  const historyDepth = options.historyDepth === undefined ? DEFAULT_HISTORY_DEPTH : options.historyDepth;
  if (!(Number.isInteger(historyDepth) && historyDepth >= 0 && historyDepth <= MAX_HISTORY_DEPTH)) {
    issues.add('historyDepth', `must be a whole number from 0 to ${MAX_HISTORY_DEPTH}, got ${describe(options.historyDepth)}`);
  }
  const embedder: unknown = options.embedder;
  if (
    embedder !== undefined &&
    !probe(
      () =>
      typeof embedder === 'object' &&
      embedder !== null &&
      typeof (embedder as Embedder).modelId === 'string' &&
      Number.isInteger((embedder as Embedder).dimension) &&
      (embedder as Embedder).dimension > 0 &&
      typeof (embedder as Embedder).embed === 'function',
    )
  ) {
    issues.add('embedder', 'must be an Embedder: { modelId: string, dimension: positive integer, embed(texts, kind) }');
  }
  if (options.tokenizer !== undefined && !probe(() => isTokenizer(options.tokenizer))) {
    issues.add('tokenizer', 'must be a Tokenizer: { id: string, count(text), truncate(text, maxTokens) }');
  }
  if (!issues.ok) throw invalidInput('openMemory options', issues.items);
  return { options, name: name!, actor: actor!, limits, lifecycle, redactor, historyDepth };
}

function checkIndexSnapshots(value: unknown, issues: IssueList): void {
  if (value === undefined || value === false) return;
  if (!isPlainObject(value)) {
    issues.add('indexSnapshots', `must be false or an object { minRecords?, delayMs? }, got ${describe(value)}`);
    return;
  }
  checkKnownKeys(value, ['minRecords', 'delayMs'], 'indexSnapshots', issues);
  const { minRecords, delayMs } = value as IndexSnapshotOptions;
  if (minRecords !== undefined && !(Number.isInteger(minRecords) && minRecords >= 1)) issues.add('indexSnapshots.minRecords', 'must be a whole number, 1 or more');
  if (delayMs !== undefined && !(typeof delayMs === 'number' && delayMs >= 0 && Number.isFinite(delayMs))) {
    issues.add('indexSnapshots.delayMs', 'must be a number of milliseconds, 0 or more');
  }
}

function checkLimits(value: unknown, issues: IssueList): Limits {
  if (value === undefined) return { ...DEFAULT_LIMITS };
  if (!isPlainObject(value)) {
    issues.add('limits', 'must be an object of numbers');
    return { ...DEFAULT_LIMITS };
  }
  checkKnownKeys(value, Object.keys(DEFAULT_LIMITS), 'limits', issues);
  const limits = { ...DEFAULT_LIMITS };
  for (const [key, limit] of Object.entries(value)) {
    if (!(key in limits)) continue;
    if (typeof limit !== 'number' || !(limit >= 1) || (!Number.isInteger(limit) && limit !== Number.POSITIVE_INFINITY)) {
      issues.add(`limits.${key}`, `must be a whole number, 1 or more, got ${describe(limit)}`);
    } else limits[key as keyof Limits] = limit;
  }
  return limits;
}
