import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import 'fake-indexeddb/auto';
import { afterAll, expect, it, vi } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
const outDir = join(here, '.generated');
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const expected = [
  ['Alice is allergic to peanuts', expect.any(Number)],
  [['Hi, I am Alice', 'Hello Alice!']],
  [{ text: 'likes ramen with garlic' }, expect.any(Number)],
];

it('has the three examples', () => expect(blocks).toHaveLength(3));

for (const [index, code] of blocks.entries()) {
  it(`runs README example ${index + 1}`, async () => {
    for (const { name } of await indexedDB.databases()) indexedDB.deleteDatabase(name!);
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, `readme-${index}.ts`);
    writeFileSync(file, `${code}\nexport {};\n`);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(/* @vite-ignore */ file);
      expect(log).toHaveBeenCalledWith(...expected[index]!);
    } finally {
      log.mockRestore();
    }
  });
}
