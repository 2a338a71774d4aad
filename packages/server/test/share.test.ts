import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { namespaceKey, openMemory, type Memory } from '@zeromem/core';
import { issueToken } from '@zeromem/relay';
import { shareNamespace, type SharedNamespace } from '@zeromem/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET } from '../../relay/test/helpers.ts';
import { serveRelay } from '../../relay/test/spawn-relay.ts';
import { Client, startServiceProcess, type ServiceProcess } from './service-process.ts';

// `zeromem serve --share`: a relay process, the service, and a second replica (a user's
// device) in this process, each with its own store on disk.
const ns = { userId: 'wang', agentId: 'after-sales' };
const work = mkdtempSync(join(tmpdir(), 'zeromem-serve-share-'));
let relay: Awaited<ReturnType<typeof serveRelay>>;
let service: ServiceProcess;
let device: Memory;
let deviceShare: SharedNamespace;
let api: Client;

/** Polls until `check` holds (sync is asynchronous by nature); bounded. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await read();
    if (check(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  relay = await serveRelay(join(work, 'relay'));
  const token = await issueToken({ secret: SECRET, subject: 'service', rooms: [namespaceKey(ns)], access: 'read-write', ttlSeconds: 3600 });
  service = await startServiceProcess(['--embedder', 'none', '--share', namespaceKey(ns), '--relay-url', relay.url], { ZEROMEM_HOME: join(work, 'service'), ZEROMEM_RELAY_TOKEN: token });
  api = new Client(service.url);
  await api.load();
  const deviceDir = join(work, 'device');
  device = await openMemory({ name: 'phone', directory: deviceDir });
  deviceShare = await shareNamespace(device, ns, { url: relay.url, token, WebSocketPolyfill: WebSocket, agentName: 'phone' });
  await deviceShare.synced;
}, 90_000);
afterAll(async () => {
  await deviceShare?.close();
  await device?.close();
  await service?.stop();
  relay?.child.kill('SIGTERM');
  await relay?.exited;
  rmSync(work, { recursive: true, force: true });
});

describe('zeromem serve --share', () => {
  it('a write through HTTP reaches the other replica, and its write comes back to the service', async () => {
    await eventually(async () => service.stdout(), (out) => out.includes(`shared ${namespaceKey(ns)} with ${relay.url}`), 'the service to sync');
    const written = await api.call('post', '/v1/memories', { body: { namespace: ns, id: 'TS20240315', content: '用户王先生反馈充电口接触不良，已生成工单 TS20240315，约定周三回访' } });
    expect(written.status).toBe(201);
    const arrived = await eventually(() => device.get(ns, 'TS20240315'), (record) => record !== undefined, 'the HTTP write to reach the device');
    expect(arrived!.content).toContain('充电口接触不良');

    const { id } = await device.remember({ namespace: ns, content: '周三回访已完成，充电口已更换' });
    const back = await eventually(() => api.call('get', '/v1/memories/{id}', { params: { id }, query: ns }), (answer) => answer.status === 200, 'the device write to reach the service');
    expect(back.body.content).toBe('周三回访已完成，充电口已更换');
    const recalled = await api.call('post', '/v1/recall', { body: { namespace: ns, query: '回访', k: 5 } });
    expect(recalled.body.hits.map((hit: { id: string }) => hit.id).sort()).toEqual(['TS20240315', id].sort());
  }, 60_000);

  it('is refused at start without a relay, or with a malformed namespace key (exit 2)', async () => {
    await expect(startServiceProcess(['--share', namespaceKey(ns)], { ZEROMEM_HOME: join(work, 'refused'), ZEROMEM_RELAY_URL: '', ZEROMEM_RELAY_TOKEN: '' })).rejects.toThrow(/service exited early \(2\).*--share needs a relay/s);
    await expect(startServiceProcess(['--share', 'wang', '--relay-url', relay.url, '--relay-token', 'x'], { ZEROMEM_HOME: join(work, 'refused') })).rejects.toThrow(/service exited early \(2\).*--share takes a namespace key/s);
  }, 60_000);
});
