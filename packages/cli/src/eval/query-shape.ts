import type { ConversationTurn } from '@zeromem/core';

/** A transcript line: `<Speaker>: text` (MADial writes dialogues so far like this). */
const TRANSCRIPT_LINE = /^<([^>\n]{1,64})>:\s*(.*)$/;
/** A transcript line whose speaker tag is missing: a quoted utterance, or one wrapped in angle brackets (no colon). */
const UNTAGGED_LINE = /^(?:["“].*["”]|<([^\n]*)>)$/;

/**
 * What a query text is asked as. A transcript (two lines or more, the first
 * `<Speaker>: text`) becomes a conversation, so recall weighs the latest user turn most;
 * `<Assistant>` lines are the assistant, every other speaker the user. A later line whose
 * tag is missing, a quoted utterance or one wrapped in angle brackets, is the other party's
 * turn (MADial-en writes 21 of its 160 dialogues with some answers untagged; asked as one
 * long text they were judged by a single text's rules). Anything else stays plain text.
 * Reads only the query text.
 */
export function shapeQuery(text: string): string | ConversationTurn[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length < 2) return text;
  const turns: ConversationTurn[] = [];
  for (const line of lines) {
    const match = TRANSCRIPT_LINE.exec(line.trim());
    if (match) {
      const speaker = match[1]!.trim();
      turns.push({ role: /^assistant$/i.test(speaker) ? 'assistant' : 'user', content: unquote(match[2]!) });
      continue;
    }
    const untagged = turns.length ? UNTAGGED_LINE.exec(line.trim()) : null;
    if (!untagged) return text;
    const previous = turns[turns.length - 1]!.role;
    turns.push({ role: previous === 'user' ? 'assistant' : 'user', content: untagged[1] !== undefined ? untagged[1].trim() : unquote(line) });
  }
  return turns;
}

function unquote(text: string): string {
  const trimmed = text.trim();
  return trimmed.length >= 2 && /^["“]/.test(trimmed) && /["”]$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
}
