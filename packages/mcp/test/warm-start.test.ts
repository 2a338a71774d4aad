/**
 * `zeromem-mcp` pays its first search's costs (the namespace's index restored or built,
 * the embedding model and the date parser loaded) right after it starts, before any
 * request (issue 32: spawn to the first search answered), and the first search then
 * answers from that index.
 */
import { openMemory } from '@zeromem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { call, stdioClient, tempHome } from './bin-client.ts';

const home = tempHome();
afterAll(() => home.remove());

describe('zeromem-mcp at start', () => {
  it('readies the search index before any request, and the first search uses it', async () => {
    const memory = await openMemory({ directory: home.ZEROMEM_HOME });
    await memory.rememberMany(Array.from({ length: 30 }, (_, i) => ({ namespace: { userId: 'warm' }, content: `note ${i} about the dentist appointment` })));
    await memory.close();
    const server = await stdioClient(['--user', 'warm', '--embedder', 'bundled'], { ZEROMEM_HOME: home.ZEROMEM_HOME });
    try {
      // No request has been sent: only the server's own warm-up can print this.
      for (let i = 0; i < 600 && !/search index ready/.test(server.stderr()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(server.stderr()).toMatch(/search index ready \(30 memories, \d+ ms\)/);
      const found = await call<{ results: unknown[] }>(server.client, 'search_memories', { query: 'dentist appointment' });
      expect(found.results.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 90_000);
});
