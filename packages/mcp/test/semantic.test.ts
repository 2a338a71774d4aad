/**
 * Semantic recall through the door most users meet first: a fresh `zeromem-mcp` process
 * loads the bundled embedder by default (English and Chinese models), so a question that
 * shares no word (or no character) with a memory still finds it; `--embedder none` is BM25
 * only, and a bad `--embedder` is a usage error.
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
/** Chinese: the question shares no character with the memory it should find. */
const MEMORIES_ZH = ['用户偏好圆通快递', '用户对花生过敏', '用户在上海当护士', '用户开一辆蓝色沃尔沃'];
const QUESTION_ZH = '寄包裹选哪家物流';

async function search(client: Client, query: string): Promise<Array<{ content: string }>> {
  return (await call<{ results: Array<{ content: string }> }>(client, 'search_memories', { query, limit: 3 })).results;
}

/**
 * Adds `memories` through a fresh server and asks `question`; `awaitVectors`: asks again
 * until the first memory is the answer (the embeddings are in).
 */
async function searchAfterAdding(args: string[], awaitVectors: boolean, memories = MEMORIES, question = QUESTION): Promise<{ results: Array<{ content: string }>; stderr: string }> {
  const { client, close, stderr } = await stdioClient(['--user', 'carol', ...args], { ZEROMEM_HOME: home.ZEROMEM_HOME });
  try {
    for (const content of memories) await call(client, 'add_memory', { content });
    // Embedding runs in the background after each add: until it is done a memory is found
    // by its words only, so ask again (bounded) while the answer can still change.
    let found = await search(client, question);
    for (let i = 0; awaitVectors && i < 100 && found[0]?.content !== memories[0]; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      found = await search(client, question);
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

  it('finds "用户偏好圆通快递" for "寄包裹选哪家物流" (no character in common): the bundled Chinese model', async () => {
    expect([...QUESTION_ZH].filter((char) => MEMORIES_ZH[0]!.includes(char))).toEqual([]);
    const { results } = await searchAfterAdding(['--db', 'semantic-zh'], true, MEMORIES_ZH, QUESTION_ZH);
    expect(results[0]?.content).toBe(MEMORIES_ZH[0]);
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
