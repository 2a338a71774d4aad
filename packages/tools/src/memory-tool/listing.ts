import { MEMORY_ROOT } from './paths.ts';
import type { MemoryFileEntry } from './memory-files.ts';

/** How deep a directory view lists, as Anthropic's memory tool does. */
const LEVELS = 2;

/**
 * A directory view in Anthropic's documented format: a header, then one line per entry,
 * size and path separated by a tab, the directory itself first, then what is in it up to
 * two levels deep, depth first in name order, directories with a trailing `/`. Hidden
 * items (a name starting with `.`) and `node_modules` are left out. A directory's size
 * is the sum of its files' (directories here are path prefixes, with no size of their own).
 */
export function directoryListing(dir: string, files: readonly MemoryFileEntry[]): string {
  const root: Tree = { bytes: 0, children: new Map() };
  for (const file of files) {
    const segments = file.path.slice(dir === MEMORY_ROOT ? MEMORY_ROOT.length + 1 : dir.length + 1).split('/');
    if (segments.some((segment) => segment.startsWith('.') || segment === 'node_modules')) continue;
    root.bytes += file.bytes;
    let node = root;
    for (const segment of segments) {
      let child = node.children.get(segment);
      if (!child) node.children.set(segment, (child = { bytes: 0, children: new Map() }));
      child.bytes += file.bytes;
      node = child;
    }
  }
  const lines = [`${humanSize(root.bytes)}\t${dir}`];
  const walk = (node: Tree, prefix: string, depth: number) => {
    for (const name of [...node.children.keys()].sort()) {
      const child = node.children.get(name)!;
      const isDir = child.children.size > 0;
      lines.push(`${humanSize(child.bytes)}\t${prefix}/${name}${isDir ? '/' : ''}`);
      if (isDir && depth < LEVELS) walk(child, `${prefix}/${name}`, depth + 1);
    }
  };
  walk(root, dir, 1);
  return `Here're the files and directories up to 2 levels deep in ${dir}, excluding hidden items and node_modules:\n${lines.join('\n')}`;
}

interface Tree {
  bytes: number;
  children: Map<string, Tree>;
}

/** A size as `du -h` writes it: bytes below 1 K (`512B`), else one decimal below 10 (`1.5K`, `4.0K`) and whole numbers above (`12K`, `1.2M`). */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? (Math.ceil(value * 10) / 10).toFixed(1) : Math.ceil(value)}${UNITS[unit]}`;
}

const UNITS = ['K', 'M', 'G'];
