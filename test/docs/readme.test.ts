/**
 * Runs the examples of the README and of every package README: each ```ts block (a block
 * marked ```ts <word>, e.g. `ts browser-skip`, is shown, not run) as a module of its own,
 * in order, on the IndexedDB the README's examples before it left (empty at its first): a
 * reader runs them one after another, so each must stand on its own (its own store, or
 * what it prints unchanged by the others'). A `console.log(...)` line that ends in a `// comment` must print
 * exactly that comment, where `…` stands for any text; a log line without a comment is
 * not checked.
 */
import { readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import 'fake-indexeddb/auto';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecked } from './run-checked.ts';

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

describe('README examples', () => {
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('the README has examples to run', () => {
    expect(codeBlocks(readFileSync(readmes[0]!, 'utf8')).length).toBeGreaterThanOrEqual(6);
  });

  for (const readme of readmes) {
    const name = relative(root, readme);
    for (const [index, block] of codeBlocks(readFileSync(readme, 'utf8')).entries()) {
      it(`runs the example at ${name}:${block.line}`, { timeout: 60_000 }, async () => {
        await runChecked(block.code, join(outDir, `${name.replaceAll('/', '-')}-${index}.ts`), { keep: index > 0 });
      });
    }
  }
});
