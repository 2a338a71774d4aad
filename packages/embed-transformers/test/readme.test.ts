/**
 * Runs the Node examples of the package README (the ```ts blocks; ```ts browser-skip ones
 * are for browsers or need files that are not here) and checks each `console.log` line
 * against the comment at its end (text up to an ellipsis is a prefix).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(packageRoot, 'test', '.generated');
const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');

const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => ({
  line: readme.slice(0, match.index).split('\n').length,
  code: match[1]!,
}));

/** What each console.log line says it prints, in order. */
function expectedLogs(code: string): string[] {
  return code
    .split('\n')
    .filter((line) => /^\s*console\.log\(.*\/\/ /.test(line))
    .map((line) => line.slice(line.lastIndexOf('// ') + 3).trim());
}

describe('package README examples', () => {
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('has Node examples to run', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
  });

  for (const [index, block] of blocks.entries()) {
    it(`runs the example at README.md:${block.line}`, async () => {
      mkdirSync(outDir, { recursive: true });
      const file = join(outDir, `readme-${index}.ts`);
      writeFileSync(file, `${block.code}\nexport {};\n`);
      const printed: string[] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(format(...args)));
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      try {
        await import(/* @vite-ignore */ file);
      } finally {
        log.mockRestore();
        warn.mockRestore();
      }
      const expected = expectedLogs(block.code);
      expect(printed.length).toBeGreaterThanOrEqual(expected.length);
      expected.forEach((want, i) => {
        const prefix = want.split('…')[0]!;
        if (want.includes('…')) expect(printed[i]!.startsWith(prefix), `${printed[i]} should start with ${prefix}`).toBe(true);
        else expect(printed[i]).toBe(want);
      });
    });
  }
});
