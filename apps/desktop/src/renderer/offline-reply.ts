/**
 * What an agent answers with no LLM configured: the memories its context recalled, plainly
 * labelled as an offline reply, so the app is useful (and honest) without a model.
 */
import type { BuiltContext, Namespace } from '@zeromem/core';
import type { AppMemory } from './app-memory.ts';

export const OFFLINE_LABEL = 'Offline reply (no LLM configured): this is what I recall, not a model’s answer.';

/**
 * What offline mode does, for the chat's notice: no model reads the words, so nothing is
 * inferred from them; lines the user writes as memory tools are carried out as they are.
 */
export const OFFLINE_HELP =
  'Offline, replies list the memories recalled for your message and each turn shows the exact prompt that would be sent. No model reads your words, so facts are not picked out of them: write a line “REMEMBER: <fact>” (or “NOTE:”, “FORGET:”) to change memory yourself. Offline replies are not sent to the LLM later.';

export async function offlineReply(memory: Pick<AppMemory, 'get'>, context: BuiltContext, namespaces: { profile: Namespace; long_term: Namespace; knowledge: Namespace }): Promise<string> {
  const lines: string[] = [];
  for (const item of context.report.included) {
    if (item.layer !== 'profile' && item.layer !== 'long_term' && item.layer !== 'knowledge') continue;
    const record = await memory.get(namespaces[item.layer], item.id, { rewarm: false });
    if (record) lines.push(`- ${record.content}`);
  }
  if (lines.length === 0) return `${OFFLINE_LABEL}\nI have no memories that relate to this yet. Seed the story or tell me a fact, and set an LLM endpoint in Settings for real answers.`;
  return `${OFFLINE_LABEL}\n${lines.join('\n')}`;
}
