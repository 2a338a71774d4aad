/**
 * `zeromem-mcp` over stdio imports only what serving and its first answers need (issue 32:
 * start time and resident memory): not @zeromem/sync, ws or the HTTP transport's express
 * without `--share` / `--http`, and no ONNX runtime or transformers.js for the bundled
 * English model.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openMemory } from '@zeromem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, call, stdioClient } from './bin-client.ts';

const dir = mkdtempSync(join(tmpdir(), 'zeromem-mcp-imports-'));
const RECORDER = fileURLToPath(new URL('./fixtures/record-imports.mjs', import.meta.url));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The module URLs a server loads from start until its stdin closes (which stops it). */
function importsOf(args: string[]): string[] {
  const record = join(dir, `imports-${Math.random().toString(36).slice(2)}.txt`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--import', RECORDER, BIN, '--user', 'imports', '--dir', dir, ...args], {
    input: '',
    encoding: 'utf8',
    env: { ...process.env, ZEROMEM_RECORD_IMPORTS: record },
    timeout: 60_000,
  });
  expect(run.stderr).toMatch(/ready on stdio/);
  return readFileSync(record, 'utf8').split('\n').filter(Boolean);
}

describe('zeromem-mcp at start', () => {
  it('loads neither sync, ws, express nor an ONNX runtime over stdio with the bundled embedder', () => {
    const loaded = importsOf(['--embedder', 'bundled']);
    expect(loaded.some((url) => url.includes('/packages/core/'))).toBe(true); // the recorder sees the imports
    for (const unwanted of ['/packages/sync/', '/node_modules/ws/', '/node_modules/express/', 'onnxruntime', '@huggingface/transformers', '/sdk/dist/esm/server/express']) {
      expect(loaded.filter((url) => url.includes(unwanted)), unwanted).toEqual([]);
    }
  }, 90_000);

  it('answers a search without a time word without loading the date parser, and one with a time word with it', async () => {
    // chrono-node and its 15 locales (~9 MB, ~0.3 s of CPU) wait for a query that may name a time.
    const home = mkdtempSync(join(dir, 'home-'));
    const memory = await openMemory({ directory: home });
    await memory.remember({ namespace: { userId: 'dates' }, content: 'The doctor appointment is on Tuesday at the clinic' });
    await memory.close();
    const record = join(dir, 'imports-search.txt');
    const server = await stdioClient(['--user', 'dates', '--dir', home, '--embedder', 'none'], { NODE_OPTIONS: `--import=${RECORDER}`, ZEROMEM_RECORD_IMPORTS: record });
    try {
      const found = await call<{ results: unknown[] }>(server.client, 'search_memories', { query: 'when is the doctor appointment' });
      expect(found.results.length).toBe(1);
      const loaded = () => readFileSync(record, 'utf8').split('\n').filter((url) => url.includes('/packages/core/'));
      expect(loaded().length).toBeGreaterThan(0); // the recorder sees the server's imports
      expect(readFileSync(record, 'utf8').split('\n').filter((url) => url.includes('chrono-node'))).toEqual([]);
      await call(server.client, 'search_memories', { query: 'what did I book last Tuesday' });
      expect(readFileSync(record, 'utf8').split('\n').filter((url) => url.includes('chrono-node')).length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 90_000);
});
