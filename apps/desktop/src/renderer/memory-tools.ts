/**
 * The agents' memory tools, as lines of their reply: `REMEMBER: <fact>` (the user's
 * namespace, written about "the user": "I prefer tea" is stored as "The user prefers tea", the line's
 * own words kept in `metadata.said`), `NOTE: <note>` (the agent's own), `FORGET: <words>` (the best matching memory
 * of either). Plain lines work with every OpenAI-compatible server and model, streamed or
 * not, which native tool calls do not. Each call is carried out and shown in the chat.
 */
import type { Namespace } from '@zeromem/core';
import { aboutTheUser } from '@zeromem/app-shared/about-the-user';
import type { AppMemory } from './app-memory.ts';

export type ToolName = 'remember' | 'note' | 'forget';

export interface ToolCall {
  tool: ToolName;
  argument: string;
}

export interface ToolOutcome extends ToolCall {
  ok: boolean;
  /** What happened, for the chat ("Remembered …", "Forgot …", "Nothing matched …"). */
  summary: string;
  /** The memory written or forgotten. */
  id?: string;
}

const LINE = /^\s*(?:[-*]\s*)?(REMEMBER|NOTE|FORGET)\s*:\s*(\S.*?)\s*$/i;

/** The tool calls in a reply, in order (at most 10; empty arguments are ignored). */
export function parseToolCalls(reply: string): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const line of reply.split('\n')) {
    const match = LINE.exec(line);
    if (!match || !match[2]) continue;
    calls.push({ tool: match[1]!.toLowerCase() as ToolName, argument: match[2].slice(0, 2000) });
    if (calls.length === 10) break;
  }
  return calls;
}

/** The reply without its tool lines (what the user reads as the agent's answer). */
export function withoutToolLines(reply: string): string {
  return reply
    .split('\n')
    .filter((line) => !LINE.test(line))
    .join('\n')
    .trim();
}

export interface ToolTarget {
  memory: AppMemory;
  user: Namespace;
  agent: Namespace;
  actor: string;
}

/** Carries out the calls one by one; a failing call is reported, the others still run. */
export async function runToolCalls(calls: ToolCall[], target: ToolTarget): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = [];
  for (const call of calls) {
    try {
      outcomes.push(await runOne(call, target));
    } catch (err) {
      outcomes.push({ ...call, ok: false, summary: `Failed: ${(err as Error).message}` });
    }
  }
  return outcomes;
}

async function runOne(call: ToolCall, { memory, user, agent, actor }: ToolTarget): Promise<ToolOutcome> {
  if (call.tool === 'remember' || call.tool === 'note') {
    const aboutUser = call.tool === 'remember';
    const said = call.argument;
    const content = aboutUser ? aboutTheUser(said) : said;
    const result = await memory.remember(
      {
        namespace: aboutUser ? user : agent,
        content,
        ...(content === said ? {} : { metadata: { said } }),
        source: 'assistant',
        layer: aboutUser ? 'long_term' : 'knowledge',
        tags: ['agent-tool'],
      },
      { actor },
    );
    const where = aboutUser ? "the user's memory" : 'its own notes';
    return { ...call, ok: true, id: result.id, summary: result.deduplicated ? `Already in ${where}: ${content}` : `Remembered in ${where}: ${content}` };
  }
  // forget: the best lexical match in the user's namespace or the agent's, if it shares enough words.
  const candidates = [];
  for (const namespace of [user, agent]) {
    const { hits } = await memory.recall(namespace, call.argument, { k: 1, trackAccess: false, layers: ['long_term', 'knowledge'] });
    if (hits[0]) candidates.push({ namespace, hit: hits[0] });
  }
  candidates.sort((a, b) => b.hit.score - a.hit.score);
  const best = candidates[0];
  if (!best || best.hit.explain.textScore < 0.5) return { ...call, ok: false, summary: `Nothing to forget matched "${call.argument}".` };
  await memory.forget(best.namespace, best.hit.id, { actor });
  return { ...call, ok: true, id: best.hit.id, summary: `Forgot: ${best.hit.record.content}` };
}
