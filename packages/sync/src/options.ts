import { ZeromemError, type InputIssue } from '@zeromem/core';
import type { NamespaceKeyInput } from './encryption.ts';

/** Options of {@link shareNamespace}. `url` and `token` are required. */
export interface ShareOptions {
  /** The relay, e.g. `wss://relay.example.com` (`ws://127.0.0.1:8787` locally). */
  url: string;
  /** A relay token granting this namespace's key (see `zeromem-relay token`). */
  token: string;
  /** A WebSocket class where there is no global one (Node 20: `import WebSocket from 'ws'`). */
  WebSocketPolyfill?: unknown;
  /** Encrypts every record end to end (AES-GCM); every replica of the namespace needs the same key. */
  encryptionKey?: NamespaceKeyInput;
  /** Who this replica is, as other replicas see it in `peers()`. */
  agentName?: string;
  /** Which device this replica runs on, as other replicas see it in `peers()`. */
  deviceName?: string;
  /**
   * Do not send local changes. Default: read from the token (a `read` grant is read-only;
   * `false` with such a token is refused with INVALID_INPUT).
   * A read-only replica's local writes to the namespace stay on this device and are reported
   * to `onError` as UNAUTHORIZED; a later change of the same record from a writer replaces them.
   */
  readOnly?: boolean;
  /** How often the audit log is read for changes by other processes, ms (this process's and tab's are seen at once). Default 50. */
  pollMs?: number;
  /** Longest wait between reconnect attempts, ms. Default 2,500. */
  maxBackoffMs?: number;
  /**
   * Receives what went wrong in the background: a remote record that fails validation
   * (INVALID_INPUT, not written), a refused write (UNAUTHORIZED), a wrong key
   * (DECRYPTION_FAILED, the share stops). Default: rethrown as an uncaught error.
   */
  onError?: (err: ZeromemError) => void;
}

const FIELDS = ['url', 'token', 'WebSocketPolyfill', 'encryptionKey', 'agentName', 'deviceName', 'readOnly', 'pollMs', 'maxBackoffMs', 'onError'];

/** Validates the options; INVALID_INPUT lists every problem. */
export function checkShareOptions(value: unknown): ShareOptions {
  const issues: InputIssue[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ZeromemError('INVALID_INPUT', 'shareNamespace() needs options { url, token }.', { issues: [{ path: '', message: 'must be an object' }] });
  }
  const options = value as Record<string, unknown>;
  for (const key of Object.keys(options)) if (!FIELDS.includes(key)) issues.push({ path: key, message: 'is not an option of shareNamespace()' });
  if (typeof options.url !== 'string' || !/^wss?:\/\/[^/]+/.test(options.url)) issues.push({ path: 'url', message: 'must be a ws:// or wss:// relay address' });
  if (typeof options.token !== 'string' || options.token === '') issues.push({ path: 'token', message: 'must be a relay token (a non-empty string)' });
  for (const key of ['agentName', 'deviceName'] as const) {
    const name = options[key];
    if (name !== undefined && !(typeof name === 'string' && name.trim() !== '' && name.length <= 256)) issues.push({ path: key, message: 'must be a non-blank string of at most 256 characters' });
  }
  if (options.readOnly !== undefined && typeof options.readOnly !== 'boolean') issues.push({ path: 'readOnly', message: 'must be a boolean' });
  for (const key of ['pollMs', 'maxBackoffMs'] as const) {
    const ms = options[key];
    if (ms !== undefined && !(typeof ms === 'number' && Number.isFinite(ms) && ms >= 5)) issues.push({ path: key, message: 'must be a number of milliseconds, 5 or more' });
  }
  if (options.onError !== undefined && typeof options.onError !== 'function') issues.push({ path: 'onError', message: 'must be a function' });
  if (options.WebSocketPolyfill !== undefined && typeof options.WebSocketPolyfill !== 'function') issues.push({ path: 'WebSocketPolyfill', message: 'must be a WebSocket class' });
  if (options.WebSocketPolyfill === undefined && typeof WebSocket === 'undefined') issues.push({ path: 'WebSocketPolyfill', message: "is required where there is no global WebSocket: pass (await import('ws')).default" });
  if (issues.length) throw new ZeromemError('INVALID_INPUT', `Invalid shareNamespace options: ${issues[0]!.path}: ${issues[0]!.message}`, { issues });
  return options as unknown as ShareOptions;
}
