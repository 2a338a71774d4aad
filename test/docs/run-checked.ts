/**
 * Runs a documented example (a README block or a TSDoc `@example`) as its own module and
 * checks each `console.log(…); // what it prints` line against what it printed: the one
 * runner behind readme.test.ts and examples.test.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { format } from 'node:util';
import { expect, vi } from 'vitest';
import { checkedLogs, matchesPrinted } from './printed.ts';

/** What each checked console.log line printed, by its index among the checked lines. */
const printed = new Map<number, string[]>();
(globalThis as { __readmeLog?: (index: number, ...args: unknown[]) => void }).__readmeLog = (index, ...args) => {
  printed.set(index, [...(printed.get(index) ?? []), format(...args)]);
};

/** Deletes every IndexedDB database (fake-indexeddb's), so each example starts empty. */
export async function emptyIndexedDb(): Promise<void> {
  for (const { name } of await indexedDB.databases()) {
    await new Promise((resolve, reject) => {
      const request = indexedDB.deleteDatabase(name!);
      request.onsuccess = resolve;
      request.onerror = () => reject(request.error);
    });
  }
}

/**
 * Writes `source` (with its checked logs rewritten) to `file`, imports it with console.log
 * and console.warn silenced, and expects every checked line to have run and printed what its
 * comment says. Returns how many lines were checked. `keep`: on the IndexedDB as the
 * examples before left it (as a reader who runs a README's examples in order has it),
 * instead of an empty one.
 */
export async function runChecked(source: string, file: string, options: { keep?: boolean } = {}): Promise<number> {
  if (!options.keep) await emptyIndexedDb();
  const { code, expected } = checkedLogs(source);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${code}\nexport {};\n`);
  printed.clear();
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ file);
  } finally {
    log.mockRestore();
    warn.mockRestore();
  }
  expected.forEach((want, i) => {
    const lines = printed.get(i);
    expect(lines, `the console.log before "// ${want}" ran`).toBeDefined();
    for (const line of lines!) expect(matchesPrinted(line, want), `printed ${JSON.stringify(line)}, the comment says ${JSON.stringify(want)}`).toBe(true);
  });
  return expected.length;
}
