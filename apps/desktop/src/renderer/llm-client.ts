/**
 * The renderer's way to the LLM, the same interface on both platforms:
 * - Electron: through the preload (`window.zeromemDesktop`); the main process holds the
 *   key in the OS keychain and makes the request.
 * - Web: the page calls the endpoint itself; the key is kept in sessionStorage (gone with
 *   the tab) unless the user ticks "remember on this device" (localStorage).
 */
import type { DesktopApi } from '../preload/desktop-api.ts';
import { AppError } from '@zeromem/app-shared/app-error';
import type { LlmStatus } from '../shared/ipc-contract.ts';
import { firstIssue, llmSettingsSchema, saveLlmSettingsSchema, type SaveLlmSettings } from '@zeromem/app-shared/llm-settings';
import { streamChat } from '@zeromem/app-shared/openai-stream';

declare global {
  interface Window {
    zeromemDesktop?: DesktopApi;
  }
}

export interface LlmClient {
  readonly platform: 'electron' | 'web';
  status(): Promise<LlmStatus>;
  save(input: SaveLlmSettings & { rememberKey?: boolean }): Promise<LlmStatus>;
  /** Streams a reply. @throws AppError LLM_NOT_CONFIGURED, LLM_UNREACHABLE, LLM_FAILED, ABORTED */
  chat(messages: Array<{ role: 'system' | 'user' | 'assistant' | 'tool'; content: string }>, onDelta: (delta: string) => void, signal?: AbortSignal): Promise<string>;
}

const SETTINGS_KEY = 'zeromem.llm.settings';
const KEY_KEY = 'zeromem.llm.apiKey';

function webClient(): LlmClient {
  const read = () => {
    try {
      const parsed = llmSettingsSchema.safeParse(JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? 'null'));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  };
  const key = () => sessionStorage.getItem(KEY_KEY) ?? localStorage.getItem(KEY_KEY);
  const status = async (): Promise<LlmStatus> => ({ settings: read(), hasApiKey: key() !== null, keyStorage: localStorage.getItem(KEY_KEY) !== null ? 'browser-storage' : 'browser-session' });
  return {
    platform: 'web',
    status,
    async save(input) {
      const { rememberKey, ...rest } = input;
      const parsed = saveLlmSettingsSchema.safeParse(rest);
      if (!parsed.success) throw new AppError('INVALID_INPUT', firstIssue(parsed.error));
      localStorage.setItem(SETTINGS_KEY, JSON.stringify({ baseUrl: parsed.data.baseUrl, model: parsed.data.model }));
      if (parsed.data.apiKey === null || parsed.data.apiKey === '') {
        sessionStorage.removeItem(KEY_KEY);
        localStorage.removeItem(KEY_KEY);
      } else if (typeof parsed.data.apiKey === 'string') {
        sessionStorage.setItem(KEY_KEY, parsed.data.apiKey);
        if (rememberKey) localStorage.setItem(KEY_KEY, parsed.data.apiKey);
        else localStorage.removeItem(KEY_KEY);
      }
      return status();
    },
    async chat(messages, onDelta, signal) {
      const settings = read();
      if (!settings) throw new AppError('LLM_NOT_CONFIGURED', 'No LLM endpoint is set.');
      return streamChat({ settings, apiKey: key(), messages, onDelta, signal });
    },
  };
}

function electronClient(api: DesktopApi): LlmClient {
  let counter = 0;
  return {
    platform: 'electron',
    status: () => api.getLlmSettings(),
    save: ({ rememberKey: _ignored, ...input }) => api.saveLlmSettings(input),
    async chat(messages, onDelta, signal) {
      const requestId = `r${Date.now().toString(36)}${(counter++).toString(36)}`;
      const cancel = () => void api.cancelChat(requestId);
      signal?.addEventListener('abort', cancel, { once: true });
      try {
        return await api.chat({ requestId, messages }, onDelta);
      } finally {
        signal?.removeEventListener('abort', cancel);
      }
    },
  };
}

/** The client for where the page runs. */
export function createLlmClient(): LlmClient {
  return window.zeromemDesktop?.platform === 'electron' ? electronClient(window.zeromemDesktop) : webClient();
}
