/**
 * The house's size, per workspace package: files and lines of `src/` and of `test/`, and
 * the names each package exports from its entry points (its package.json `exports`).
 * Issue 30 measures these before and after a reorganisation; run it on each checkout and
 * compare.
 *
 *   npx tsx scripts/house-figures.ts            # a Markdown table
 *   npx tsx scripts/house-figures.ts --json     # one JSON object, for scripts
 *   npx tsx scripts/house-figures.ts --names    # the table, then every exported name per entry point
 *   npx tsx scripts/house-figures.ts --root /tmp/base   # another checkout (e.g. `git worktree add /tmp/base <rev>`)
 *
 * What counts:
 * - Files and lines: every code file (.ts .tsx .js .mjs .cjs .css .html .py .wat) under the
 *   package's `src/` and `test/`, lines as `wc -l` counts them (blank lines and comments
 *   included). The root's `test/` is its own row. Data files (.json, .sqlite, .jsonl) do not count.
 * - Exported names: the TypeScript checker's exports of each entry module (so `export *`
 *   is followed, and types count as names). An entry is a subpath of `exports` other than
 *   `./package.json` and other than a pattern (`./models/*`: files, not modules); its modules
 *   are the source files of its `development` condition (for a condition with a browser and a
 *   Node file, the names of both together; a plain path is its own module). "public" is
 *   every subpath but `./internal`, which is the subpath that only sibling packages use;
 *   "declared in files" counts the files that declare those names (aliases followed): how
 *   many implementation files the public surface comes from.
 *   A package without `exports` (an app) has no exported names.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const rootFlag = process.argv.indexOf('--root');
const root = rootFlag > 0 ? resolve(process.argv[rootFlag + 1] ?? '.') : resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CODE = /\.(ts|tsx|js|mjs|cjs|css|html|py|wat)$/;

interface Size {
  files: number;
  lines: number;
}

interface PackageFigures {
  name: string;
  dir: string;
  src: Size;
  test: Size;
  /** Exported names per entry subpath ('.', './internal', ...). */
  entries: Record<string, string[]>;
  /** Distinct names over every entry but './internal'. */
  publicNames: number;
  /** The files that declare those public names (the implementation files the public surface comes from). */
  publicFrom: string[];
}

/** Files and lines of the code files below `dir` (node_modules and dist left out). */
function size(dir: string): Size {
  const total: Size = { files: 0, lines: 0 };
  if (!existsSync(dir)) return total;
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      const inner = size(path);
      total.files += inner.files;
      total.lines += inner.lines;
    } else if (CODE.test(entry)) {
      const text = readFileSync(path, 'utf8');
      total.files += 1;
      total.lines += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    }
  }
  return total;
}

/** The source files a subpath's `development` condition names (every leaf of it). */
function developmentFiles(target: unknown): string[] {
  if (typeof target === 'string') return /\.(ts|tsx|js|mjs)$/.test(target) && !target.includes('*') ? [target] : [];
  if (!target || typeof target !== 'object') return [];
  const conditions = target as Record<string, unknown>;
  const chosen = 'development' in conditions ? conditions.development : undefined;
  if (chosen === undefined) return [];
  const leaves = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(leaves) : [];
  return leaves(chosen).filter((file) => /\.(ts|tsx|js|mjs)$/.test(file) && !file.includes('*'));
}

/** The names a module exports, as the checker sees them (re-exports followed), each with the file that declares it. */
function exportedNames(program: ts.Program, file: string): Array<{ name: string; from: string }> {
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`not in the program: ${relative(root, file)}`);
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(source);
  if (!symbol) return [];
  return checker.getExportsOfModule(symbol).map((exported) => {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declared = target.declarations?.[0]?.getSourceFile().fileName ?? file;
    return { name: exported.getName(), from: relative(root, declared) };
  });
}

function workspacePackages(): string[] {
  return ['packages', 'apps'].flatMap((folder) =>
    readdirSync(join(root, folder))
      .map((name) => join(root, folder, name))
      .filter((dir) => existsSync(join(dir, 'package.json'))),
  );
}

const dirs = workspacePackages();
const entryFiles = new Map<string, Map<string, string[]>>();
for (const dir of dirs) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> | string };
  const entries = new Map<string, string[]>();
  const map = typeof manifest.exports === 'string' ? { '.': manifest.exports } : (manifest.exports ?? {});
  for (const [subpath, target] of Object.entries(map)) {
    if (subpath === './package.json') continue;
    const files = developmentFiles(target).map((file) => resolve(dir, file));
    if (files.length > 0) entries.set(subpath, files);
  }
  entryFiles.set(dir, entries);
}

const allEntries = [...entryFiles.values()].flatMap((entries) => [...entries.values()].flat());
const program = ts.createProgram(allEntries, {
  allowJs: true,
  noEmit: true,
  skipLibCheck: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  customConditions: ['development'],
  allowImportingTsExtensions: true,
  jsx: ts.JsxEmit.ReactJSX,
});

const figures: PackageFigures[] = dirs.map((dir) => {
  const name = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string }).name;
  const entries: Record<string, string[]> = {};
  const from = new Set<string>();
  for (const [subpath, files] of entryFiles.get(dir) ?? []) {
    const names = files.flatMap((file) => exportedNames(program, file));
    entries[subpath] = [...new Set(names.map((n) => n.name))].sort();
    if (subpath !== './internal') for (const n of names) from.add(n.from);
  }
  const publicNames = new Set(Object.entries(entries).filter(([subpath]) => subpath !== './internal').flatMap(([, names]) => names)).size;
  return { name, dir: relative(root, dir), src: size(join(dir, 'src')), test: size(join(dir, 'test')), entries, publicNames, publicFrom: [...from].sort() };
});
figures.push({ name: '(root test/)', dir: 'test', src: { files: 0, lines: 0 }, test: size(join(root, 'test')), entries: {}, publicNames: 0, publicFrom: [] });

const sum = (pick: (f: PackageFigures) => number) => figures.reduce((total, f) => total + pick(f), 0);

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ figures }, null, 2));
} else {
  console.log('| package | src files | src lines | test files | test lines | exported names: public (entry points) | declared in files | ./internal |');
  console.log('|---|---:|---:|---:|---:|---|---:|---:|');
  for (const f of figures) {
    const publicEntries = Object.entries(f.entries).filter(([subpath]) => subpath !== './internal');
    const perEntry = publicEntries.length > 1 ? ` (${publicEntries.map(([subpath, names]) => `${subpath} ${names.length}`).join(', ')})` : '';
    const internal = f.entries['./internal']?.length;
    console.log(`| ${f.name} | ${f.src.files} | ${f.src.lines} | ${f.test.files} | ${f.test.lines} | ${f.publicNames}${perEntry} | ${f.publicFrom.length} | ${internal ?? ''} |`);
  }
  const internalTotal = figures.reduce((total, f) => total + (f.entries['./internal']?.length ?? 0), 0);
  console.log(`| **all** | ${sum((f) => f.src.files)} | ${sum((f) => f.src.lines)} | ${sum((f) => f.test.files)} | ${sum((f) => f.test.lines)} | ${sum((f) => f.publicNames)} | ${sum((f) => f.publicFrom.length)} | ${internalTotal} |`);
  if (process.argv.includes('--names')) {
    for (const f of figures) {
      for (const [subpath, names] of Object.entries(f.entries)) console.log(`\n${f.name} ${subpath} (${names.length}): ${names.join(', ')}`);
    }
  }
}
