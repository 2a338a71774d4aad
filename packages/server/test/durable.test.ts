import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, TOKEN, startServiceProcess } from './service-process.ts';

// The service keeps its memories on disk: what it acknowledged survives a SIGKILL, and a
// second service on the same store shares the file with the first.
const home = mkdtempSync(join(tmpdir(), 'zeromem-serve-durable-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const ns = { userId: 'wang', agentId: 'after-sales' };
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

describe('zeromem serve on the durable Node store', () => {
  it('a SIGKILL right after acknowledged writes (single and batch) loses none of them; the restarted service has them all', async () => {
    const env = { ZEROMEM_HOME: home };
    const first = await startServiceProcess(['--name', 'kill', '--embedder', 'none'], env);
    const acknowledged = new Map<string, string>();
    let killed = false;
    const ack = (id: string, content: string) => {
      if (killed) return; // answered after the kill was sent: may or may not be stored
      acknowledged.set(id, content);
      if (acknowledged.size >= 20) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    };
    const writes = Array.from({ length: 40 }, async (_, i) => {
      const one = i % 4 !== 0;
      const contents = one ? [`ticket note ${i}`] : [0, 1, 2].map((j) => `batch ${i} note ${j}`);
      const body = one ? { namespace: ns, content: contents[0] } : { memories: contents.map((content) => ({ namespace: ns, content })) };
      try {
        const response = await fetch(`${first.url}/v1/memories`, { method: 'POST', headers, body: JSON.stringify(body) });
        const answer = (await response.json()) as { id?: string; results?: Array<{ id: string }> };
        if (response.status >= 300) throw new Error(`${response.status} ${JSON.stringify(answer)}`);
        if (one) ack(answer.id!, contents[0]!);
        else answer.results!.forEach((result, j) => ack(result.id, contents[j]!));
      } catch (err) {
        if (!killed) throw err; // only the kill may cut a write off
      }
    });
    await Promise.all(writes);
    expect(await first.exited).toBeNull(); // killed, not exited
    expect(acknowledged.size).toBeGreaterThanOrEqual(20);

    const second = await startServiceProcess(['--name', 'kill', '--embedder', 'none'], env);
    try {
      const api = new Client(second.url);
      await api.load();
      for (const [id, content] of acknowledged) {
        const got = await api.call('get', '/v1/memories/{id}', { params: { id }, query: ns });
        expect(got.status, `acknowledged ${content}`).toBe(200);
        expect(got.body.content).toBe(content);
      }
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('a second service on the same store shares it: each answers with what the other acknowledged', async () => {
    const env = { ZEROMEM_HOME: home };
    const first = await startServiceProcess(['--name', 'shared', '--embedder', 'none'], env);
    const second = await startServiceProcess(['--name', 'shared', '--embedder', 'none'], env);
    try {
      const write = async (url: string, content: string) => {
        const response = await fetch(`${url}/v1/memories`, { method: 'POST', headers, body: JSON.stringify({ namespace: ns, content }) });
        expect(response.status).toBe(201);
        return ((await response.json()) as { id: string }).id;
      };
      const ids = [await write(first.url, 'written through the first service'), await write(second.url, 'written through the second service')];
      for (const service of [first, second]) {
        for (const id of ids) {
          const got = await fetch(`${service.url}/v1/memories/${id}?userId=wang&agentId=after-sales`, { headers });
          expect(got.status).toBe(200);
        }
      }
    } finally {
      await first.stop();
      await second.stop();
    }
  }, 60_000);

  it('--dir puts the store in that directory; the start line says where and how recall works', async () => {
    const dir = join(home, 'elsewhere');
    const service = await startServiceProcess(['--dir', dir, '--embedder', 'none'], { ZEROMEM_HOME: join(home, 'unused') });
    try {
      expect(service.stdout()).toContain(`(memory "zeromem" in ${dir}, recall BM25 only)`);
    } finally {
      await service.stop();
    }
    expect(existsSync(join(dir, 'zeromem.sqlite'))).toBe(true);
    expect(existsSync(join(home, 'unused', 'zeromem.sqlite'))).toBe(false);
  }, 60_000);
});

describe('--embedder', () => {
  it('bundled (the default): recall over HTTP is hybrid and finds a memory by meaning alone; none: BM25 only', async () => {
    const hybrid = await startServiceProcess([], { ZEROMEM_HOME: join(home, 'hybrid') });
    try {
      expect(hybrid.stdout()).toContain('recall hybrid');
      const api = new Client(hybrid.url);
      await api.load();
      await api.call('post', '/v1/memories', { body: { memories: ['My automobile broke down on the highway', 'I adopted a puppy from the animal shelter'].map((content) => ({ namespace: ns, content })) } });
      let answer;
      // Vectors are computed in the background after the write is acknowledged.
      for (let i = 0; i < 100; i++) {
        answer = await api.call('post', '/v1/recall', { body: { namespace: ns, query: 'car trouble', k: 1 } });
        if (answer.body.pendingEmbeddings === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(answer!.body.vector).toBe('used');
      expect(answer!.body.hits[0].record.content).toBe('My automobile broke down on the highway'); // no word in common
      expect(answer!.body.hits[0].explain.cosine).toBeGreaterThan(0.3);
    } finally {
      await hybrid.stop();
    }
    const lexical = await startServiceProcess(['--embedder', 'none'], { ZEROMEM_HOME: join(home, 'hybrid') });
    try {
      const api = new Client(lexical.url);
      await api.load();
      const answer = await api.call('post', '/v1/recall', { body: { namespace: ns, query: 'car trouble', k: 1 } });
      expect(answer.body).toMatchObject({ vector: 'no-embedder', hits: [] });
    } finally {
      await lexical.stop();
    }
  }, 120_000);

  it('a model folder that does not hold a model: exit 1 with EMBEDDER_UNAVAILABLE and the way out', async () => {
    await expect(startServiceProcess(['--embedder', join(home, 'no-model-here')], { ZEROMEM_HOME: join(home, 'bad-model') })).rejects.toThrow(/cannot load the embedder: EMBEDDER_UNAVAILABLE[\s\S]*--embedder none/);
  }, 60_000);
});
