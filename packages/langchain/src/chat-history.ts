import { ZeromemError, type Duration, type Memory, type MemoryRecord, type Namespace, type Session } from '@zeromem/core';
import { BaseListChatMessageHistory } from '@langchain/core/chat_history';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';

/** Options of {@link ZeromemChatMessageHistory}. */
export interface ZeromemChatMessageHistoryInput {
  /** The open memory (`openMemory()` of `@zeromem/core`). */
  memory: Memory;
  /** The namespace the conversation is stored in. */
  namespace: Namespace;
  /** The conversation id (`memory.session({ id })`): the same id reads the same history. */
  sessionId: string;
  /** How long a message is kept, e.g. `"7d"`. Default `"1d"` (the session's default). */
  ttl?: Duration;
}

type Role = 'user' | 'assistant' | 'system' | 'tool';
const ROLE_OF: Record<string, Role> = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool', generic: 'user', developer: 'system' };

/**
 * A LangChain chat message history backed by a zeromem session (`memory.session()`):
 * each message is a session-layer memory with the session's TTL, so the conversation is
 * also what `buildContext` puts into the session layer, and recall finds it.
 * It keeps each message's text and role: tool-call structure is not stored (a tool
 * message comes back as a `ToolMessage` with `tool_call_id` `zeromem:<id>`), and a message
 * said again in the same conversation is stored once, at its latest place (session rules).
 *
 * @example
 * import { openMemory } from '@zeromem/core';
 * import { ZeromemChatMessageHistory } from '@zeromem/langchain';
 *
 * const memory = await openMemory({ name: 'my-agent' });
 * const history = new ZeromemChatMessageHistory({ memory, namespace: { userId: 'alice' }, sessionId: 'chat-1' });
 * await history.addUserMessage('Hi, I am Alice');
 * console.log((await history.getMessages()).map((m) => m.text)); // [ 'Hi, I am Alice' ]
 * await memory.close();
 */
export class ZeromemChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ['zeromem', 'chat_history'];
  readonly #memory: Memory;
  readonly #session: Session;

  constructor(fields: ZeromemChatMessageHistoryInput) {
    super(fields);
    if (typeof fields?.memory?.session !== 'function') throw new ZeromemError('INVALID_INPUT', 'ZeromemChatMessageHistory needs { memory, namespace, sessionId }: memory is what openMemory() returned.');
    this.#memory = fields.memory;
    this.#session = fields.memory.session({ namespace: fields.namespace, id: fields.sessionId, ...(fields.ttl !== undefined ? { ttl: fields.ttl } : {}) });
  }

  /** The conversation's live messages, oldest first. */
  async getMessages(): Promise<BaseMessage[]> {
    return (await this.#turns()).map(toMessage);
  }

  async addMessage(message: BaseMessage): Promise<void> {
    const role = ROLE_OF[message.getType()];
    if (!role) throw new ZeromemError('INVALID_INPUT', `Cannot store a "${message.getType()}" message: use a human, ai, system or tool message.`);
    const text = message.text;
    if (!text.trim()) return; // e.g. an AI message that only calls tools: nothing to remember
    await this.#session.addTurn(role, text);
  }

  /** Forgets every message of this conversation. */
  override async clear(): Promise<void> {
    await this.#memory.forgetWhere(this.#session.namespace, { layer: 'session', metadata: { session: this.#session.id } });
  }

  async #turns(): Promise<MemoryRecord[]> {
    const turns: MemoryRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#memory.list(this.#session.namespace, { layer: 'session', metadata: { session: this.#session.id }, orderBy: 'updatedAt', order: 'asc', limit: 1000, ...(cursor ? { cursor } : {}) });
      turns.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return turns;
  }
}

function toMessage(record: MemoryRecord): BaseMessage {
  const fields = { content: record.content, id: record.id };
  switch (record.source) {
    case 'assistant':
      return new AIMessage(fields);
    case 'system':
      return new SystemMessage(fields);
    case 'tool':
      return new ToolMessage({ ...fields, tool_call_id: `zeromem:${record.id}` });
    default:
      return new HumanMessage(fields);
  }
}
