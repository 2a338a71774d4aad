import type { MemoryRecord } from '../public/memory-record.ts';
import { foldHan } from '../search/fold-han.ts';
import { questionFocus } from './question-focus.ts';
import type { RankingWeights } from '../public/ranking.ts';
import { timeCloseness, timeWindows } from './time-expressions.ts';
import type { QuerySignals, TimeWindow } from '../public/query-signals.ts';

/** "I", "my", "me" ... and 我: the user speaks of themself. */
const FIRST_PERSON = /(?:^|[^\p{L}\p{N}])(?:i|i['’]m|i['’]ve|i['’]d|i['’]ll|me|my|mine|myself)(?=$|[^\p{L}\p{N}])|我/iu;

/** The factors a memory's score gets from the query's signals; 1 where a signal does not fire. */
export interface SignalFactors {
  speaker: number;
  time: number;
  focus: number;
}

/** Characters read from the end of the query: a question is short, and the time parser takes ~1.5 ms per 1,000 characters. */
const READ_CHARS = 1000;

/** Reads the signals of a query text at `now` (its last 1,000 characters); asynchronous because the time parser loads on first need. */
export async function readQuerySignals(text: string, now: number): Promise<QuerySignals> {
  const tail = text.length > READ_CHARS ? text.slice(-READ_CHARS) : text;
  return { firstPerson: FIRST_PERSON.test(tail), timeWindows: await timeWindows(tail, now), focus: questionFocus(tail) };
}

/**
 * A memory's signal factors: `1 + weights.speaker` for the user's own words when the
 * query speaks in the first person; `1 + weights.time × closeness` to a named time
 * window; `1 + weights.focus × share of the focus words the memory contains`.
 */
export function signalFactors(record: MemoryRecord, signals: QuerySignals, now: number, weights: RankingWeights): SignalFactors {
  const speaker = signals.firstPerson && record.source === 'user' ? 1 + weights.speaker : 1;
  const time = signals.timeWindows.length ? 1 + weights.time * timeCloseness(record.createdAt, signals.timeWindows, now) : 1;
  let focus = 1;
  if (signals.focus.length) {
    const content = foldHan(record.content.normalize('NFKC').toLowerCase()); // focus words are Simplified
    const found = signals.focus.filter((word) => containsWord(content, word)).length;
    focus = 1 + (weights.focus * found) / signals.focus.length;
  }
  return { speaker, time, focus };
}

/** Whole-word containment for Latin-script words, substring for Han (no spaces between words). */
function containsWord(content: string, word: string): boolean {
  if (/\p{Script=Han}/u.test(word)) return content.includes(word);
  let at = content.indexOf(word);
  while (at >= 0) {
    const before = at === 0 ? '' : content[at - 1]!;
    const after = content[at + word.length] ?? '';
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
    at = content.indexOf(word, at + 1);
  }
  return false;
}
