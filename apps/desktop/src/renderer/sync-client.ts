/**
 * The sync view's model: shares the user's namespace through a zeromem relay and reports
 * what the view shows (state, peers, pending changes, encryption). The relay settings are
 * kept in localStorage so the app reconnects on start.
 */
import { namespaceKey, type Memory, type Namespace } from '@zeromem/core';
import { shareNamespace, type Peer, type SharedNamespace } from '@zeromem/sync';

export interface SyncSettings {
  url: string;
  token: string;
  /** Empty: not encrypted. Every device of the namespace needs the same key. */
  encryptionKey: string;
  deviceName: string;
  /** Connect when the app starts. */
  autoConnect: boolean;
}

export type SyncState = 'off' | 'connecting' | 'connected' | 'offline' | 'failed';

export interface SyncSnapshot {
  state: SyncState;
  room: string;
  peers: Peer[];
  /** Local changes of the shared namespace not yet sent to the relay. */
  pending: number;
  encrypted: boolean;
  readOnly: boolean;
  error: string | null;
  /** Records from other devices that were refused (validation, decryption). */
  rejected: number;
}

const STORAGE_KEY = 'zeromem.sync.settings';

export function loadSyncSettings(): SyncSettings | null {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as SyncSettings | null;
    return value && typeof value.url === 'string' && typeof value.token === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function saveSyncSettings(settings: SyncSettings | null): void {
  if (settings) localStorage.setItem(STORAGE_KEY, JSON.stringify(settings));
  else localStorage.removeItem(STORAGE_KEY);
}

export class SyncClient {
  readonly #memory: Memory;
  readonly #namespace: Namespace;
  readonly room: string;
  #share: SharedNamespace | null = null;
  #settings: SyncSettings | null = null;
  #error: string | null = null;
  /** Audit seq up to which local changes are known to be in the relay's document. */
  #sentUpTo = 0;
  #pending = 0;
  readonly #listeners = new Set<(snapshot: SyncSnapshot) => void>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(memory: Memory, namespace: Namespace) {
    this.#memory = memory;
    this.#namespace = namespace;
    this.room = namespaceKey(namespace);
  }

  snapshot(): SyncSnapshot {
    const share = this.#share;
    const status = share?.status;
    const state: SyncState = !share || status === 'closed' ? (this.#error ? 'failed' : 'off') : status === 'failed' ? 'failed' : (status ?? 'off');
    return {
      state,
      room: this.room,
      peers: share && state === 'connected' ? share.peers() : [],
      pending: this.#pending,
      encrypted: Boolean(this.#settings?.encryptionKey),
      readOnly: share?.readOnly ?? false,
      error: this.#error ?? share?.error?.message ?? null,
      rejected: share?.rejected.length ?? 0,
    };
  }

  subscribe(listener: (snapshot: SyncSnapshot) => void): () => void {
    this.#listeners.add(listener);
    listener(this.snapshot());
    return () => this.#listeners.delete(listener);
  }

  #emit(): void {
    const snapshot = this.snapshot();
    for (const listener of this.#listeners) listener(snapshot);
  }

  /** Connects (closing a previous share). Resolves when the first sync is done or failed. */
  async connect(settings: SyncSettings): Promise<void> {
    await this.disconnect();
    this.#settings = settings;
    this.#error = null;
    try {
      this.#share = await shareNamespace(this.#memory, this.#namespace, {
        url: settings.url.trim(),
        token: settings.token.trim(),
        agentName: 'zeromem desktop',
        deviceName: settings.deviceName.trim() || 'this device',
        ...(settings.encryptionKey.trim() ? { encryptionKey: settings.encryptionKey.trim() } : {}),
        onError: (err) => {
          this.#error = err.message;
          this.#emit();
        },
      });
    } catch (err) {
      this.#error = (err as Error).message;
      this.#emit();
      return;
    }
    this.#timer = setInterval(() => void this.#refresh(), 500);
    this.#emit();
    try {
      await this.#share.synced;
    } catch (err) {
      this.#error = (err as Error).message;
    }
    await this.#refresh();
  }

  async disconnect(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    const share = this.#share;
    this.#share = null;
    this.#settings = null;
    if (share) await share.close().catch(() => undefined);
    this.#emit();
  }

  /** Counts unsent local changes: audit entries after the last point known sent, not from sync, not tiering. */
  async #refresh(): Promise<void> {
    const share = this.#share;
    if (!share) return;
    const entries = await this.#memory.audit(this.#namespace, { after: this.#sentUpTo, limit: 1000 }).catch(() => []);
    if (share.status === 'connected' && !share.readOnly) {
      await share.flush().catch(() => undefined);
      const last = entries.at(-1);
      if (last) this.#sentUpTo = last.seq;
      this.#pending = 0;
    } else {
      this.#pending = entries.filter((entry) => !entry.replicated && entry.op !== 'retier').length;
    }
    this.#emit();
  }
}
