import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { TOKEN, startServiceProcess } from './service-process.ts';

// HTTP/1.1 clients reuse connections: a refusal must leave the connection usable (or say it
// is closed), and a stop must not wait for, nor fail on, a connection left open.

/** One request on `agent` (one socket, kept alive); resolves with the status and the body. */
function call(agent: Agent, url: string, method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const req = request(
      { agent, host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

describe('zeromem serve on a kept-alive connection', () => {
  it('answers the next request after a 413, and exits 0 on SIGTERM while the connection is open', async () => {
    const service = await startServiceProcess(['--embedder', 'none']);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const tooLarge = await call(agent, service.url, 'POST', '/v1/memories', JSON.stringify({ namespace: { userId: 'wang' }, content: 'x'.repeat(2 * 1024 * 1024) }));
      expect(tooLarge.status).toBe(413);
      expect(JSON.parse(tooLarge.body).error.code).toBe('PAYLOAD_TOO_LARGE');
      const next = await call(agent, service.url, 'POST', '/v1/memories', JSON.stringify({ namespace: { userId: 'wang' }, content: 'after the refusal' }));
      expect(next.status).toBe(201);
      const stats = await call(agent, service.url, 'GET', '/v1/stats?userId=wang');
      expect(stats.status).toBe(200);
      // The agent keeps its socket open: the stop must not hang on it.
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
    } finally {
      agent.destroy();
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
    }
  }, 60_000);

  it('exits 0 on SIGTERM right after a 413, with that connection still open', async () => {
    const service = await startServiceProcess(['--embedder', 'none']);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const tooLarge = await call(agent, service.url, 'POST', '/v1/memories', JSON.stringify({ namespace: { userId: 'wang' }, content: 'x'.repeat(2 * 1024 * 1024) }));
      expect(tooLarge.status).toBe(413);
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
    } finally {
      agent.destroy();
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
    }
  }, 60_000);
});
