import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import 'fake-indexeddb/auto';
import { afterAll, describe, expect, it, vi } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outDir = join(root, 'test', 'docs', '.generated');

/** The ```ts blocks of a Markdown file, with the line each starts on. */
function codeBlocks(markdown: string): Array<{ line: number; code: string }> {
  const blocks: Array<{ line: number; code: string }> = [];
  const pattern = /^```ts\n([\s\S]*?)^```$/gm;
  for (const match of markdown.matchAll(pattern)) {
    blocks.push({ line: markdown.slice(0, match.index).split('\n').length, code: match[1]! });
  }
  return blocks;
}

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = codeBlocks(readme);

describe('README examples', () => {
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('has examples to run', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
  });

  for (const [index, block] of blocks.entries()) {
    it(`runs the example at README.md:${block.line}`, async () => {
      // Each example starts on an empty IndexedDB, as if it were the only program.
      for (const { name } of await indexedDB.databases()) {
        await new Promise((resolve, reject) => {
          const request = indexedDB.deleteDatabase(name!);
          request.onsuccess = resolve;
          request.onerror = () => reject(request.error);
        });
      }
      mkdirSync(outDir, { recursive: true });
      const file = join(outDir, `readme-${index}.ts`);
      writeFileSync(file, `${block.code}\nexport {};\n`);
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      try {
        await import(/* @vite-ignore */ file);
      } finally {
        log.mockRestore();
      }
    });
  }
});
