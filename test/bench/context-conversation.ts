import { writeFile } from 'node:fs/promises';
import { openMemory, type Embedder } from '@zeromem/core';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { parseDataTime } from '../../packages/cli/src/eval/data-time.ts';
import { readJsonl } from '../../packages/cli/src/eval/read-jsonl.ts';

/** One user turn of the replayed conversation: what the context and the full history cost then. */
export interface TurnPoint {
  turn: number;
  context: number;
  fullHistory: number;
}

interface Line {
  ns: string;
  text: string;
  speaker: string;
  session: string;
  ts: string | null;
}

/** Writes the lines of `memoriesFile` whose namespace is in `keep` to `out` (plain JSONL); returns `out`. */
export async function filterMemories(memoriesFile: string, keep: ReadonlySet<string>, out: string): Promise<string> {
  const lines: string[] = [];
  for await (const { value } of readJsonl(memoriesFile)) if (keep.has((value as Line).ns)) lines.push(JSON.stringify(value));
  await writeFile(out, lines.join('\n') + '\n');
  return out;
}

/**
 * Lives one haystack as an agent would: each data session is a zeromem session, every
 * turn added with `addTurn` (durable, so `end()` keeps it as long-term memory), and
 * before each user turn is answered, the context is built with that turn as the query.
 */
export async function replayConversation(memoriesFile: string, ns: string, budget: number, embedder: Embedder | undefined): Promise<TurnPoint[]> {
  const lines: Line[] = [];
  for await (const { value } of readJsonl(memoriesFile)) if ((value as Line).ns === ns) lines.push(value as Line);
  let now = 0;
  const memory = await openMemory({ name: 'context-plot', indexedDB: new IDBFactory(), IDBKeyRange, embedder, clock: { now: () => now } });
  const namespace = { userId: ns };
  const points: TurnPoint[] = [];
  try {
    let session: ReturnType<typeof memory.session> | undefined;
    for (const line of lines) {
      // The data's times, kept increasing so every turn is newer than the last.
      now = Math.max(now + 1000, parseDataTime(line.ts) ?? 0);
      if (session?.id !== line.session) {
        await session?.end();
        session = memory.session({ namespace, id: line.session, ttl: '3650d', context: { budget, trackAccess: false } });
      }
      await session.addTurn(line.speaker === 'assistant' ? 'assistant' : 'user', line.text, { durable: true });
      if (line.speaker !== 'user') continue;
      const { report } = await session.context(line.text);
      points.push({ turn: points.length + 1, context: report.tokens, fullHistory: report.fullHistoryTokens! });
    }
    await session?.end();
  } finally {
    await memory.close();
  }
  return points;
}
