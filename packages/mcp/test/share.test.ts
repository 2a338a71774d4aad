import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { namespaceKey, openMemory, type Memory } from '@zeromem/core';
import { issueToken, startRelay, type Relay } from '@zeromem/relay';
import { shareNamespace, type SharedNamespace } from '@zeromem/sync';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, stdioClient, tempHome } from './bin-client.ts';

const SECRET = 'mcp-share-test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const namespace = { userId: 'alice', scope: 'desktop' };
let relay: Relay;
let dataDir: string;
let app: Memory;
let appShare: SharedNamespace;
const home = tempHome();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'zeromem-mcp-share-'));
  relay = await startRelay({ secret: SECRET, dataDir, logLevel: 'silent', port: 0 });
  // The desktop app: another process's store in real life, its own directory here.
  app = await openMemory({ name: 'desktop-app', directory: join(dataDir, 'desktop-app') });
}, 60_000);
afterAll(async () => {
  await appShare?.close();
  await app?.close();
  await relay?.close();
  rmSync(dataDir, { recursive: true, force: true });
  home.remove();
});

/** Polls until `check` holds (sync is asynchronous by nature); bounded. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (check(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

it('--share joins the namespace through a relay: the MCP client and another app see the same memory', async () => {
  const token = await issueToken({ secret: SECRET, subject: 'alice', rooms: [namespaceKey(namespace)], access: 'read-write', ttlSeconds: 3600 });
  appShare = await shareNamespace(app, namespace, { url: relay.url, token, WebSocketPolyfill: WebSocket, agentName: 'desktop-app' });
  await appShare.synced;
  await app.remember({ namespace, content: 'Alice is learning Portuguese' });

  const { client, close, stderr } = await stdioClient(['--user', 'alice', '--scope', 'desktop', '--share'], { ZEROMEM_RELAY_URL: relay.url, ZEROMEM_RELAY_TOKEN: token, ZEROMEM_HOME: home.ZEROMEM_HOME });
  try {
    const seen = await eventually(
      () => call<{ results: Array<{ content: string }> }>(client, 'search_memories', { query: 'Portuguese' }),
      (r) => r.results.length === 1,
      'the app memory to reach the MCP server',
    );
    expect(seen.results[0]!.content).toBe('Alice is learning Portuguese');
    const { id } = await call<{ id: string }>(client, 'add_memory', { content: 'Alice has a lesson on Tuesdays' });
    const arrived = await eventually(() => app.get(namespace, id), (r) => r !== undefined, 'the MCP write to reach the app');
    expect(arrived!.content).toBe('Alice has a lesson on Tuesdays');
    expect(stderr()).toContain('shared with');
  } finally {
    await close();
  }
}, 60_000);
