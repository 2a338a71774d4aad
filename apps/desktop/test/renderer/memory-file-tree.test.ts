import { describe, expect, it } from 'vitest';
import { fileTree, type MemoryFile } from '../../src/renderer/components/memory-file-tree.tsx';

const file = (path: string, ...texts: string[]): MemoryFile => ({
  path,
  bytes: new TextEncoder().encode(texts.at(-1)!).length,
  versions: texts.map((text, i) => ({ id: `${path}#${i}`, text, from: i, until: i === texts.length - 1 ? null : i + 1 })),
});

describe("the memory tool's file tree", () => {
  it('nests files in their directories, directories first, each sorted by name, keeping every version', () => {
    const root = fileTree([file('/memories/zeta.md', 'z'), file('/memories/travel/lisbon.md', 'a', 'b'), file('/memories/alpha.md', 'x'), file('/memories/travel/2026/march.md', 'm'), file('/memories/notes/todo.md', 't')]);
    expect(root.path).toBe('/memories');
    expect(root.directories.map((d) => d.path)).toEqual(['/memories/notes', '/memories/travel']);
    expect(root.files.map((f) => f.name)).toEqual(['alpha.md', 'zeta.md']);
    const travel = root.directories[1]!;
    expect(travel.directories.map((d) => [d.name, d.files.map((f) => f.path)])).toEqual([['2026', ['/memories/travel/2026/march.md']]]);
    expect(travel.files.map((f) => [f.name, f.versions.map((v) => v.text)])).toEqual([['lisbon.md', ['a', 'b']]]);
  });

  it('leaves out what is not under /memories, and an empty list is an empty root', () => {
    expect(fileTree([file('/memoriesX/a.md', 'x'), file('/etc/passwd', 'x'), file('/memories', 'x')])).toEqual({ name: '/memories', path: '/memories', directories: [], files: [] });
    expect(fileTree([])).toEqual({ name: '/memories', path: '/memories', directories: [], files: [] });
  });
});
