import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createInt8Kernel, wasmSimdAvailable } from '../src/search/int8-kernel.ts';
import { TopK } from '../src/search/top-k.ts';
import { VECTOR_INDEX_DEFAULTS, VectorIndex, type VectorHit } from '../src/search/vector-index.ts';
import { fcSeed } from './helpers.ts';
import { mulberry32 as rng } from '../../../test/kit/mulberry32.ts';

/**
 * VectorIndex: the int8 coarse pass + exact float rerank must give the exact top-k on
 * small sets, recall@10 >= 0.99 on larger structured sets, stay correct through
 * set/replace/remove (rows move: swap with last), and honor `accept`.
 * Data comes from a seeded generator; the seed is printed (replay with FC_SEED=...).
 */

const SEED = fcSeed('vector-index data');

function gaussian(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
}

function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * scale;
  return v;
}

/** Random unit vectors (isotropic). */
function randomVectors(count: number, dim: number, seed: number): Float32Array[] {
  const g = gaussian(rng(seed));
  return Array.from({ length: count }, () => {
    const v = new Float32Array(dim);
    for (let i = 0; i < dim; i++) v[i] = g();
    return normalize(v);
  });
}

/**
 * Structured vectors: random centroids plus noise (`noise` relative to the centroid's
 * length), normalized. Each call of `draw` is a new member of a random cluster.
 */
function clusteredSource(dim: number, clusters: number, noise: number, seed: number): () => Float32Array {
  const random = rng(seed);
  const g = gaussian(random);
  const centroids = randomVectors(clusters, dim, seed + 1);
  const spread = noise / Math.sqrt(dim);
  return () => {
    const c = centroids[Math.floor(random() * clusters)]!;
    const v = new Float32Array(dim);
    for (let i = 0; i < dim; i++) v[i] = c[i]! + spread * g();
    return normalize(v);
  };
}

function fill(index: VectorIndex, vectors: Float32Array[], prefix = 'v'): void {
  vectors.forEach((v, i) => index.set(`${prefix}${i}`, v));
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Brute force over a plain map, independent of VectorIndex. */
function bruteForce(vectors: Map<string, Float32Array>, query: Float32Array, k: number, accept?: (id: string) => boolean): Array<{ id: string; score: number }> {
  return [...vectors]
    .filter(([id]) => !accept || accept(id))
    .map(([id, v]) => ({ id, score: dot(v, query) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

function recallAt(fast: VectorHit[], exact: VectorHit[]): number {
  const truth = new Set(exact.map((hit) => hit.id));
  return fast.filter((hit) => truth.has(hit.id)).length;
}

const FAST = { exactBelow: 0 } as const; // always take the int8 path when n exceeds the pool

describe('VectorIndex fast path (int8 scan + exact rerank)', () => {
  it('runs the WebAssembly SIMD kernel in Node 20, and the JS kernel gives identical results', () => {
    expect(wasmSimdAvailable()).toBe(true);
    const vectors = randomVectors(3000, 100, SEED + 1); // 100: not a multiple of 16 (padded rows)
    const queries = randomVectors(20, 100, SEED + 2);
    const wasm = new VectorIndex(100, 8, { ...FAST, kernel: 'wasm', candidates: 32 });
    const js = new VectorIndex(100, 8, { ...FAST, kernel: 'js', candidates: 32 });
    fill(wasm, vectors);
    fill(js, vectors);
    expect(wasm.kernel).toBe('wasm-simd');
    expect(js.kernel).toBe('js');
    for (const q of queries) expect(js.search(q, 10)).toEqual(wasm.search(q, 10));
  });

  it('reads only the first `length` bytes of each row when asked (both kernels, same integers)', () => {
    const random = rng(SEED + 40);
    const stride = 64;
    const n = 37;
    for (const choice of ['wasm', 'js'] as const) {
      const kernel = createInt8Kernel(choice);
      kernel.ensure(n * stride + stride + n * 4 + 64);
      const bytes = new Int8Array(kernel.buffer);
      for (let i = 0; i < n * stride + stride; i++) bytes[i] = Math.round(random() * 254) - 127;
      const q = n * stride;
      const out = n * stride + stride;
      for (const [start, length] of [[0, 64], [0, 16], [16, 32], [48, 16]] as const) {
        kernel.dot(start, n, stride, length, q + start, out);
        const got = Array.from(new Int32Array(kernel.buffer, out, n));
        const want = Array.from({ length: n }, (_, r) => {
          let sum = 0;
          for (let j = start; j < start + length; j++) sum += bytes[r * stride + j]! * bytes[q + j]!;
          return sum;
        });
        expect(got, `${choice} start=${start} length=${length}`).toEqual(want);
      }
    }
  });

  it('ranks exactly in an index of side-by-side spaces (each vector zero outside its own), as an index of that space alone', () => {
    // The bundled embedder's shape: an English space and a Chinese one, side by side; a
    // query is zero outside its space, so the scan reads only its columns.
    const spaces = [40, 60]; // 40: not a multiple of 16, the second space starts mid-block
    const dim = spaces[0]! + spaces[1]!;
    const own = spaces.map((size, s) => randomVectors(3000, size, SEED + 41 + s));
    const place = (v: Float32Array, s: number): Float32Array => {
      const full = new Float32Array(dim);
      full.set(v, s === 0 ? 0 : spaces[0]!);
      return full;
    };
    for (const kernel of ['wasm', 'js'] as const) {
      const both = new VectorIndex(dim, 16, { ...FAST, kernel, candidates: 64 });
      const alone = spaces.map((size) => new VectorIndex(size, 16, { ...FAST, kernel, candidates: 64 }));
      own.forEach((vectors, s) =>
        vectors.forEach((v, i) => {
          both.set(`${s}:${i}`, place(v, s));
          alone[s]!.set(`${s}:${i}`, v);
        }),
      );
      for (let s = 0; s < 2; s++) {
        for (const q of randomVectors(10, spaces[s]!, SEED + 43 + s)) {
          const hits = both.search(place(q, s), 10);
          expect(hits).toEqual(both.searchExact(place(q, s), 10));
          expect(hits.map((h) => h.id)).toEqual(alone[s]!.searchExact(q, 10).map((h) => h.id));
          hits.forEach((h, i) => expect(h.score).toBeCloseTo(alone[s]!.searchExact(q, 10)[i]!.score, 6));
        }
      }
    }
  });

  it('equals the exact top-k on small random and clustered sets (ids and scores)', () => {
    const dim = 64;
    const sets = {
      random: randomVectors(4000, dim, SEED + 3),
      clustered: Array.from({ length: 4000 }, clusteredSource(dim, 40, 0.5, SEED + 4)),
    };
    for (const [name, vectors] of Object.entries(sets)) {
      const index = new VectorIndex(dim, 16, { ...FAST, candidates: 128 });
      fill(index, vectors);
      const queries = name === 'random' ? randomVectors(30, dim, SEED + 5) : Array.from({ length: 30 }, clusteredSource(dim, 40, 0.5, SEED + 4));
      for (const q of queries) {
        for (const k of [1, 10, 25]) {
          const exact = index.searchExact(q, k);
          expect(exact).toHaveLength(k);
          expect(index.search(q, k), `${name} k=${k}`).toEqual(exact);
        }
      }
    }
  });

  it('returns every vector, exactly ranked, when k >= size, and [] for k <= 0 or an empty index', () => {
    const vectors = randomVectors(50, 32, SEED + 6);
    const index = new VectorIndex(32, 4, FAST);
    expect(index.search(vectors[0]!, 5)).toEqual([]);
    fill(index, vectors);
    const all = index.search(vectors[0]!, 80);
    expect(all.map((hit) => hit.id).sort()).toEqual(vectors.map((_, i) => `v${i}`).sort());
    expect(all[0]).toEqual({ id: 'v0', score: index.similarity('v0', vectors[0]!) });
    expect(index.search(vectors[0]!, 0)).toEqual([]);
    expect(index.search(vectors[0]!, -3)).toEqual([]);
  });

  it('scores a hit exactly as similarity() does', () => {
    const vectors = randomVectors(3000, 384, SEED + 7);
    const index = new VectorIndex(384, 64, FAST);
    fill(index, vectors);
    const [q] = randomVectors(1, 384, SEED + 8);
    for (const hit of index.search(q!, 20)) expect(hit.score).toBe(index.similarity(hit.id, q!));
  });

  it('keeps recall@10 >= 0.99 against brute force on a 20k clustered set and a 20k random set (384-d, defaults)', () => {
    const dim = 384;
    const draw = clusteredSource(dim, 200, 0.5, SEED + 9);
    const sets = {
      clustered: { vectors: Array.from({ length: 20_000 }, draw), queries: Array.from({ length: 60 }, draw) },
      random: { vectors: randomVectors(20_000, dim, SEED + 10), queries: randomVectors(60, dim, SEED + 11) },
    };
    for (const [name, { vectors, queries }] of Object.entries(sets)) {
      const index = new VectorIndex(dim, 1024); // defaults: 20k > exactBelow, the fast path runs
      fill(index, vectors);
      let found10 = 0;
      let found100 = 0;
      for (const q of queries) {
        const exact = index.searchExact(q, 100);
        found10 += recallAt(index.search(q, 10), exact.slice(0, 10));
        found100 += recallAt(index.search(q, 100), exact);
      }
      console.log(`recall@10 ${name}: ${found10 / (10 * queries.length)}; recall@100: ${found100 / (100 * queries.length)}`);
      expect(found10 / (10 * queries.length), name).toBeGreaterThanOrEqual(0.99);
      expect(found100 / (100 * queries.length), name).toBeGreaterThanOrEqual(0.99);
    }
  }, 120_000);

  it('finds the exact top 10 among dense near-duplicates by reranking every row within the int8 error margin', () => {
    // 20 tight clusters: ~1,000 vectors each within ~1e-3 cosine of each other, far below
    // the int8 error (~5e-4 per score) times the candidate count: the margin pass must run.
    const dim = 384;
    const draw = clusteredSource(dim, 20, 0.05, SEED + 19);
    const index = new VectorIndex(dim, 1024);
    fill(index, Array.from({ length: 20_000 }, draw));
    let found = 0;
    let widened = 0;
    const queries = Array.from({ length: 20 }, draw);
    for (const q of queries) {
      const exact = index.searchExact(q, 10);
      found += recallAt(index.search(q, 10), exact);
      if (index.lastSearch.path === 'int8' && index.lastSearch.reranked > VECTOR_INDEX_DEFAULTS.candidates) widened++;
    }
    console.log(`recall@10 near-duplicates: ${found / (10 * queries.length)}; margin pass in ${widened}/${queries.length} searches`);
    expect(found / (10 * queries.length)).toBeGreaterThanOrEqual(0.99);
    expect(widened).toBeGreaterThan(0);
  }, 120_000);

  it('grows from capacity 1 without losing rows', () => {
    const vectors = randomVectors(5000, 48, SEED + 12);
    const index = new VectorIndex(48, 1, FAST);
    fill(index, vectors);
    expect(index.size).toBe(5000);
    for (const i of [0, 1, 2, 1023, 1024, 4999]) {
      const [top] = index.search(vectors[i]!, 1);
      expect(top!.id).toBe(`v${i}`);
      expect(top!.score).toBeCloseTo(1, 5);
    }
  });
});

describe('VectorIndex set/remove (swap with last)', () => {
  it('matches a model after random sets, replacements and removals (property)', () => {
    const dim = 24;
    const ids = Array.from({ length: 60 }, (_, i) => `m${i}`);
    const op = fc.oneof(
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), id: fc.constantFrom(...ids), seed: fc.nat() }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('remove' as const), id: fc.constantFrom(...ids) }) },
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 150 }), fc.nat(), (ops, querySeed) => {
        const index = new VectorIndex(dim, 2, { exactBelow: 0, candidates: 8 });
        const model = new Map<string, Float32Array>();
        for (const step of ops) {
          if (step.kind === 'set') {
            const [v] = randomVectors(1, dim, step.seed);
            index.set(step.id, v!);
            model.set(step.id, v!);
          } else {
            index.remove(step.id);
            model.delete(step.id);
          }
        }
        expect(index.size).toBe(model.size);
        for (const id of ids) expect(index.has(id)).toBe(model.has(id));
        const [q] = randomVectors(1, dim, querySeed);
        for (const id of ids) {
          const expected = model.get(id);
          if (expected) expect(index.similarity(id, q!)).toBeCloseTo(dot(expected, q!), 5);
          else expect(index.similarity(id, q!)).toBeUndefined();
        }
        // Every live vector finds itself (or an equal vector) first, through the int8 path once size > 8.
        for (const v of model.values()) {
          const [top] = index.search(v, 1);
          expect(top!.score).toBeCloseTo(1, 5);
          expect(dot(model.get(top!.id)!, v)).toBeCloseTo(1, 5);
        }
        const k = Math.min(2, model.size);
        const fast = index.search(q!, k);
        const truth = bruteForce(model, q!, k);
        // Rank by rank the true scores; two equal vectors (the same seed) tie in either order,
        // so each hit must be a distinct live id whose own vector has that score.
        expect(new Set(fast.map((hit) => hit.id)).size).toBe(truth.length);
        fast.forEach((hit, i) => {
          expect(hit.score).toBeCloseTo(truth[i]!.score, 5);
          expect(dot(model.get(hit.id)!, q!)).toBeCloseTo(truth[i]!.score, 5);
        });
        expect(
          index
            .searchExact(q!, 1000)
            .map((hit) => hit.id)
            .sort(),
        ).toEqual([...model.keys()].sort());
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('forgets a removed vector and finds the moved last row at its new slot', () => {
    const vectors = randomVectors(3000, 64, SEED + 13);
    const index = new VectorIndex(64, 16, FAST);
    fill(index, vectors);
    index.remove('v10'); // v2999 moves into slot 10
    index.remove('missing'); // no-op
    expect(index.size).toBe(2999);
    expect(index.has('v10')).toBe(false);
    expect(index.similarity('v10', vectors[10]!)).toBeUndefined();
    expect(index.search(vectors[10]!, 50).map((hit) => hit.id)).not.toContain('v10');
    expect(index.search(vectors[2999]!, 1)[0]!.id).toBe('v2999');
    // Replacing a vector moves its id's matches with it.
    index.set('v5', vectors[10]!);
    expect(index.size).toBe(2999);
    expect(index.search(vectors[10]!, 1)[0]!.id).toBe('v5');
    expect(index.search(vectors[5]!, 1)[0]!.id).not.toBe('v5');
  });
});

describe('VectorIndex accept filter', () => {
  const vectors = randomVectors(5000, 64, SEED + 14);
  const queries = randomVectors(10, 64, SEED + 15);
  const index = new VectorIndex(64, 64, FAST);
  fill(index, vectors);
  const all = new Map(vectors.map((v, i) => [`v${i}`, v]));

  it('returns only accepted ids, k of them, equal to the filtered brute force', () => {
    const even = (id: string) => Number(id.slice(1)) % 2 === 0;
    const rare = (id: string) => Number(id.slice(1)) % 97 === 0; // 52 accepted ids
    for (const q of queries) {
      for (const [accept, k] of [
        [even, 10],
        [rare, 10],
        [rare, 40],
      ] as const) {
        const hits = index.search(q, k, accept);
        expect(hits).toHaveLength(k);
        expect(hits.every((hit) => accept(hit.id))).toBe(true);
        expect(hits).toEqual(index.searchExact(q, k, accept));
        expect(hits.map((hit) => hit.id)).toEqual(bruteForce(all, q, k, accept).map((hit) => hit.id));
      }
    }
  });

  it('returns all accepted ids when fewer than k exist, and none when nothing is accepted', () => {
    const three = new Set(['v1', 'v2500', 'v4999']);
    const hits = index.search(queries[0]!, 10, (id) => three.has(id));
    expect(hits.map((hit) => hit.id).sort()).toEqual([...three].sort());
    expect(index.search(queries[0]!, 10, () => false)).toEqual([]);
  });
});

describe('VectorIndex exportPacked / fromPacked', () => {
  it('restores an index that searches and scores exactly like the original, with or without the int8 rows', () => {
    const vectors = randomVectors(3000, 40, SEED + 16); // 40: int8 rows padded to 48
    const original = new VectorIndex(40, 8, FAST);
    fill(original, vectors);
    original.remove('v7'); // a moved row must come back at its new place
    const packed = original.exportPacked();
    expect(packed.ids).toHaveLength(2999);
    expect(packed.spans).toHaveLength(1);
    expect(packed.spans[0]!.int8).toHaveLength(2999 * 48);
    const restored = VectorIndex.fromPacked(packed, FAST);
    const { scales: _scales, ...floatsOnly } = packed;
    const requantized = VectorIndex.fromPacked({ ...floatsOnly, spans: packed.spans.map(({ int8: _int8, ...span }) => span) }, FAST);
    expect(requantized.exportPacked()).toEqual(packed);
    for (const q of randomVectors(10, 40, SEED + 17)) {
      const expected = original.search(q, 15);
      expect(restored.search(q, 15)).toEqual(expected);
      expect(requantized.search(q, 15)).toEqual(expected);
      expect(restored.similarity('v3', q)).toBe(original.similarity('v3', q));
    }
    expect(restored.has('v7')).toBe(false);
    // The restored index keeps working: add, replace, remove.
    restored.set('new', vectors[7]!);
    expect(restored.search(vectors[7]!, 1)[0]!.id).toBe('new');
    restored.remove('new');
    expect(restored.size).toBe(2999);
  });

  it('refuses arrays that do not fit together and repeated ids', () => {
    const index = new VectorIndex(16, 4);
    fill(index, randomVectors(3, 16, SEED + 18));
    const packed = index.exportPacked();
    const span = packed.spans[0]!;
    expect(() => VectorIndex.fromPacked({ ...packed, spans: [{ ...span, floats: span.floats.subarray(1) }] })).toThrow(RangeError);
    expect(() => VectorIndex.fromPacked({ ...packed, spans: [{ ...span, rows: Int32Array.of(0, 1, 1) }] })).toThrow(RangeError);
    expect(() => VectorIndex.fromPacked({ ...packed, spans: [{ ...span, start: 8 }] })).toThrow(RangeError);
    expect(() => VectorIndex.fromPacked({ ...packed, scales: packed.scales!.subarray(1) })).toThrow(RangeError);
    expect(() => VectorIndex.fromPacked({ ...packed, ids: ['a', 'a', 'b'] })).toThrow(/appears twice/);
    expect(VectorIndex.fromPacked({ dimension: 16, ids: [], spans: [] }).size).toBe(0);
  });
});

/**
 * The bundled embedder's space: an English model's 128 columns beside a Chinese model's
 * 512, each vector zero outside its own model's. A vector must cost its own columns, and
 * every answer must be the one a scan of whole 640-d rows gives (issue 32).
 */
describe('VectorIndex of side-by-side model spaces', () => {
  const EN = 128;
  const ZH = 512;
  const DIM = EN + ZH;
  const place = (v: Float32Array, chinese: boolean): Float32Array => {
    const full = new Float32Array(DIM);
    full.set(v, chinese ? EN : 0);
    return full;
  };
  /** A mixed namespace: English and Chinese vectors interleaved as a store's writes come. */
  function mixed(count: number, seed: number): Array<[string, Float32Array]> {
    const random = rng(seed);
    const en = randomVectors(count, EN, seed + 1);
    const zh = randomVectors(count, ZH, seed + 2);
    return Array.from({ length: count }, (_, i) => {
      const chinese = random() < 0.4;
      return [`${chinese ? 'zh' : 'en'}${i}`, place((chinese ? zh : en)[i]!, chinese)] as [string, Float32Array];
    });
  }

  /** The whole-row dot product of the layout before spans: four accumulators over the query's non-zero 16-column blocks. */
  function wholeRowDot(row: Float32Array, query: Float32Array, all = false): number {
    let first = -1;
    let last = -1;
    query.forEach((x, j) => {
      if (x !== 0) {
        if (first < 0) first = j;
        last = j;
      }
    });
    const start = all || first < 0 ? 0 : first & ~15;
    const end = all || first < 0 ? DIM : Math.min(DIM, (last + 16) & ~15);
    const s = [0, 0, 0, 0];
    let j = start;
    for (; j < start + ((end - start) & ~3); j += 4) for (let t = 0; t < 4; t++) s[t] = s[t]! + row[j + t]! * query[j + t]!;
    for (; j < end; j++) s[0] = s[0]! + row[j]! * query[j]!;
    return s[0]! + s[1]! + s[2]! + s[3]!;
  }

  /** What a scan of whole rows in row order returns (the same top-k keeper, so ties fall alike). */
  function wholeRowSearch(rows: Array<[string, Float32Array]>, query: Float32Array, k: number, accept?: (id: string) => boolean): VectorHit[] {
    const top = new TopK(Math.min(k, rows.length));
    rows.forEach(([id, row], i) => {
      if (!accept || accept(id)) top.push(i, wholeRowDot(row, query));
    });
    return top.sorted().map(({ item, score }) => ({ id: rows[item]![0], score }));
  }

  it('holds a vector in its own model\'s columns: an English-only index costs what a 128-d one does', () => {
    const rows = mixed(2000, SEED + 50).filter(([id]) => id.startsWith('en'));
    const wide = new VectorIndex(DIM, 64, FAST);
    const narrow = new VectorIndex(EN, 64, FAST);
    for (const [id, v] of rows) {
      wide.set(id, v);
      narrow.set(id, v.subarray(0, EN));
    }
    console.log(`640-d space, English only: ${wide.byteLength} bytes; 128-d index: ${narrow.byteLength} bytes`);
    expect(wide.byteLength).toBeLessThan(narrow.byteLength * 1.2);
    const packed = wide.exportPacked();
    const floats = packed.spans.reduce((sum, span) => sum + span.floats.length, 0);
    expect(floats).toBe(rows.length * EN);
  });

  it('packs a mixed namespace at its models\' dimensions, and restores it with the same answers', () => {
    const rows = mixed(3000, SEED + 51);
    const index = new VectorIndex(DIM, 64, FAST);
    for (const [id, v] of rows) index.set(id, v);
    const chinese = rows.filter(([id]) => id.startsWith('zh')).length;
    const packed = index.exportPacked();
    expect(packed.spans.reduce((sum, span) => sum + span.floats.length, 0)).toBe(chinese * ZH + (rows.length - chinese) * EN);
    const restored = VectorIndex.fromPacked(packed, FAST);
    for (const [, q] of mixed(10, SEED + 52)) expect(restored.search(q, 20)).toEqual(index.search(q, 20));
  });

  it('answers as a scan of whole rows: same ids, same scores, same ties, through sets, replacements and removals', () => {
    const rows = mixed(3000, SEED + 53);
    const queries = mixed(5, SEED + 54).map(([, q]) => q);
    for (const kernel of ['wasm', 'js'] as const) {
      const index = new VectorIndex(DIM, 16, { ...FAST, kernel, candidates: 64 });
      const model: Array<[string, Float32Array]> = [];
      const put = (id: string, v: Float32Array) => {
        index.set(id, v);
        const at = model.findIndex(([other]) => other === id);
        if (at >= 0) model[at] = [id, v];
        else model.push([id, v]);
      };
      const remove = (id: string) => {
        index.remove(id);
        const at = model.findIndex(([other]) => other === id);
        const last = model.pop()!;
        if (at < model.length) model[at] = last; // the last row moves into the hole
      };
      rows.forEach(([id, v]) => put(id, v));
      // An English memory rewritten in Chinese and back: its row changes span, keeps its place.
      put('en0', rows.find(([id]) => id.startsWith('zh'))![1]);
      put('zh1', rows[2]![1]);
      for (let i = 5; i < 3000; i += 7) remove(rows[i]![0]);
      const some = (id: string) => id.length % 2 === 0;
      for (const q of queries) {
        // The int8 pass picks among rows of equal score (the other model's rows, all 0) by
        // its own order, as it did before spans: compared where the k best have none.
        for (const k of [1, 10, 100]) {
          expect(index.search(q, k), `${kernel} k=${k}`).toEqual(wholeRowSearch(model, q, k));
          expect(index.search(q, k, some)).toEqual(wholeRowSearch(model, q, k, some));
        }
        // The exact scan, ties included (k reaches into the other model's rows).
        for (const k of [10, 1500]) {
          expect(index.searchExact(q, k)).toEqual(wholeRowSearch(model, q, k));
          expect(index.searchExact(q, k, some)).toEqual(wholeRowSearch(model, q, k, some));
        }
        for (const [id, v] of model.slice(0, 50)) expect(index.similarity(id, q)).toBe(wholeRowDot(v, q, true));
      }
    }
  });

  it('measures the cosine background on whole rows: the same mean and spread', () => {
    const rows = mixed(60, SEED + 55); // 1,770 pairs: every pair is measured
    const index = new VectorIndex(DIM, 4, FAST);
    for (const [id, v] of rows) index.set(id, v);
    let sum = 0;
    let sumSq = 0;
    let pairs = 0;
    for (let i = 0; i < rows.length; i++) {
      for (let j = i + 1; j < rows.length; j++) {
        const c = wholeRowDot(rows[i]![1], rows[j]![1], true);
        sum += c;
        sumSq += c * c;
        pairs++;
      }
    }
    const mean = sum / pairs;
    // Pairs are summed space by space (relevance's background), so only the order of the sum differs.
    const background = index.background();
    expect(background.pairs).toBe(pairs);
    expect(background.vectors).toBe(rows.length);
    expect(background.mean).toBeCloseTo(mean, 12);
    expect(background.sd).toBeCloseTo(Math.sqrt(Math.max(0, sumSq / pairs - mean * mean)), 12);
  });
});
