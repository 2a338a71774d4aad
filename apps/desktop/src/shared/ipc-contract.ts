/**
 * The whole IPC surface between the Electron renderer and main process: channel names and
 * the shapes that cross it (the LLM's four channels, the device store's verbs). Every handler answers an {@link IpcResult}, never a thrown
 * error, so the error code survives the trip.
 */
import type { SerializedAppError } from '@zeromem/app-shared/app-error';
import type { LlmSettings } from '@zeromem/app-shared/llm-settings';

export const IPC = {
  /** () -> {@link LlmStatus} */
  getLlmSettings: 'zeromem:llm:get-settings',
  /** (SaveLlmSettings) -> {@link LlmStatus} */
  saveLlmSettings: 'zeromem:llm:save-settings',
  /** (ChatRequest) -> the whole reply; deltas arrive on {@link IPC_EVENTS.chatDelta} */
  chat: 'zeromem:llm:chat',
  /** (requestId) -> true when a running request was cancelled */
  cancelChat: 'zeromem:llm:cancel',
} as const;

/**
 * The device store's verbs (main/device-store.ts), one channel each: `zeromem:memory:<verb>`,
 * arguments as the verb of core's Memory takes them.
 */
export const MEMORY_CHANNEL_PREFIX = 'zeromem:memory:';

/** The device store's verbs, all of them: the preload exposes these and nothing else. */
export const MEMORY_VERBS = ['info', 'listNamespaces', 'list', 'profile', 'get', 'recall', 'remember', 'update', 'forget', 'audit', 'exportJsonl', 'importJsonl', 'consolidate', 'addTurn', 'context'] as const;

export type MemoryVerb = (typeof MEMORY_VERBS)[number];

/** The channel of a device store verb. */
export function memoryChannel(verb: MemoryVerb): string {
  return `${MEMORY_CHANNEL_PREFIX}${verb}`;
}

export const IPC_EVENTS = {
  /** main -> renderer: `{ requestId, delta }` */
  chatDelta: 'zeromem:llm:delta',
} as const;

export type IpcChannel = (typeof IPC)[keyof typeof IPC];

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: SerializedAppError };

/** What the renderer may know about the LLM settings: never the key, only whether there is one. */
export interface LlmStatus {
  settings: LlmSettings | null;
  hasApiKey: boolean;
  /**
   * Where a key is kept. Electron: the OS keychain through safeStorage, or nowhere
   * (keychain unavailable). Web: the tab's sessionStorage, or localStorage when the user chose.
   */
  keyStorage: 'os-keychain' | 'unavailable' | 'browser-session' | 'browser-storage';
}

/** Where the device store is (the `info` verb): the renderer shows it in the header. */
export interface DeviceStoreInfo {
  name: string;
  directory: string;
  file: string;
}

export interface ChatDelta {
  requestId: string;
  delta: string;
}
