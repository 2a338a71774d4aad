/**
 * One turn of an on-device agent: store the user's words, let `session.context()` build the
 * prompt within the agent's budget (its conversation, the user's facts, its own notes),
 * send it to the LLM (streamed) or answer offline from the recalled memories, carry out
 * the memory tools in the reply (offline: the ones the user wrote), and store the reply
 * (an offline one is not stored: the LLM never reads it as the agent's words).
 */
import type { BuiltContext, ChatMessage } from '@zeromem/core';
import type { AppMemory, AppSession } from './app-memory.ts';
import { isAppError } from '@zeromem/app-shared/app-error';
import type { LlmClient } from './llm-client.ts';
import { parseToolCalls, runToolCalls, withoutToolLines, type ToolOutcome } from './memory-tools.ts';
import { offlineReply } from './offline-reply.ts';
import { agentNamespace, userNamespace, type AgentDefinition } from './story.ts';

/** Everything about one turn the UI shows (chat, prompt, token view). */
export interface TurnRecord {
  /** 1, 2, ... across the app's run. */
  seq: number;
  agent: AgentDefinition['id'];
  at: number;
  user: string;
  /** The reply as the user reads it (tool lines taken out). */
  reply: string;
  /** True when no LLM was asked (none configured). */
  offline: boolean;
  /** The exact messages sent (or, offline, that would have been sent). */
  prompt: ChatMessage[];
  context: BuiltContext;
  tools: ToolOutcome[];
  /** Set when the LLM failed; the reply is then the offline one. */
  error?: string;
}

/** The session of an agent's conversation: budget, instructions and layers. */
export function openAgentSession(memory: AppMemory, agent: AgentDefinition, conversationId: string, userId?: string): AppSession {
  return memory.session({
    namespace: agentNamespace(agent.id, userId),
    id: conversationId,
    ttl: '7d',
    context: {
      budget: agent.budget,
      system: agent.instructions,
      layers: {
        profile: { namespace: userNamespace(userId) },
        session: { maxItems: 12 },
        long_term: { namespace: userNamespace(userId), maxItems: 8 },
        knowledge: { namespace: agentNamespace(agent.id, userId), maxItems: 4 },
      },
    },
  });
}

export interface TurnInput {
  memory: AppMemory;
  session: AppSession;
  agent: AgentDefinition;
  llm: LlmClient;
  /** False: answer offline even if an endpoint is set. */
  online: boolean;
  text: string;
  seq: number;
  userId?: string;
  onDelta?: (text: string) => void;
  /** Aborting stops the stream; the turn then gets the offline reply and says it was cancelled. */
  signal?: AbortSignal;
}

export async function runTurn(input: TurnInput): Promise<TurnRecord> {
  const { memory, session, agent, llm, text } = input;
  const user = userNamespace(input.userId);
  const own = agentNamespace(agent.id, input.userId);
  await session.addTurn('user', text);
  const context = await session.context(text);
  const prompt = context.messages;
  let raw: string;
  let offline = !input.online;
  let error: string | undefined;
  if (!offline) {
    try {
      raw = await llm.chat(prompt, (delta) => input.onDelta?.(delta), input.signal);
    } catch (err) {
      if (!isAppError(err, 'LLM_NOT_CONFIGURED')) error = err instanceof Error ? err.message : String(err);
      offline = true;
      raw = '';
    }
  } else raw = '';
  if (offline) raw = await offlineReply(memory, context, { profile: user, long_term: user, knowledge: own });
  // Offline, no model picks facts out of the user's words: the tool lines the user wrote are the explicit ones.
  const tools = offline
    ? await runToolCalls(parseToolCalls(text), { memory, user, agent: own, actor: 'desktop-user' })
    : await runToolCalls(parseToolCalls(raw), { memory, user, agent: own, actor: `${agent.id}-agent` });
  const reply = offline ? raw : withoutToolLines(raw) || '(memory tools only)';
  // An offline reply is a list of recalled memories, not something the agent said: keep it out of the history the LLM reads later.
  if (!offline) await session.addTurn('assistant', reply);
  return { seq: input.seq, agent: agent.id, at: Date.now(), user: text, reply, offline, prompt, context, tools, ...(error ? { error } : {}) };
}
