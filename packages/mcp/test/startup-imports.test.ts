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
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './bin-client.ts';

const dir = mkdtempSync(join(tmpdir(), 'zeromem-mcp-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The module URLs a server loads from start until its stdin closes (which stops it). */
function importsOf(args: string[]): string[] {
  const record = join(dir, `imports-${Math.random().toString(36).slice(2)}.txt`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--import', fileURLToPath(new URL('./fixtures/record-imports.mjs', import.meta.url)), BIN, '--user', 'imports', '--dir', dir, ...args], {
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
});
