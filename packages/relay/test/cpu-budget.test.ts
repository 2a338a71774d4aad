import { describe, expect, it } from 'vitest';
import { CpuBudget } from '../src/server/cpu-budget.ts';

describe('CpuBudget', () => {
  it('lets a subject spend its budget, then makes it wait until the debt is paid back at its rate', () => {
    const budget = new CpuBudget(100); // 100 ms per second, 100 ms at once
    expect(budget.waitMs('a', 0)).toBe(0);
    budget.charge('a', 60, 0);
    expect(budget.waitMs('a', 0)).toBe(0); // 40 left
    budget.charge('a', 90, 0); // one message is never cut short: the balance goes to -50
    expect(budget.waitMs('a', 0)).toBe(510); // (50 + 1) ms at 100 ms/s
    expect(budget.waitMs('a', 510)).toBe(0);
    expect(budget.waitMs('b', 0)).toBe(0); // other subjects are not touched
  });

  it('refills up to one second worth, never more, and forgets subjects that are full again', () => {
    const budget = new CpuBudget(100);
    budget.charge('a', 10, 0);
    budget.charge('a', 150, 60_000); // a long pause refilled only to 100
    expect(budget.waitMs('a', 60_000)).toBeGreaterThan(0);
    budget.prune(60_000);
    expect(budget.waitMs('a', 60_000)).toBeGreaterThan(0); // still in debt: kept
    budget.prune(70_000);
    budget.charge('a', 150, 70_000);
    expect(budget.waitMs('a', 70_000)).toBe(510); // started from a full budget again
  });
});
