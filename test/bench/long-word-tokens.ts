/**
 * Counting one very long word (issue 29 item 13): gpt-tokenizer's BPE on the whole run
 * (what the default tokenizer did) against the default tokenizer now (runs of more than
 * 1,000 non-space characters counted in windows). Base and branch take turns on fresh
 * random words (gpt-tokenizer caches pieces it has seen), three rounds, medians.
 *
 *   npx tsx test/bench/long-word-tokens.ts
 */
// core's own copy of gpt-tokenizer (the root does not depend on it).
import { encode } from '../../packages/core/node_modules/gpt-tokenizer/esm/encoding/o200k_base.js';
import { createTokenizer } from '../../packages/core/src/index.ts';

const tokenizer = await createTokenizer();
let seed = 20261206;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const word = (n: number) => Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)]).join('');
const time = (f: () => unknown) => {
  const started = performance.now();
  f();
  return performance.now() - started;
};
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

for (const n of [16_384, 65_536]) {
  const base: number[] = [];
  const branch: number[] = [];
  for (let round = 0; round < 3; round++) {
    base.push(time(() => encode(word(n), { disallowedSpecial: new Set() })));
    branch.push(time(() => tokenizer.count(word(n))));
  }
  console.log(`${n / 1024} KB word: whole run ${median(base).toFixed(0)} ms, windows ${median(branch).toFixed(0)} ms (x${(median(base) / median(branch)).toFixed(1)})`);
}
const mb: number[] = [];
for (let round = 0; round < 3; round++) mb.push(time(() => tokenizer.count(word(1 << 20))));
console.log(`1 MB word, windows: ${median(mb).toFixed(0)} ms (the whole run: minutes, not run)`);
