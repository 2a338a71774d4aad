import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The house's dependency rules (docs/ARCHITECTURE.md, "Layers of core" and "Dependencies
 * point one way"), checked on every import of every source file: static, `import type`,
 * re-exports and dynamic `import()` (read by TypeScript's own scanner, so comments and
 * strings do not count).
 *
 * 1. core's folders are layers: a folder imports only folders of lower layers, so no import
 *    cycle can form between them (a verb may use lifecycle/'s rewarm and suggestions; lifecycle
 *    imports no verb). The files at the top of src (Memory, its options and runtime, the
 *    entries) compose everything and are not a layer. A storage
 *    engine (store/dexie/, store/sqlite/) sits above every folder, so only the entries pick one.
 * 2. In every package (packages/*), no import cycle between its folders (each top-level file
 *    of src counts as a unit of its own).
 * 3. Between packages, dependencies point one way (PACKAGE_LEVELS), so there is no import
 *    cycle between packages; a package imports only what its package.json declares; the relay
 *    imports only the wire contract, and no package loads the relay (a server to run, whose
 *    entry loads ws, pg, ioredis and better-sqlite3).
 * 4. The test kit (test/kit: seeds, Redis and PostgreSQL, test memories, the seeded sync link)
 *    serves tests only: no source file of a package or app imports it.
 */
const LAYERS: readonly (readonly string[])[] = [
  // The public types (public/: what the entries export, one concept per file): they import
  // nothing from the implementation, which imports them from here.
  ['public'],
  ['model'],
  ['store'],
  ['embed'],
  ['search'],
  ['rank'],
  ['redact'],
  ['context'],
  ['write'],
  ['lifecycle'],
  ['verbs'],
  // The storage engines: only the entries pick one (open-memory.ts, open-memory.node.ts).
  ['store/dexie', 'store/sqlite'],
];

/**
 * Packages by level: a package depends (dependencies, peer or optional) only on packages of
 * lower levels, so none can depend on another in a cycle. A new package must be added here
 * and to ARCHITECTURE's map.
 */
const PACKAGE_LEVELS: readonly (readonly string[])[] = [
  ['@zeromem/core', '@zeromem/protocol', '@zeromem/app-shared'],
  ['@zeromem/relay', '@zeromem/sync', '@zeromem/embed-transformers', '@zeromem/tools'],
  ['@zeromem/server', '@zeromem/ai', '@zeromem/langchain', '@zeromem/mcp'],
  ['@zeromem/cli'],
  ['@zeromem/demo', '@zeromem/desktop', '@zeromem/extension'],
];

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SRC = join(ROOT, 'packages', 'core', 'src');

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module a file imports, as written (relative paths and package names). */
function importsOf(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((imported) => imported.fileName);
}

/** The folder of a core source file (its first path segment under src; a storage engine's, store/<engine>/, is a folder of its own), or undefined for a file at the top. */
function folderOf(path: string): string | undefined {
  const parts = relative(SRC, path).split(/[\\/]/);
  if (parts[0] === 'store' && parts.length > 2) return `store/${parts[1]}`;
  return parts.length > 1 ? parts[0] : undefined;
}

interface Workspace {
  name: string;
  dir: string;
  /** Workspace packages it depends on at run time (dependencies, peer, optional). */
  dependsOn: string[];
  /** Workspace packages its sources import (itself left out). */
  imports: Map<string, string>;
}

function workspaces(): Workspace[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .map((name) => join(ROOT, group, name))
      .filter((dir) => existsSync(join(dir, 'package.json')))
      .map((dir) => {
        const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | string | undefined>;
        const name = json.name as string;
        const runtime = [json.dependencies, json.peerDependencies, json.optionalDependencies].flatMap((deps) => Object.keys((deps as Record<string, string> | undefined) ?? {}));
        const imports = new Map<string, string>();
        for (const file of sourceFiles(join(dir, 'src'))) {
          for (const specifier of importsOf(file)) {
            const target = /^@zeromem\/[^/]+/.exec(specifier)?.[0];
            if (target && target !== name && !imports.has(target)) imports.set(target, relative(ROOT, file));
          }
        }
        return { name, dir, dependsOn: runtime.filter((dep) => dep.startsWith('@zeromem/')), imports };
      }),
  );
}

/** The unit of a source file for the cycle check: its folder under src, or the file itself at the top. */
function unitOf(src: string, path: string): string {
  const parts = relative(src, path).split(sep);
  return parts.length > 1 ? `${parts[0]}/` : parts[0]!;
}

/** The strongly connected components of more than one unit (Tarjan), each sorted, with one import per edge inside it. */
function cycles(edges: Map<string, Map<string, string>>): Array<{ units: string[]; imports: string[] }> {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (unit: string): void => {
    index.set(unit, next);
    low.set(unit, next++);
    stack.push(unit);
    for (const to of edges.get(unit)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(unit, Math.min(low.get(unit)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(unit, Math.min(low.get(unit)!, index.get(to)!));
    }
    if (low.get(unit) !== index.get(unit)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      component.push(member);
    } while (member !== unit);
    if (component.length > 1) found.push(component.sort());
  };
  for (const unit of edges.keys()) if (!index.has(unit)) visit(unit);
  return found.map((units) => ({
    units,
    imports: units.flatMap((from) => [...(edges.get(from) ?? [])].filter(([to]) => units.includes(to)).map(([, example]) => example)),
  }));
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
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) continue;
        const target = resolve(dirname(file), specifier);
        const to = folderOf(target);
        if (to === from) continue;
        if (to === undefined) {
          wrong.push(`${relative(SRC, file)} imports ${relative(SRC, target)} (a top-level file)`);
          continue;
        }
        if (!(level.get(to)! < level.get(from)!)) wrong.push(`${relative(SRC, file)} imports ${relative(SRC, target)}: ${to}/ is not below ${from}/`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('the folders of every package', () => {
  for (const workspace of workspaces().filter((w) => relative(ROOT, w.dir).startsWith('packages'))) {
    it(`${workspace.name}: no import cycle between the folders (and top-level files) of src`, () => {
      const src = join(workspace.dir, 'src');
      const edges = new Map<string, Map<string, string>>();
      for (const file of sourceFiles(src)) {
        const from = unitOf(src, file);
        for (const specifier of importsOf(file)) {
          if (!specifier.startsWith('.')) continue;
          const to = unitOf(src, resolve(dirname(file), specifier));
          if (to === from || to.startsWith('..')) continue;
          const out = edges.get(from) ?? edges.set(from, new Map()).get(from)!;
          if (!out.has(to)) out.set(to, `${relative(src, file)} -> ${specifier}`);
        }
      }
      const found = cycles(edges);
      expect(found.map((cycle) => cycle.units), `cycles, through: ${found.flatMap((cycle) => cycle.imports).join('; ')}`).toEqual([]);
    });
  }
});

describe('dependencies between packages', () => {
  const all = workspaces();
  const level = new Map(PACKAGE_LEVELS.flatMap((names, i) => names.map((name) => [name, i] as const)));

  it('every package is on a level, depends only on packages of lower levels (so no import cycle between packages), and imports only what it depends on', () => {
    const wrong: string[] = [];
    for (const workspace of all) {
      if (!level.has(workspace.name)) {
        wrong.push(`${workspace.name} is on no level: add it to PACKAGE_LEVELS here and to ARCHITECTURE`);
        continue;
      }
      for (const dep of workspace.dependsOn) {
        if (!(level.get(dep)! < level.get(workspace.name)!)) wrong.push(`${workspace.name} depends on ${dep}, which is not on a lower level`);
      }
      for (const [imported, file] of workspace.imports) {
        if (!workspace.dependsOn.includes(imported)) wrong.push(`${file} imports ${imported}, which ${workspace.name} does not depend on (dependencies, peer or optional)`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the wire contract and core import no workspace package; the relay imports only @zeromem/protocol; no package loads the relay', () => {
    const uses = (name: string) => {
      const workspace = all.find((w) => w.name === name)!;
      return [...new Set([...workspace.dependsOn, ...workspace.imports.keys()])].sort();
    };
    expect(uses('@zeromem/core')).toEqual([]);
    expect(uses('@zeromem/protocol')).toEqual([]);
    expect(uses('@zeromem/relay')).toEqual(['@zeromem/protocol']);
    // Apps may run a relay (the demo does); packages only speak its protocol.
    const loadsRelay = all.filter((w) => relative(ROOT, w.dir).startsWith('packages') && uses(w.name).includes('@zeromem/relay')).map((w) => w.name);
    expect(loadsRelay).toEqual([]);
  });

  it('no source file imports the test kit (test/kit): it is for tests, never published', () => {
    const kit = join(ROOT, 'test', 'kit');
    const wrong = all.flatMap((workspace) =>
      sourceFiles(join(workspace.dir, 'src')).flatMap((file) =>
        importsOf(file)
          .filter((specifier) => specifier.startsWith('.') && !relative(kit, resolve(dirname(file), specifier)).startsWith('..'))
          .map((specifier) => `${relative(ROOT, file)} imports ${specifier}`),
      ),
    );
    expect(wrong).toEqual([]);
  });
});
