/**
 * What the text index holds for a bench-data set: postings (distinct tokens per memory,
 * summed), vocabulary size and tokenize time per memory, for the tokenizer of this
 * checkout. Compare two commits by running the same file in a checkout of each.
 *
 *   npx tsx --conditions=development test/bench/token-cost.ts ../shared/bench-data/longmemeval-s-sample/memories.jsonl.gz
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { tokenize } from '../../packages/core/src/search/tokenize.ts';

const file = process.argv[2]!;
const input = file.endsWith('.gz') ? createReadStream(file).pipe(createGunzip()) : createReadStream(file);
const texts: string[] = [];
for await (const line of createInterface({ input })) if (line.trim()) texts.push((JSON.parse(line) as { text: string }).text);

let postings = 0;
let tokens = 0;
const vocabulary = new Set<string>();
const started = performance.now();
for (const text of texts) {
  const list = tokenize(text);
  tokens += list.length;
  const distinct = new Set(list);
  postings += distinct.size;
  for (const token of distinct) vocabulary.add(token);
}
const ms = performance.now() - started;
console.log(JSON.stringify({ file, memories: texts.length, tokens, postings, vocabulary: vocabulary.size, tokenizeMsPerMemory: +(ms / texts.length).toFixed(4) }));
