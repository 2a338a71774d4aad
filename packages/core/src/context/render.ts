import type { MemoryLayer } from './options.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import type { ChatMessage } from '../public/tokenizer.ts';

/** Section headers of the recalled layers and the conversation. */
export const SECTION_HEADERS: Readonly<Record<MemoryLayer, string>> = Object.freeze({
  profile: '## Profile',
  long_term: '## Long-term memory',
  knowledge: '## Knowledge',
  session: '## Conversation',
});

/** An item ready to render: a recalled memory, or a session turn with its role. */
export interface RenderItem {
  content: string;
  role: ChatMessage['role'];
}

/** The line an item takes in the text form. */
export function itemLine(layer: MemoryLayer, item: RenderItem): string {
  return layer === 'session' ? `${item.role}: ${item.content}` : `- ${item.content}`;
}

/** A layer's section: its header and one line per item; empty without items. */
export function renderSection(layer: MemoryLayer, items: readonly RenderItem[]): string {
  if (items.length === 0) return '';
  return [SECTION_HEADERS[layer], ...items.map((item) => itemLine(layer, item))].join('\n');
}

/** The parts of a context, in the order they are rendered. */
export interface ContextParts {
  system: readonly string[];
  /** The current keyed facts, by key. */
  profile: readonly RenderItem[];
  long_term: readonly RenderItem[];
  knowledge: readonly RenderItem[];
  /** Oldest first. */
  session: readonly RenderItem[];
}

/** The system message: instructions, the profile, then the recalled memories. */
function systemContent(parts: ContextParts): string {
  return [parts.system.join('\n'), renderSection('profile', parts.profile), renderSection('long_term', parts.long_term), renderSection('knowledge', parts.knowledge)]
    .filter(Boolean)
    .join('\n\n');
}

/** The line content of a profile fact: `key: content (since YYYY-MM-DD)`, the date in UTC. */
export function profileLine(entry: { key: string; content: string; validFrom: number }): string {
  return `${entry.key}: ${entry.content} (since ${new Date(entry.validFrom).toISOString().slice(0, 10)})`;
}

/** The text form: instructions, profile, long-term memory, knowledge, then the conversation. */
export function renderText(parts: ContextParts): string {
  return [systemContent(parts), renderSection('session', parts.session)].filter(Boolean).join('\n\n');
}

/** The chat form: one system message (when there is anything for it), then each turn as its own message. */
export function renderMessages(parts: ContextParts): ChatMessage[] {
  const system = systemContent(parts);
  const turns = parts.session.map((item) => ({ role: item.role, content: item.content }));
  return system ? [{ role: 'system', content: system }, ...turns] : turns;
}

/** The chat role of a stored session turn: its source (`memory` reads as the user's). */
export function turnRole(source: MemoryRecord['source']): ChatMessage['role'] {
  return source === 'memory' ? 'user' : source;
}
