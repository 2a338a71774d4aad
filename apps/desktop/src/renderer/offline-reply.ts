/**
 * What an agent answers with no LLM configured: the memories its context recalled, plainly
 * labelled as an offline reply, so the app is useful (and honest) without a model.
 */
import type { BuiltContext, Memory, Namespace } from '@zeromem/core';

export const OFFLINE_LABEL = 'Offline reply (no LLM configured): this is what I recall, not a model’s answer.';

export async function offlineReply(memory: Memory, context: BuiltContext, namespaces: { long_term: Namespace; knowledge: Namespace }): Promise<string> {
  const lines: string[] = [];
  for (const item of context.report.included) {
    if (item.layer !== 'long_term' && item.layer !== 'knowledge') continue;
    const record = await memory.get(namespaces[item.layer], item.id, { rewarm: false });
    if (record) lines.push(`- ${record.content}`);
  }
  if (lines.length === 0) return `${OFFLINE_LABEL}\nI have no memories that relate to this yet. Seed the story or tell me a fact, and set an LLM endpoint in Settings for real answers.`;
  return `${OFFLINE_LABEL}\n${lines.join('\n')}`;
}
