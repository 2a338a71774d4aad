/**
 * Claude's memory tool on a namespace of 1,000 files (issue 31 aim: each command <= 5 ms
 * p50 in Node): the store on disk (SQLite), 1,000 files of ~400 bytes in 20 directories,
 * then each command timed on files it has not touched before (views and edits alternate
 * over the files), `--rounds` rounds on fresh stores, the median of each round's p50.
 * Beside them, the store's own keyed write (`memory.remember` with a key), measured in the
 * same rounds: what every editing command pays at least (a durable SQLite commit).
 *
 *   node --conditions=development --import tsx test/bench/memory-tool.ts [--rounds 3] [--samples 100]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openMemory } from '@zeromem/core';
import { createMemoryTool, type MemoryCommand } from '@zeromem/tools';
import { median, summarize } from './stats.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, samples: { type: 'string', default: '100' }, files: { type: 'string', default: '1000' } } });
const ROUNDS = Number(values.rounds);
const SAMPLES = Number(values.samples);
const FILES = Number(values.files);

const pathOf = (i: number) => `/memories/topic-${i % 20}/note_${i}.md`;
const body = (i: number) => Array.from({ length: 8 }, (_, line) => `Line ${line} of note ${i}: the user mentioned item ${i * 8 + line}.`).join('\n');

type Step = (i: number) => MemoryCommand;
const STEPS: Array<[name: string, step: Step]> = [
  ['view /memories (1,000 files)', () => ({ command: 'view', path: '/memories' })],
  ['view a directory', (i) => ({ command: 'view', path: `/memories/topic-${i % 20}` })],
  ['view a file', (i) => ({ command: 'view', path: pathOf(i) })],
  ['view_range', (i) => ({ command: 'view', path: pathOf(i), view_range: [2, 4] })],
  ['str_replace', (i) => ({ command: 'str_replace', path: pathOf(i), old_str: `item ${i * 8 + 3}.`, new_str: `item ${i * 8 + 3}, twice.` })],
  ['insert', (i) => ({ command: 'insert', path: pathOf(i), insert_line: 8, insert_text: 'A new last line.' })],
  ['create', (i) => ({ command: 'create', path: `/memories/new/n_${i}.md`, file_text: body(i) })],
  ['rename', (i) => ({ command: 'rename', old_path: pathOf(i), new_path: `/memories/moved/note_${i}.md` })],
  ['delete', (i) => ({ command: 'delete', path: `/memories/moved/note_${i}.md` })],
];

const BASELINE = "the store's write: remember({ key })";
const p50s = new Map<string, number[]>([...STEPS.map(([name]) => [name, []] as [string, number[]]), [BASELINE, []]]);
for (let round = 0; round < ROUNDS; round++) {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-bench-memtool-'));
  const memory = await openMemory({ name: 'bench', directory: dir });
  try {
    const tool = createMemoryTool(memory, { namespace: { userId: 'bench' } });
    for (let i = 0; i < FILES; i++) {
      const result = await tool.execute({ command: 'create', path: pathOf(i), file_text: body(i) });
      if (!result.startsWith('File created')) throw new Error(result);
    }
    for (const [name, step] of STEPS) {
      const samples: number[] = [];
      for (let n = 0; n < SAMPLES; n++) {
        const i = (n * 7) % FILES;
        const started = performance.now();
        const result = await tool.execute(step(i));
        samples.push(performance.now() - started);
        if (/^(Error|No replacement|The path)/.test(result)) throw new Error(`${name}: ${result}`);
      }
      p50s.get(name)!.push(summarize(samples).p50);
    }
    const samples: number[] = [];
    for (let n = 0; n < SAMPLES; n++) {
      const started = performance.now();
      await memory.remember({ namespace: { userId: 'bench' }, key: `bench.fact_${n % 50}`, content: body(n) });
      samples.push(performance.now() - started);
    }
    p50s.get(BASELINE)!.push(summarize(samples).p50);
  } finally {
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${FILES} files, ${SAMPLES} samples a command, ${ROUNDS} rounds`);
console.log('| command | p50 ms (median of rounds) | each round |\n| --- | --- | --- |');
for (const [name, values] of p50s) console.log(`| ${name} | ${median(values).toFixed(2)} | ${values.map((v) => v.toFixed(2)).join(', ')} |`);
