/**
 * Builds an MV3 extension whose service worker bundles core, sync and the browser embedder
 * with Vite, and scans the output for what Manifest V3 forbids in a service worker.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, parseAst, type Rollup } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));

/** Builds the test extension into `outDir` (manifest + service-worker.js); returns the worker's code. */
export async function buildServiceWorkerExtension(outDir: string): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: 'warn',
    root: here,
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      minify: false,
      // Library mode: an app build wraps dynamic imports in a preload helper that uses `window`.
      lib: { entry: join(here, 'service-worker.ts'), formats: ['es'], fileName: () => 'service-worker.js' },
      rollupOptions: { output: { inlineDynamicImports: true } },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result as Rollup.RollupOutput]).flatMap((o) => o.output);
  const chunks = outputs.filter((o): o is Rollup.OutputChunk => o.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`expected one chunk, got ${chunks.map((c) => c.fileName).join(', ')}`);
  const manifest = {
    manifest_version: 3,
    name: 'zeromem MV3 service-worker check',
    version: '0.0.1',
    background: { service_worker: 'service-worker.js', type: 'module' },
    content_security_policy: { extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'" },
  };
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return chunks[0]!.code;
}

/** One forbidden construct found in bundled code. */
export interface Finding {
  kind: 'import()' | 'eval' | 'Function' | 'window';
  excerpt: string;
}

interface Node {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

/**
 * Walks the bundle's syntax tree (so strings and comments do not count) for dynamic
 * `import()`, `eval`, `Function` constructors and any `window` not guarded by a
 * `typeof window` test (`typeof window !== 'undefined' ? window : self` is fine in a worker).
 */
export function forbiddenConstructs(code: string): Finding[] {
  const findings: Finding[] = [];
  const excerpt = (node: Node) => code.slice(Math.max(0, node.start - 80), node.end + 40).replace(/\s+/g, ' ');
  const guards: Node[] = [];
  const guardsWindow = (test: unknown) => isNode(test) && /typeof\s+window/.test(code.slice(test.start, test.end));
  const visit = (node: Node, parent: Node | undefined, key: string | undefined) => {
    if (node.type === 'ImportExpression') findings.push({ kind: 'import()', excerpt: excerpt(node) });
    if ((node.type === 'CallExpression' || node.type === 'NewExpression') && isIdentifier(node.callee, 'eval')) findings.push({ kind: 'eval', excerpt: excerpt(node) });
    if ((node.type === 'CallExpression' || node.type === 'NewExpression') && isIdentifier(node.callee, 'Function')) findings.push({ kind: 'Function', excerpt: excerpt(node) });
    const guarded = guards.length > 0 || (parent?.type === 'UnaryExpression' && parent.operator === 'typeof');
    if (isIdentifier(node, 'window') && isReference(parent, key) && !guarded) {
      findings.push({ kind: 'window', excerpt: excerpt(parent ?? node) });
    }
    for (const [childKey, value] of Object.entries(node)) {
      // The branch a `typeof window` test guards: `test ? here : …`, `if (test) here`, `test && here`.
      const guard =
        ((node.type === 'ConditionalExpression' || node.type === 'IfStatement') && childKey === 'consequent' && guardsWindow(node.test)) ||
        (node.type === 'LogicalExpression' && node.operator === '&&' && childKey === 'right' && guardsWindow(node.left));
      if (guard) guards.push(node);
      if (Array.isArray(value)) for (const child of value) if (isNode(child)) visit(child, node, childKey);
      if (isNode(value)) visit(value, node, childKey);
      if (guard) guards.pop();
    }
  };
  visit(parseAst(code) as unknown as Node, undefined, undefined);
  return findings;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

function isIdentifier(value: unknown, name: string): boolean {
  return isNode(value) && value.type === 'Identifier' && value.name === name;
}

/** False for identifiers that name a property or a key rather than a variable. */
function isReference(parent: Node | undefined, key: string | undefined): boolean {
  if (!parent) return true;
  if (parent.type === 'MemberExpression' && key === 'property' && !parent.computed) return false;
  if ((parent.type === 'Property' || parent.type === 'MethodDefinition' || parent.type === 'PropertyDefinition') && key === 'key' && !parent.computed) return false;
  return true;
}
