/**
 * The browser entries (`./browser`, `./worker`) never reach Node-only code: no `node:`
 * module and nothing under src/node/ or the Node entry, through any chain of static or
 * dynamic imports.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const packageJson = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { exports: Record<string, { development: string }> };
/** The source file the workspace resolves an entry to (its `development` condition). */
const sourceOf = (entry: string): string => packageJson.exports[entry]!.development;

/** Every module specifier a file imports (static, dynamic, re-export, type-only left out). */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of source.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]/gm)) {
    if (!match[2]) found.push(match[3]!);
  }
  for (const match of source.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) found.push(match[1]!);
  for (const match of source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(match[1]!);
  return found;
}

/** Every package file a module reaches, and every outside specifier it imports. */
function reach(entry: string): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>();
  const external = new Set<string>();
  const todo = [resolve(packageRoot, entry)];
  while (todo.length) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        expect(existsSync(target), `${relative(packageRoot, file)} imports a missing ${specifier}`).toBe(true);
        todo.push(target);
      } else external.add(specifier);
    }
  }
  return { files, external };
}

describe('package entries', () => {
  it('has a Node entry, a browser entry and a worker entry', () => {
    expect(sourceOf('.')).toBe('./src/index.ts');
    expect(sourceOf('./browser')).toBe('./src/browser/index.ts');
    expect(sourceOf('./worker')).toBe('./src/browser/worker.ts');
  });

  for (const entry of ['./browser', './worker'] as const) {
    it(`${entry} reaches no Node-only module`, () => {
      const { files, external } = reach(sourceOf(entry));
      const nodeOnly = [...files].map((file) => relative(packageRoot, file)).filter((file) => file === 'src/index.ts' || file.startsWith('src/node/'));
      expect(nodeOnly).toEqual([]);
      expect([...external].filter((specifier) => specifier.startsWith('node:') || specifier === '@zeromem/embed-transformers')).toEqual([]);
      expect([...external].sort()).toEqual(entry === './worker' ? ['@huggingface/transformers', '@zeromem/core'] : ['@zeromem/core']);
    });
  }

  it('the Node entry is what reads the file system (a sanity check of the walk)', () => {
    const { external } = reach(sourceOf('.'));
    expect([...external].filter((specifier) => specifier.startsWith('node:')).length).toBeGreaterThan(0);
  });
});
