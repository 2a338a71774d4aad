import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, client, synced, tempDir, token } from './helpers.ts';
import { type RelayProcess, serveRelay } from './spawn-relay.ts';

// A bound on how much of the relay one token subject can take, checked the way a user
// would notice it: while one subject hammers the relay within every per-socket limit, a
// client in another room still sees its writes come back quickly, and /healthz answers.
// The numbers are generous (CI machines are shared): without the bound the victim sees
// no round trip for seconds.

const ATTACK_ROOM = 'u=mallory;s=attack';
const VICTIM_ROOM = 'u=alice;s=shared';
const running: RelayProcess[] = [];
const attackers: ChildProcess[] = [];

afterEach(async () => {
  for (const child of attackers.splice(0)) child.kill('SIGKILL');
  await cleanup();
  for (const relay of running.splice(0)) {
    if (relay.child.exitCode === null && relay.child.signalCode === null) relay.child.kill('SIGKILL');
    await relay.exited;
  }
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FLOOD_CLIENT = fileURLToPath(new URL('./flood-client.ts', import.meta.url));

function p95(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
}

/** Starts the hostile client of subject "mallory" in its own process (see flood-client.ts); resolves once it runs. */
async function attack(url: string, sockets: number, perSecond: number, kind: 'pending' | 'valid'): Promise<ChildProcess> {
  const authToken = await token([ATTACK_ROOM], { subject: 'mallory' });
  const child = fork(FLOOD_CLIENT, [url, ATTACK_ROOM, authToken, String(sockets), String(perSecond), kind], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  attackers.push(child);
  await new Promise((resolve) => child.once('message', resolve));
  return child;
}

/** Round trips of writes between two clients in the victim's room, and /healthz answer times, until `stop`. */
async function watch(url: string, port: number, stop: { done: boolean }): Promise<{ roundTrips: number[]; health: number[] }> {
  const rw = await token([VICTIM_ROOM], { subject: 'alice' });
  const writer = client(url, VICTIM_ROOM, rw);
  const reader = client(url, VICTIM_ROOM, rw);
  await Promise.all([synced(writer.provider), synced(reader.provider)]);
  const roundTrips: number[] = [];
  const health: number[] = [];
  const trips = (async () => {
    for (let i = 0; !stop.done; i++) {
      const key = `k${i}`;
      const start = performance.now();
      const seen = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 3000);
        const observe = (): void => {
          if (!reader.doc.getMap('records').has(key)) return;
          clearTimeout(timer);
          reader.doc.getMap('records').unobserve(observe);
          resolve();
        };
        reader.doc.getMap('records').observe(observe);
      });
      writer.doc.getMap('records').set(key, i);
      await seen;
      roundTrips.push(performance.now() - start);
      await sleep(50);
    }
  })();
  const checks = (async () => {
    while (!stop.done) {
      const start = performance.now();
      await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(3000) }).then((r) => r.text()).catch(() => undefined);
      health.push(performance.now() - start);
      await sleep(50);
    }
  })();
  await Promise.all([trips, checks]);
  return { roundTrips, health };
}

describe('one token subject within every per-socket limit', { timeout: 120_000 }, () => {
  it('cannot starve another room with updates waiting for a dependency that never comes', async () => {
    const relay = await serveRelay(tempDir(), ['--quiet']);
    running.push(relay);
    const stop = { done: false };
    const watching = watch(relay.url, relay.port, stop);
    // Updates waiting for a dependency (under the pending bound), then 1-byte ones of the same kind: each makes Yjs merge all that waits.
    const attacking = await attack(relay.url, 1, 150, 'pending');
    await sleep(6000);
    stop.done = true;
    attacking.kill('SIGKILL');
    const { roundTrips, health } = await watching;
    console.log(`victim round trips: ${roundTrips.length}, p95 ${p95(roundTrips).toFixed(1)} ms; /healthz: ${health.length}, p95 ${p95(health).toFixed(1)} ms`);
    expect(p95(roundTrips)).toBeLessThan(200);
    expect(p95(health)).toBeLessThan(100);
    expect(relay.child.exitCode).toBeNull();
  });

  it('cannot starve another room with 16 sockets of valid updates at 190 messages per second each', async () => {
    const relay = await serveRelay(tempDir(), ['--quiet']);
    running.push(relay);
    const stop = { done: false };
    const watching = watch(relay.url, relay.port, stop);
    const attacking = await attack(relay.url, 16, 190, 'valid');
    await sleep(6000);
    stop.done = true;
    attacking.kill('SIGKILL');
    const { roundTrips, health } = await watching;
    console.log(`victim round trips: ${roundTrips.length}, p95 ${p95(roundTrips).toFixed(1)} ms; /healthz: ${health.length}, p95 ${p95(health).toFixed(1)} ms`);
    expect(p95(roundTrips)).toBeLessThan(200);
    expect(p95(health)).toBeLessThan(100);
    expect(relay.child.exitCode).toBeNull();
  });
});
