/**
 * Runs the examples of the README and of every package README: each ```ts block (a block
 * marked ```ts <word>, e.g. `ts browser-skip`, is shown, not run) as a module of its own,
 * on an empty IndexedDB. A `console.log(...)` line that ends in a `// comment` must print
 * exactly that comment, where `…` stands for any text; a log line without a comment is
 * not checked.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import 'fake-indexeddb/auto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { checkedLogs, matchesPrinted } from './printed.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outDir = join(root, 'test', 'docs', '.generated');

/** The ```ts blocks of a Markdown file, with the line each starts on. */
function codeBlocks(markdown: string): Array<{ line: number; code: string }> {
  const blocks: Array<{ line: number; code: string }> = [];
  for (const match of markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
    blocks.push({ line: markdown.slice(0, match.index).split('\n').length, code: match[1]! });
  }
  return blocks;
}

const readmes = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name, 'README.md'))
    .filter((file) => existsSync(file)),
];

async function emptyIndexedDb(): Promise<void> {
  for (const { name } of await indexedDB.databases()) {
    await new Promise((resolve, reject) => {
      const request = indexedDB.deleteDatabase(name!);
      request.onsuccess = resolve;
      request.onerror = () => reject(request.error);
    });
  }
}

/** What each checked console.log line printed, by its index among the checked lines. */
const printed = new Map<number, string[]>();
(globalThis as { __readmeLog?: (index: number, ...args: unknown[]) => void }).__readmeLog = (index, ...args) => {
  printed.set(index, [...(printed.get(index) ?? []), format(...args)]);
};

describe('README examples', () => {
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('the README has examples to run', () => {
    expect(codeBlocks(readFileSync(readmes[0]!, 'utf8')).length).toBeGreaterThanOrEqual(6);
  });

  for (const readme of readmes) {
    const name = relative(root, readme);
    for (const [index, block] of codeBlocks(readFileSync(readme, 'utf8')).entries()) {
      it(`runs the example at ${name}:${block.line}`, { timeout: 60_000 }, async () => {
        await emptyIndexedDb();
        mkdirSync(outDir, { recursive: true });
        const { code, expected } = checkedLogs(block.code);
        const file = join(outDir, `${name.replaceAll('/', '-')}-${index}.ts`);
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
      });
    }
  }
});
