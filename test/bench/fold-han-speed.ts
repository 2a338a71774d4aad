/**
 * What folding Traditional Chinese to Simplified costs the BM25 tokenizer: `tokenize`
 * (which folds) against the same text folded beforehand (so the fold is skipped inside),
 * on MADial-zh's memories and queries and on English text (no Han: the fold is one
 * regular-expression test). Run from the repository root: `npx tsx test/bench/fold-han-speed.ts [../shared/bench-data/madial-zh]`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { foldHan } from '../../packages/core/src/search/fold-han.ts';
import { tokenize } from '../../packages/core/src/search/tokenize.ts';

const dir = process.argv[2] ?? '../shared/bench-data/madial-zh';
const lines = (file: string) => readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, string>);
const chinese = [...lines('memories.jsonl').map((m) => m.text!), ...lines('queries.jsonl').map((q) => q.query!)];
const english = chinese.map((_, i) => `I bought a new kitchen gadget last week and the charging port is loose, item ${i}`);

function msPerText(texts: string[], run: (text: string) => unknown, rounds = 30): number {
  for (const text of texts) run(text); // warm up (the first fold builds OpenCC's tables)
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (const text of texts) run(text);
    times.push((performance.now() - start) / texts.length);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const folded = chinese.map(foldHan);
const rows = [
  ['Chinese (MADial-zh memories + queries, mean ' + Math.round(chinese.join('').length / chinese.length) + ' chars)', msPerText(chinese, tokenize), msPerText(folded, tokenize), msPerText(chinese, foldHan)],
  ['English (~85 chars)', msPerText(english, tokenize), msPerText(english, tokenize), msPerText(english, foldHan)],
] as const;
console.log('| text | tokenize ms/text | tokenize on pre-folded text ms/text | foldHan alone ms/text |');
console.log('|---|---|---|---|');
for (const [name, a, b, c] of rows) console.log(`| ${name} | ${a.toFixed(4)} | ${b.toFixed(4)} | ${c.toFixed(4)} |`);
