/**
 * The main process's IPC handlers. Each validates its arguments (zod) before doing
 * anything and answers an IpcResult: bad input is `{ ok: false, error: { code:
 * 'INVALID_INPUT' } }`, never a throw, so the code reaches the renderer intact. Calls from
 * any frame that is not the app's own page are refused.
 */
import { z } from 'zod';
import { AppError, serializeError } from '@zeromem/app-shared/app-error';
import { IPC, IPC_EVENTS, memoryChannel, type ChatDelta, type MemoryVerb, type IpcChannel, type IpcResult, type LlmStatus } from '../shared/ipc-contract.ts';
import { firstIssue, saveLlmSettingsSchema } from '@zeromem/app-shared/llm-settings';
import { chatRequestSchema } from '../shared/chat-request.ts';
import { streamChat } from '@zeromem/app-shared/openai-stream';
import { isAppUrl } from './app-protocol.ts';
import { DEVICE_STORE_VERBS, type DeviceStore, type Verb } from './device-store.ts';
import type { LlmSettingsStore } from './llm-settings-store.ts';

/** Who called: the frame's URL and a way to send it the stream's deltas. */
export interface IpcCaller {
  frameUrl: string | undefined;
  send(channel: string, payload: ChatDelta): void;
}

export type IpcHandler = (caller: IpcCaller, args: unknown[]) => Promise<IpcResult<unknown>>;

export interface IpcDeps {
  store: LlmSettingsStore;
  /** The device store: its verbs get a channel each; given as the error it failed to open with, each verb fails with it. */
  deviceStore?: DeviceStore | Error;
  /** Default: the global fetch (Electron's main process has one). */
  fetch?: typeof fetch;
}

function parse<T>(schema: z.ZodType<T>, args: unknown[], what: string): T {
  if (args.length !== 1) throw new AppError('INVALID_INPUT', `${what} takes exactly one argument, got ${args.length}.`);
  const parsed = schema.safeParse(args[0]);
  if (!parsed.success) throw new AppError('INVALID_INPUT', `Invalid ${what}: ${firstIssue(parsed.error)}`);
  return parsed.data;
}

function noArgs(args: unknown[], what: string): void {
  if (args.length !== 0) throw new AppError('INVALID_INPUT', `${what} takes no arguments, got ${args.length}.`);
}

const requestIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -');

/** The handlers by channel: the LLM's four, and the device store's verbs when there is one. */
export function createIpcHandlers(deps: IpcDeps): Record<IpcChannel, IpcHandler> & Record<string, IpcHandler> {
  const running = new Map<string, AbortController>();
  const guard =
    <T>(fn: (caller: IpcCaller, args: unknown[]) => Promise<T>): IpcHandler =>
    async (caller, args) => {
      try {
        if (!caller.frameUrl || !isAppUrl(caller.frameUrl)) throw new AppError('INVALID_INPUT', 'IPC is only answered for the app’s own page.');
        return { ok: true, value: await fn(caller, args) };
      } catch (err) {
        return { ok: false, error: serializeError(err) };
      }
    };

  const memoryHandlers: Record<string, IpcHandler> = {};
  const deviceStore = deps.deviceStore;
  if (deviceStore) {
    for (const [name, verb] of Object.entries(DEVICE_STORE_VERBS) as Array<[MemoryVerb, Verb]>) {
      memoryHandlers[memoryChannel(name)] = guard(async (_caller, args) => {
        const parsed = verb.args.safeParse(args);
        if (!parsed.success) throw new AppError('INVALID_INPUT', `Invalid arguments of ${name}: ${firstIssue(parsed.error)}`);
        if (deviceStore instanceof Error) throw deviceStore;
        return verb.run(deviceStore, parsed.data);
      });
    }
  }

  return {
    ...memoryHandlers,
    [IPC.getLlmSettings]: guard(async (_caller, args): Promise<LlmStatus> => {
      noArgs(args, 'getLlmSettings');
      return deps.store.status();
    }),
    [IPC.saveLlmSettings]: guard(async (_caller, args): Promise<LlmStatus> => deps.store.save(parse(saveLlmSettingsSchema, args, 'LLM settings'))),
    [IPC.chat]: guard(async (caller, args): Promise<string> => {
      const request = parse(chatRequestSchema, args, 'chat request');
      if (running.has(request.requestId)) throw new AppError('INVALID_INPUT', `A chat request ${request.requestId} is already running.`);
      const settings = await deps.store.settings();
      if (!settings) throw new AppError('LLM_NOT_CONFIGURED', 'No LLM endpoint is set. Open Settings and enter an OpenAI-compatible base URL and model.');
      const controller = new AbortController();
      running.set(request.requestId, controller);
      try {
        return await streamChat({
          settings,
          apiKey: await deps.store.apiKey(),
          messages: request.messages,
          temperature: request.temperature,
          signal: controller.signal,
          ...(deps.fetch ? { fetch: deps.fetch } : {}),
          onDelta: (delta) => caller.send(IPC_EVENTS.chatDelta, { requestId: request.requestId, delta }),
        });
      } finally {
        running.delete(request.requestId);
      }
    }),
    [IPC.cancelChat]: guard(async (_caller, args): Promise<boolean> => {
      const requestId = parse(requestIdSchema, args, 'request id');
      const controller = running.get(requestId);
      controller?.abort();
      return controller !== undefined;
    }),
  };
}
