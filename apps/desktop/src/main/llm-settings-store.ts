/**
 * Where Electron keeps the LLM settings: the endpoint and model in a JSON file in the app's
 * user-data folder, the API key encrypted with the OS keychain (Electron's `safeStorage`)
 * in a file of its own. The key never goes to the renderer; only "there is one" does.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '@zeromem/app-shared/app-error';
import { llmSettingsSchema, type LlmSettings, type SaveLlmSettings } from '@zeromem/app-shared/llm-settings';
import type { LlmStatus } from '../shared/ipc-contract.ts';

/** The part of Electron's `safeStorage` used here. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

const SETTINGS_FILE = 'llm-settings.json';
const KEY_FILE = 'llm-api-key.bin';

export class LlmSettingsStore {
  readonly #dir: string;
  readonly #safeStorage: SafeStorageLike;

  constructor(dir: string, safeStorage: SafeStorageLike) {
    this.#dir = dir;
    this.#safeStorage = safeStorage;
  }

  /** The stored endpoint and model, or null (none, or a file that no longer validates). */
  async settings(): Promise<LlmSettings | null> {
    const raw = await readFile(join(this.#dir, SETTINGS_FILE), 'utf8').catch(() => null);
    if (raw === null) return null;
    try {
      const parsed = llmSettingsSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** The decrypted key, or null. */
  async apiKey(): Promise<string | null> {
    const encrypted = await readFile(join(this.#dir, KEY_FILE)).catch(() => null);
    if (encrypted === null || !this.#safeStorage.isEncryptionAvailable()) return null;
    try {
      return this.#safeStorage.decryptString(encrypted);
    } catch {
      return null; // another machine's or user's keychain: as if there were none
    }
  }

  async status(): Promise<LlmStatus> {
    return {
      settings: await this.settings(),
      hasApiKey: (await this.apiKey()) !== null,
      keyStorage: this.#safeStorage.isEncryptionAvailable() ? 'os-keychain' : 'unavailable',
    };
  }

  /**
   * Stores validated settings. A key is only ever written encrypted: without a keychain,
   * saving one is KEYCHAIN_UNAVAILABLE and nothing is written.
   */
  async save(input: SaveLlmSettings): Promise<LlmStatus> {
    const wantsKey = typeof input.apiKey === 'string' && input.apiKey !== '';
    if (wantsKey && !this.#safeStorage.isEncryptionAvailable()) {
      throw new AppError('KEYCHAIN_UNAVAILABLE', 'The OS keychain is not available (on Linux: a Secret Service such as GNOME Keyring or KWallet), so the API key cannot be stored safely. Use a local server that needs no key, or start a keyring.');
    }
    const encrypted = wantsKey ? this.#safeStorage.encryptString(input.apiKey as string) : null;
    await mkdir(this.#dir, { recursive: true });
    await atomicWrite(join(this.#dir, SETTINGS_FILE), JSON.stringify({ baseUrl: input.baseUrl, model: input.model }));
    if (encrypted) await atomicWrite(join(this.#dir, KEY_FILE), encrypted);
    else if (input.apiKey === null || input.apiKey === '') await rm(join(this.#dir, KEY_FILE), { force: true });
    return this.status();
  }
}

async function atomicWrite(file: string, data: string | Buffer): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, data, { mode: 0o600 });
  await rename(temporary, file);
}
