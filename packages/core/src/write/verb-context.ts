import type { Embedder } from '../public/embedder.ts';
import type { IndexManager } from '../search/index-manager.ts';
import type { Clock } from '../public/clock.ts';
import { IssueList, checkKnownKeys, checkName, describe, isPlainObject } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import type { Limits } from '../public/limits.ts';
import type { StoragePort } from '../store/port.ts';
import type { AccessTracker } from '../rank/access-tracker.ts';
import type { Redactor } from '../redact/redactor.ts';
import type { RecordCopies } from './record-copies.ts';

/** What every verb needs: the store, the clock, the limits, the id generator. */
export interface VerbContext {
  store: StoragePort;
  clock: Clock;
  limits: Limits;
  /** Default actor for the audit log. */
  actor: string;
  newId: (now: number) => string;
  /** Earlier versions a record keeps (store/history.ts); 0 keeps none. Default 20. */
  historyDepth?: number;
  /** Redaction of personal data on write (redact/), when configured. */
  redactor?: Redactor | undefined;
}

/**
 * What a verb that deletes or replaces records needs beyond the store: every other copy
 * of them this process holds, which it purges itself once its transaction committed.
 */
export interface WriteContext extends VerbContext {
  copies: RecordCopies;
}

/** What recall (and the lifecycle verbs) need beyond the store: the search indexes, the embedder, access statistics. */
export interface RecallContext extends VerbContext {
  indexes: IndexManager;
  embedder: Embedder | undefined;
  access: AccessTracker;
}

/** Validates a verb's options object (absent is `{}`); unknown keys are INVALID_INPUT. */
export function readOptions(options: unknown, known: readonly string[]): Record<string, unknown> {
  if (options === undefined) return {};
  const issues = new IssueList();
  if (!isPlainObject(options)) issues.add('', `options must be an object, got ${describe(options)}`);
  else checkKnownKeys(options, known, '', issues);
  if (!issues.ok) throw invalidInput('options', issues.items);
  return options as Record<string, unknown>;
}

/** The actor of a write: `options.actor` if given (validated), else the memory's. */
export function resolveActor(ctx: VerbContext, options: Record<string, unknown>): string {
  if (options.actor === undefined) return ctx.actor;
  const issues = new IssueList();
  const name = checkName(options.actor, 'actor', ctx.limits.maxNameLength, issues);
  if (name === undefined) throw invalidInput('options', issues.items);
  return name;
}
