import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * core's folders are layers (docs/ARCHITECTURE.md, "Layers of core"): a folder imports only
 * folders of lower layers, so no import cycle can form between them. Folders on one layer
 * (verbs, lifecycle) do not import each other. The files at the top of src (Memory, the
 * entries) compose everything and are not a layer.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['model'],
  ['store'],
  ['embed'],
  ['index'],
  ['rank'],
  ['redact'],
  ['context'],
  ['write'],
  ['verbs', 'lifecycle'],
  ['node-store'],
];

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const IMPORT = /(?:^|\s)(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The folder of a source file (its first path segment under src), or undefined for a file at the top. */
function folderOf(path: string): string | undefined {
  const parts = relative(SRC, path).split(/[\\/]/);
  return parts.length > 1 ? parts[0] : undefined;
}

describe('layers of core', () => {
  it('every folder imports only folders of lower layers (so none imports another in a cycle; lifecycle imports no verb)', () => {
    const level = new Map(LAYERS.flatMap((folders, i) => folders.map((folder) => [folder, i] as const)));
    const wrong: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = folderOf(file);
      if (from === undefined) continue;
      if (!level.has(from)) {
        wrong.push(`${from}/ is in no layer: add it to LAYERS here and to ARCHITECTURE`);
        continue;
      }
      for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const target = resolve(dirname(file), match[1] ?? match[2]!);
        const to = folderOf(target);
        if (to === from) continue;
        if (to === undefined) {
          // Only the Node entry's openMemory wraps Memory's.
          if (!(from === 'node-store' && relative(SRC, target) === 'memory.ts')) wrong.push(`${relative(SRC, file)} imports ${relative(SRC, target)} (a top-level file)`);
          continue;
        }
        if (!(level.get(to)! < level.get(from)!)) wrong.push(`${relative(SRC, file)} imports ${relative(SRC, target)}: ${to}/ is not below ${from}/`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
