/**
 * The synthetic recall benchmark data (shared by recall-speed.ts and open-speed.ts):
 * short texts of 6-14 pseudo-words from a Zipf vocabulary, random 384-d unit vectors (BENCH_DIM),
 * 2-4 word queries, an embedder that looks the vectors up, and a database written
 * through the public API.
 */
import { IDBKeyRange, type IDBFactory } from 'fake-indexeddb';
import { openMemory, tokenize, type Embedder } from '../../packages/core/src/index.ts';
import { MemoryDatabase } from '../../packages/core/src/store/dexie/database.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';

/** 384 unless BENCH_DIM says otherwise (640: the bundled embedder's English + Chinese space; 128: English only). */
export const DIM = Number(process.env['BENCH_DIM'] ?? 384);
/**
 * How many leading columns of each vector are random (the rest zero): DIM unless BENCH_SPACE
 * says otherwise. `BENCH_DIM=640 BENCH_SPACE=128` is an English store under the bundled
 * embedder (its 512 Chinese columns zero).
 */
export const SPACE = Number(process.env['BENCH_SPACE'] ?? DIM);
export const VOCABULARY = 4000;
/** The namespace every benchmark memory is in. */
export const NS = { userId: 'bench' };

export function unitVectors(count: number, random: () => number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let i = 0; i < count; i++) {
    const v = new Float32Array(DIM);
    let norm = 0;
    for (let j = 0; j < SPACE; j += 2) {
      // Box-Muller: two normals per pair of uniforms.
      const r = Math.sqrt(-2 * Math.log(random() || 1e-12));
      const a = 2 * Math.PI * random();
      v[j] = r * Math.cos(a);
      v[j + 1] = r * Math.sin(a);
      norm += v[j]! * v[j]! + v[j + 1]! * v[j + 1]!;
    }
    const scale = 1 / Math.sqrt(norm);
    for (let j = 0; j < DIM; j++) v[j] = v[j]! * scale;
    out.push(v);
  }
  return out;
}

/** Pronounceable pseudo-words (no English stopwords), Zipf-distributed (s = 1). */
function wordSource(random: () => number): () => string {
  const consonants = 'bcdfghjklmnprstvz';
  const vowels = 'aeiou';
  const words = new Set<string>();
  while (words.size < VOCABULARY) {
    let w = '';
    const syllables = 2 + Math.floor(random() * 3);
    for (let s = 0; s < syllables; s++) w += consonants[Math.floor(random() * consonants.length)]! + vowels[Math.floor(random() * vowels.length)]!;
    if (tokenize(w).length === 1) words.add(w);
  }
  const list = [...words];
  const cumulative = new Float64Array(VOCABULARY);
  let sum = 0;
  for (let r = 0; r < VOCABULARY; r++) cumulative[r] = sum += 1 / (r + 1);
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = VOCABULARY - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return list[lo]!;
  };
}

export interface Dataset {
  texts: string[];
  vectors: Float32Array[];
  queries: string[];
  queryVectors: Float32Array[];
}

export function dataset(n: number, seed: number, queryCount: number): Dataset {
  const random = prng(seed);
  const { texts, queries } = textsOf(random, n, queryCount);
  return { texts, vectors: unitVectors(n, random), queries, queryVectors: unitVectors(queries.length, random) };
}

/** The texts and queries of {@link dataset} (the same ones) without its vectors: for a store too large to hold every vector twice (1M memories). */
export function datasetTexts(n: number, seed: number, queryCount: number): Pick<Dataset, 'texts' | 'queries'> {
  return textsOf(prng(seed), n, queryCount);
}

function textsOf(random: () => number, n: number, queryCount: number): Pick<Dataset, 'texts' | 'queries'> {
  const word = wordSource(random);
  const phrase = (min: number, max: number) => Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, word).join(' ');
  const seen = new Set<string>();
  const texts: string[] = [];
  while (texts.length < n) {
    const text = phrase(6, 14);
    if (!seen.has(text)) (seen.add(text), texts.push(text));
  }
  const queries: string[] = [];
  while (queries.length < queryCount) {
    const q = phrase(2, 4);
    if (!seen.has(q)) (seen.add(q), queries.push(q));
  }
  return { texts, queries };
}

/** Returns the precomputed vector of a text; counts the time it spends on queries. */
export function lookupEmbedder(data: Dataset): Embedder & { queryMs: number[] } {
  const table = new Map<string, Float32Array>();
  data.texts.forEach((t, i) => table.set(t, data.vectors[i]!));
  data.queries.forEach((t, i) => table.set(t, data.queryVectors[i]!));
  const queryMs: number[] = [];
  return {
    modelId: 'bench-lookup-384',
    dimension: DIM,
    queryMs,
    async embed(texts, kind) {
      const start = performance.now();
      const out = texts.map((t) => table.get(t) ?? null);
      if (kind === 'query') queryMs.push(performance.now() - start);
      return out;
    },
  };
}

/**
 * Writes the dataset's texts into database `name` through the public API: rememberMany +
 * embedding of 10k memories at a time in a fresh scratch database, whose rows are then
 * copied into the bench database. (Straight rememberMany into a store that already holds
 * 10k+ rows is superlinear under fake-indexeddb: its index cursors re-walk equal keys;
 * 10k->20k took 61 s here.)
 */
export async function writeBenchDatabase(data: Dataset, embedder: Embedder, factory: IDBFactory, name: string): Promise<{ writeMs: number; embedMs: number; copyMs: number }> {
  const n = data.texts.length;
  const target = new MemoryDatabase(name, { indexedDB: factory, IDBKeyRange });
  await target.open();
  let writeMs = 0;
  let embedMs = 0;
  let copyMs = 0;
  for (let i = 0; i < n; i += 10_000) {
    const scratchName = `${name}-scratch-${i}`;
    const scratch = await openMemory({ embedder, indexedDB: factory, IDBKeyRange, name: scratchName });
    let t0 = performance.now();
    await scratch.rememberMany(data.texts.slice(i, i + 10_000).map((content) => ({ namespace: NS, content })));
    writeMs += performance.now() - t0;
    t0 = performance.now();
    await scratch.whenEmbedded();
    embedMs += performance.now() - t0;
    await scratch.close();
    t0 = performance.now();
    const source = new MemoryDatabase(scratchName, { indexedDB: factory, IDBKeyRange });
    await source.open();
    await target.records.bulkAdd(await source.records.toArray());
    await target.audit.bulkAdd((await source.audit.orderBy('seq').toArray()).map(({ seq: _seq, ...entry }) => entry));
    await target.vectors.bulkPut(await source.vectors.toArray());
    source.close();
    await source.delete();
    copyMs += performance.now() - t0;
  }
  target.close();
  return { writeMs, embedMs, copyMs };
}
