/**
 * Child process of relay-speed.ts and relay-flood.ts: runs a relay (the library, as the bin
 * does; an optional third argument is JSON of more relay options) and, for
 * comparison, a bare websocket forwarder (no Yjs, no storage, no auth: the transport
 * floor). Answers `measure` over IPC with its memory after two full GCs and its counters.
 * Run with `node --expose-gc --import tsx`.
 */
import { WebSocketServer, type WebSocket } from 'ws';
import { startRelay } from '@zeromem/relay';

const [secret, dataDir, extra] = process.argv.slice(2) as [string, string, string | undefined];
const relay = await startRelay({
  secret,
  dataDir,
  logLevel: 'silent',
  maxConnectionsPerSubject: 100_000,
  maxDocumentBytes: 2 ** 30,
  ...(extra ? (JSON.parse(extra) as object) : {}),
});

const forwarder = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
const sockets = new Set<WebSocket>();
forwarder.on('connection', (socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  socket.on('message', (data: Buffer) => {
    for (const other of sockets) if (other !== socket) other.send(data);
  });
});
await new Promise((resolve) => forwarder.once('listening', resolve));
const forwardPort = (forwarder.address() as { port: number }).port;

const gc = (globalThis as { gc?: () => void }).gc;
process.on('message', async (message: string) => {
  if (message === 'measure') {
    gc?.();
    gc?.();
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    const { rooms, storedUpdates, durableWrites } = relay.stats();
    process.send!({ kind: 'memory', rss, heapUsed, external, arrayBuffers, rooms, storedUpdates, durableWrites });
  } else if (message === 'close') {
    await relay.close();
    forwarder.close();
    process.exit(0);
  }
});
process.send!({ kind: 'ready', relayUrl: relay.url, forwardUrl: `ws://127.0.0.1:${forwardPort}` });
