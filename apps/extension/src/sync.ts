/**
 * Optional sync: when a relay URL and token are set in the options page, the side panel
 * shares the user's namespace through it (@zeromem/sync), e.g. with the desktop app.
 */
import { shareNamespace, type SharedNamespace } from '@zeromem/sync';
import { memory, NAMESPACE } from './agent.ts';
import { loadSync } from './settings.ts';

/** Starts sharing when a relay is set; undefined when none is. */
export async function startSync(): Promise<SharedNamespace | undefined> {
  const settings = await loadSync();
  if (!settings) return undefined;
  return shareNamespace(await memory(), NAMESPACE, {
    url: settings.url,
    token: settings.token,
    deviceName: 'browser extension',
    ...(settings.encryptionKey ? { encryptionKey: settings.encryptionKey } : {}),
  });
}
