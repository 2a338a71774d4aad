import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FloodReport } from './flood-client.ts';
import { cleanup } from './helpers.ts';
import type { RelayProcess } from './spawn-relay.ts';

export type { FloodReport } from './flood-client.ts';

const FLOOD_CLIENT = fileURLToPath(new URL('./flood-client.ts', import.meta.url));
const attackers: ChildProcess[] = [];

/** A hostile client running in its own process (flood-client.ts); `last()` is its latest report. */
export interface Flood {
  child: ChildProcess;
  last(): FloodReport | undefined;
}

/** Starts flood-client.ts with these arguments; resolves once it runs. Killed by {@link stopAttack}. */
export async function flood(url: string, rooms: string[], token: string, sockets: number, perSecond: number, kind: 'pending' | 'valid' | 'reload' | 'awareness'): Promise<Flood> {
  const child = fork(FLOOD_CLIENT, [url, JSON.stringify(rooms), token, String(sockets), String(perSecond), kind], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  attackers.push(child);
  let last: FloodReport | undefined;
  child.on('message', (message) => {
    if (typeof message === 'object') last = message as FloodReport;
  });
  await new Promise((resolve) => child.once('message', resolve));
  return { child, last: () => last };
}

/** For `afterEach`: kills every flood, closes what the helpers opened, then kills the relays in `running` (and empties it). */
export async function stopAttack(running: RelayProcess[]): Promise<void> {
  for (const child of attackers.splice(0)) child.kill('SIGKILL');
  await cleanup();
  for (const relay of running.splice(0)) {
    if (relay.child.exitCode === null && relay.child.signalCode === null) relay.child.kill('SIGKILL');
    await relay.exited;
  }
}
