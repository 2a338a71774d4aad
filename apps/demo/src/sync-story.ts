import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { namespaceKey, openMemory, type MemoryRecord, type Namespace } from '@zeromem/core';
import { issueToken, startRelay } from '@zeromem/relay';
import { shareNamespace } from '@zeromem/sync';
import type { Print } from './story.ts';

/**
 * The same two agents as two replicas: each has its own memory (its own IndexedDB, as on
 * two machines), the user's namespace is shared through a relay, each agent's own
 * namespace stays on its machine. The marketing agent sees the support agent's facts
 * through sync, and the support agent's private notes never leave its machine.
 */
export async function runSyncStory(print: Print, options: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange } = {}): Promise<{
  seenByMarketing: MemoryRecord[];
  peersOfMarketing: string[];
  marketingSeesPrivate: boolean;
}> {
  const secret = 'demo-relay-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
  const dataDir = mkdtempSync(join(tmpdir(), 'zeromem-demo-relay-'));
  const relay = await startRelay({ secret, dataDir, port: 0, logLevel: 'silent' });
  const user: Namespace = { userId: 'user-1042' };
  const afterSalesNotes: Namespace = { userId: 'user-1042', agentId: 'after-sales' };
  const room = namespaceKey(user);
  const supportToken = await issueToken({ secret, subject: 'after-sales-agent', rooms: [room], access: 'read-write', ttlSeconds: 3600 });
  const marketingToken = await issueToken({ secret, subject: 'marketing-agent', rooms: [room], access: 'read', ttlSeconds: 3600 });
  // Two machines: two databases. (In a browser or Electron each would be its own profile.)
  const support = await openMemory({ name: 'after-sales-machine', actor: 'after-sales-agent', ...options });
  const marketing = await openMemory({ name: 'marketing-machine', actor: 'marketing-agent', ...options });
  const common = { url: relay.url, WebSocketPolyfill: WebSocket }; // each share keeps its document in its memory's store
  const supportShare = await shareNamespace(support, user, { ...common, token: supportToken, agentName: 'after-sales-agent', deviceName: 'support-server' });
  const marketingShare = await shareNamespace(marketing, user, { ...common, token: marketingToken, agentName: 'marketing-agent', deviceName: 'campaign-server' });
  try {
    print('');
    print(`Sync: the same agents as two replicas through a relay at ${relay.url} (room ${room}).`);
    await Promise.all([supportShare.synced, marketingShare.synced]);
    print(`  the marketing agent's token is read-only: readOnly=${marketingShare.readOnly}`);
    await support.remember({ namespace: user, content: 'The user prefers phone calls over e-mail.', tags: ['preference', 'contact'], importance: 0.9 });
    const order = await support.remember({ namespace: user, id: 'TS20240315', content: 'Repair work order TS20240315 is open for the charging port.', tags: ['work-order'] });
    await support.remember({ namespace: afterSalesNotes, content: 'Checked warranty: the phone is covered until 2027-01.', tags: ['warranty'] });
    await support.update(user, order.id, { metadata: { status: 'parts-ordered' } });
    print('  after-sales (its machine) remembered 2 user facts, updated the work order, and kept 1 note in its own namespace');
    const deadline = Date.now() + 10_000;
    while ((await marketing.get(user, order.id))?.metadata.status !== 'parts-ordered' || (await marketing.count(user)) < 2) {
      if (Date.now() > deadline) throw new Error('the facts did not arrive through the relay');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { items: seenByMarketing } = await marketing.list(user, { order: 'asc' });
    print('  the marketing agent (the other machine) now has, through sync:');
    for (const fact of seenByMarketing) print(`  - ${fact.content}  [${fact.tags.join(', ')}]${fact.metadata.status ? ` status ${String(fact.metadata.status)}` : ''}`);
    const hit = (await marketing.recall(user, 'how does the user prefer to be contacted', { k: 1 })).hits[0];
    print(`  its recall "how does the user prefer to be contacted" -> ${hit?.record.content ?? 'nothing'}`);
    const marketingSeesPrivate = (await marketing.count(afterSalesNotes)) > 0;
    print(`  after-sales' own namespace on the marketing machine: ${await marketing.count(afterSalesNotes)} memories (it never left its machine)`);
    const deadlinePeers = Date.now() + 5_000;
    while (marketingShare.peers().length === 0 && Date.now() < deadlinePeers) await new Promise((resolve) => setTimeout(resolve, 20));
    const peersOfMarketing = marketingShare.peers().map((peer) => `${peer.agentName ?? '?'} on ${peer.deviceName ?? '?'}`);
    print(`  online in the shared namespace, as the marketing agent sees it: ${peersOfMarketing.join(', ')}`);
    return { seenByMarketing, peersOfMarketing, marketingSeesPrivate };
  } finally {
    await supportShare.close();
    await marketingShare.close();
    await support.close();
    await marketing.close();
    await relay.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
