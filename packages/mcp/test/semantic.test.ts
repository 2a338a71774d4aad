/**
 * Semantic recall through the door most users meet first: a fresh `zeromem-mcp` process
 * loads the bundled embedder by default, so a question that shares no word with a memory
 * still finds it; `--embedder none` is BM25 only, and a bad `--embedder` is a usage error.
 */
import { spawnSync } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, call, stdioClient, tempHome } from './bin-client.ts';

const home = tempHome();
afterAll(() => home.remove());

const MEMORIES = [
  'Prefers phone calls over e-mail, callback Wednesday 15:00',
  'Allergic to peanuts',
  'Works as a nurse in Leeds',
  'Drives a blue Volvo',
];
const QUESTION = 'how does the user like to be contacted';

async function search(client: Client): Promise<Array<{ content: string }>> {
  return (await call<{ results: Array<{ content: string }> }>(client, 'search_memories', { query: QUESTION, limit: 3 })).results;
}

/** Adds the memories through a fresh server and asks the question; `awaitVectors`: asks again until the embeddings are in. */
async function searchAfterAdding(args: string[], awaitVectors: boolean): Promise<{ results: Array<{ content: string }>; stderr: string }> {
  const { client, close, stderr } = await stdioClient(['--user', 'carol', ...args], { ZEROMEM_HOME: home.ZEROMEM_HOME });
  try {
    for (const content of MEMORIES) await call(client, 'add_memory', { content });
    // Embedding runs in the background after each add: until it is done a memory is found
    // by its words only, so ask again (bounded) while the answer can still change.
    let found = await search(client);
    for (let i = 0; awaitVectors && i < 50 && found[0]?.content !== MEMORIES[0]; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      found = await search(client);
    }
    return { results: found, stderr: stderr() };
  } finally {
    await close();
  }
}

describe('zeromem-mcp recall with the bundled embedder', () => {
  it('finds "Prefers phone calls ..." for "how does the user like to be contacted" (no word in common)', async () => {
    const { results, stderr } = await searchAfterAdding(['--db', 'semantic'], true);
    expect(results[0]?.content).toBe(MEMORIES[0]);
    expect(stderr).toMatch(/recall: hybrid/);
  }, 120_000);

  it('with --embedder none recall is BM25 only and the question finds nothing', async () => {
    const { results, stderr } = await searchAfterAdding(['--db', 'lexical', '--embedder', 'none'], false);
    expect(results).toEqual([]);
    expect(stderr).toMatch(/recall: BM25 only/);
  }, 120_000);

  it('a model folder that does not exist is refused at start with exit code 1', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', BIN, '--user', 'carol', '--embedder', '/nonexistent/model'], {
      env: { ...process.env, ZEROMEM_HOME: home.ZEROMEM_HOME },
      input: '',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot load the embedder.*\n.*--embedder none/);
  }, 120_000);
});
