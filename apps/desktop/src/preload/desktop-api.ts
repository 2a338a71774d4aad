/**
 * The API the preload exposes to the renderer as `window.zeromemDesktop`: the LLM's four
 * calls and the device store's verbs, no generic `invoke`, no Node. Results come back as IpcResults and failures are rethrown as
 * AppErrors with their code.
 */
import { AppError, deserializeError } from '@zeromem/app-shared/app-error';
import { IPC, IPC_EVENTS, MEMORY_VERBS, memoryChannel, type ChatDelta, type IpcResult, type LlmStatus, type MemoryVerb } from '../shared/ipc-contract.ts';
import type { SaveLlmSettings } from '@zeromem/app-shared/llm-settings';
import type { ChatRequest } from '../shared/chat-request.ts';

/** The part of Electron's `ipcRenderer` used here. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
}

export interface DesktopApi {
  readonly platform: 'electron';
  getLlmSettings(): Promise<LlmStatus>;
  /** Saves the endpoint and model; `apiKey` goes to the OS keychain (`null` deletes it, absent keeps it). */
  saveLlmSettings(input: SaveLlmSettings): Promise<LlmStatus>;
  /** Streams a reply: `onDelta` gets each piece; resolves with the whole reply. */
  chat(request: ChatRequest, onDelta: (delta: string) => void): Promise<string>;
  cancelChat(requestId: string): Promise<boolean>;
  /**
   * The device store's verbs (see main/device-store.ts), each taking the arguments of core's
   * Memory verb of that name. When the main process could not open the store, every verb
   * fails with its error (STORAGE_FAILED, e.g. another process holds the file).
   */
  memory: DeviceMemoryApi;
}

/** One function per device store verb; the main process validates the arguments. */
export type DeviceMemoryApi = { readonly [V in MemoryVerb]: (...args: unknown[]) => Promise<unknown> };

function unwrap<T>(result: unknown): T {
  const r = result as IpcResult<T> | null;
  if (r && r.ok === true) return r.value;
  throw deserializeError(r && r.ok === false ? r.error : null);
}

function deviceMemoryApi(ipc: IpcRendererLike): DeviceMemoryApi {
  const api = Object.fromEntries(MEMORY_VERBS.map((verb) => [verb, async (...args: unknown[]) => unwrap(await ipc.invoke(memoryChannel(verb), ...args))]));
  return Object.freeze(api) as DeviceMemoryApi;
}

export function createDesktopApi(ipc: IpcRendererLike): DesktopApi {
  return Object.freeze({
    memory: deviceMemoryApi(ipc),
    platform: 'electron' as const,
    async getLlmSettings() {
      return unwrap<LlmStatus>(await ipc.invoke(IPC.getLlmSettings));
    },
    async saveLlmSettings(input: SaveLlmSettings) {
      return unwrap<LlmStatus>(await ipc.invoke(IPC.saveLlmSettings, input));
    },
    async chat(request: ChatRequest, onDelta: (delta: string) => void) {
      if (typeof onDelta !== 'function') throw new AppError('INVALID_INPUT', 'chat(request, onDelta) needs a function onDelta.');
      const requestId = (request as Partial<ChatRequest> | null)?.requestId;
      const listener = (_event: unknown, payload: unknown) => {
        const delta = payload as ChatDelta | null;
        if (delta && delta.requestId === requestId && typeof delta.delta === 'string') onDelta(delta.delta);
      };
      ipc.on(IPC_EVENTS.chatDelta, listener);
      try {
        return unwrap<string>(await ipc.invoke(IPC.chat, request));
      } finally {
        ipc.removeListener(IPC_EVENTS.chatDelta, listener);
      }
    },
    async cancelChat(requestId: string) {
      return unwrap<boolean>(await ipc.invoke(IPC.cancelChat, requestId));
    },
  });
}
