import { IssueList, checkKnownKeys, checkUnitInterval, describe, isPlainObject, join } from '../model/checks.ts';
import { parseDuration } from '../model/duration.ts';
import type { Duration } from '../public/memory-record.ts';
import type { LifecyclePolicy } from '../public/lifecycle.ts';

const DAY = 86_400_000;

/** The defaults: a record at the default importance 0.5, untouched for 30 days, decays to 0.3 and may go cold after that. */
export const DEFAULT_LIFECYCLE: Readonly<LifecyclePolicy> = Object.freeze({
  coldAfterMs: 30 * DAY,
  coldBelowImportance: 0.3,
  importanceFloor: 0.1,
  decayHalfLifeMs: 30 * DAY,
  useGain: 0.2,
});

const FIELDS = ['coldAfter', 'coldBelowImportance', 'importanceFloor', 'decayHalfLife', 'useGain'] as const;

/** Validates `openMemory({ lifecycle })` into `issues` and returns the resolved policy. */
export function checkLifecycle(value: unknown, issues: IssueList): LifecyclePolicy {
  const policy = { ...DEFAULT_LIFECYCLE };
  if (value === undefined) return policy;
  if (!isPlainObject(value)) {
    issues.add('lifecycle', `must be an object, got ${describe(value)}`);
    return policy;
  }
  checkKnownKeys(value, FIELDS, 'lifecycle', issues);
  for (const [key, field] of [['coldAfter', 'coldAfterMs'], ['decayHalfLife', 'decayHalfLifeMs']] as const) {
    if (value[key] === undefined) continue;
    const ms = parseDuration(value[key]);
    if (ms === undefined) issues.add(join('lifecycle', key), `must be a positive duration (ms or a string like "30d"), got ${describe(value[key])}`);
    else policy[field] = ms;
  }
  for (const key of ['coldBelowImportance', 'importanceFloor', 'useGain'] as const) {
    if (value[key] === undefined) continue;
    const share = checkUnitInterval(value[key], join('lifecycle', key), issues);
    if (share !== undefined) policy[key] = share;
  }
  return policy;
}
