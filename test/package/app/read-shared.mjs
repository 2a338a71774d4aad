// A Node replica: joins the namespace the browser page shared and prints what it holds.
import { openMemory } from '@zeromem/core';
import { shareNamespace } from '@zeromem/sync';
import WebSocket from 'ws';

const [url, token] = process.argv.slice(2);
const user = { userId: 'user-1042' };
const memory = await openMemory({ name: 'package-test-reader' });
const share = await shareNamespace(memory, user, { url, token, WebSocketPolyfill: WebSocket });
// The test bounds this script; a stall here says where it was.
const stalled = setTimeout(() => console.error('read-shared: not synced after 30 s'), 30_000);
await share.synced;
clearTimeout(stalled);
let contents = [];
for (let tries = 0; tries < 200 && contents.length < 2; tries++) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  contents = (await memory.list(user)).items.map((record) => record.content).sort();
}
console.log(JSON.stringify(contents));
await share.close();
await memory.close();
