/**
 * Issue 28's seven facts, through the door the issue found them in (`zeromem-mcp`): each
 * result carries an absolute relevance (not a score near the maximum for whatever came
 * first), and a forgotten memory's word brings back nothing that only matched it.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { call, stdioClient, tempHome } from './bin-client.ts';

const home = tempHome();
afterAll(() => home.remove());

const FACTS = [
  'Prefers phone calls over e-mail, callback Wednesday 15:00',
  'The charging port of the phone is loose',
  'Has two children, Mia and Leo',
  'Lives in Lyon since 2019',
  'Repair work order TS20240315 is open',
  'Works as a nurse on night shifts',
  'The user plays the cello',
];

interface Found {
  results: Array<{ id: string; content: string; relevance: number }>;
  reason?: string;
}

const search = (client: Client, query: string) => call<Found>(client, 'search_memories', { query });

describe('zeromem-mcp: relevance and "nothing relevant" (issue 28)', () => {
  it('gives each result an absolute relevance; a forgotten memory\'s word finds nothing (BM25 only: no result, a reason)', async () => {
    const { client, close } = await stdioClient(['--user', 'dana', '--db', 'seven-lexical', '--embedder', 'none'], { ZEROMEM_HOME: home.ZEROMEM_HOME });
    try {
      const ids: string[] = [];
      for (const content of FACTS) ids.push((await call<{ id: string }>(client, 'add_memory', { content })).id);
      const cello = await search(client, 'cello');
      expect(cello.results.map((r) => [r.content, r.relevance])).toEqual([['The user plays the cello', 1]]);
      // The one shared word, "user", names the subject of every memory: no evidence, so nothing.
      for (const question of ['how does the user like to be contacted', 'which drink does the user like']) {
        const answer = await search(client, question);
        expect(answer.results).toEqual([]);
        expect(answer.reason).toMatch(/^nothing relevant: the best match's relevance 0\.000 is below the floor 0\.01/);
      }
      await call(client, 'delete_memory', { id: ids[6] });
      const after = await search(client, 'cello');
      expect(after).toEqual({ results: [], reason: 'nothing relevant: no memory shares a word with the query; meanings were not compared (vector: no-embedder)' });
    } finally {
      await close();
    }
  }, 120_000);

  it('with the bundled embedder: the cello fact is fully relevant to "cello", and once forgotten nothing that holds the word comes back', async () => {
    const { client, close } = await stdioClient(['--user', 'dana', '--db', 'seven'], { ZEROMEM_HOME: home.ZEROMEM_HOME });
    try {
      const ids: string[] = [];
      for (const content of FACTS) ids.push((await call<{ id: string }>(client, 'add_memory', { content })).id);
      // Embedding runs in the background after each add: ask until the vectors are in (bounded).
      let cello = await search(client, 'cello');
      for (let i = 0; i < 50 && cello.results.length < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        cello = await search(client, 'cello');
      }
      // Every word of the query, and a meaning well above unrelated pairs': relevance 1 up to how far the meaning agrees.
      expect(cello.results[0]).toMatchObject({ content: 'The user plays the cello' });
      expect(cello.results[0]!.relevance).toBeGreaterThan(0.999);
      for (const result of cello.results.slice(1)) expect(result.relevance).toBeLessThan(0.5);
      await call(client, 'delete_memory', { id: ids[6] });
      const after = await search(client, 'cello');
      for (const result of after.results) {
        expect(result.content).not.toMatch(/cello/);
        expect(result.relevance).toBeLessThan(0.5);
      }
    } finally {
      await close();
    }
  }, 120_000);
});
