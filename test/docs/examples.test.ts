/**
 * Runs the TSDoc `@example` blocks of every package's sources, as the README test runs the
 * README blocks: each as a module of its own on an empty IndexedDB, every
 * `console.log(...); // comment` line checked against what it prints. An example that
 * needs what a test run does not have says so after the tag (`@example browser`,
 * `@example llm`, `@example relay`, `@example your-model`) and is shown, not run; every
 * other one is self-contained (its own imports) and prints at least one checked line.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import 'fake-indexeddb/auto';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecked } from './run-checked.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outDir = join(root, 'test', 'docs', '.generated-examples');
/** Why an example may be shown without running: what it needs that a test run has not. */
const SHOWN_ONLY = new Set(['browser', 'llm', 'relay', 'your-model']);

interface Example {
  file: string;
  line: number;
  needs: string | undefined;
  code: string;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The `@example` blocks of a source file: the comment lines after the tag, up to the next tag or the comment's end. */
function examples(file: string): Example[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const tag = /^\s*\*\s*@example\b\s*(.*)$/.exec(lines[i]!);
    if (!tag) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*\*\//.test(lines[j]!) && !/^\s*\*\s*@\w/.test(lines[j]!); j++) body.push(lines[j]!.replace(/^\s*\* ?/, ''));
    found.push({ file: relative(root, file), line: i + 1, needs: tag[1]!.trim() || undefined, code: body.join('\n') });
    i = j - 1;
  }
  return found;
}

const all = readdirSync(join(root, 'packages')).flatMap((name) => {
  const src = join(root, 'packages', name, 'src');
  try {
    return sources(src).flatMap(examples);
  } catch {
    return [];
  }
});

describe('TSDoc @example blocks', () => {
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('every package example either runs or says what it needs', () => {
    expect(all.length).toBeGreaterThanOrEqual(15);
    const unknown = all.filter((example) => example.needs !== undefined && !SHOWN_ONLY.has(example.needs));
    expect(unknown.map((example) => `${example.file}:${example.line} @example ${example.needs}`)).toEqual([]);
    expect(all.filter((example) => example.needs === undefined).length).toBeGreaterThanOrEqual(10);
  });

  for (const [index, example] of all.entries()) {
    if (example.needs !== undefined) continue;
    it(`runs the example at ${example.file}:${example.line} and it prints what it says`, { timeout: 60_000 }, async () => {
      const checked = await runChecked(example.code, join(outDir, `${index}-${example.file.replaceAll('/', '-')}`));
      expect(checked, 'a runnable example shows what it prints (console.log(...); // what)').toBeGreaterThan(0);
    });
  }
});
