import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../src/search/bm25-index.ts';
import { tokenize } from '../src/search/tokenize.ts';
import { fcSeed } from './helpers.ts';

/** Okapi BM25 written out for a tiny corpus, to check the index against. */
function expectedScore(query: string[], doc: string[], corpus: string[][], k1 = 1.2, b = 1): number {
  const avg = corpus.reduce((sum, d) => sum + d.length, 0) / corpus.length;
  let score = 0;
  for (const term of query) {
    const df = corpus.filter((d) => d.includes(term)).length;
    const tf = doc.filter((t) => t === term).length;
    if (!df || !tf) continue;
    const idf = Math.log(1 + (corpus.length - df + 0.5) / (df + 0.5));
    score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / avg));
  }
  return score;
}

describe('Bm25Index', () => {
  it('scores exactly as Okapi BM25 (k1 1.2, b 1), counting document frequency once per document', () => {
    const docs = { a: 'port port loose', b: 'port replaced today', c: 'phone calls preferred always' };
    const index = new Bm25Index();
    index.addMany(Object.entries(docs).map(([id, content]) => ({ id, content })));
    const corpus = Object.values(docs).map(tokenize); // each word and its stem ("replaced", "replac")
    const query = tokenize('loose port');
    const hits = index.search('loose port', 10);
    expect(hits.map((h) => h.id)).toEqual(['a', 'b']);
    expect(hits[0]!.score).toBeCloseTo(expectedScore(query, corpus[0]!, corpus), 12);
    expect(hits[1]!.score).toBeCloseTo(expectedScore(query, corpus[1]!, corpus), 12);
  });

  it('matches whole words only, and a repeated query word counts twice', () => {
    const index = new Bm25Index();
    index.addMany([
      { id: 'car', content: 'a car broke down' },
      { id: 'career', content: 'a career change' },
    ]);
    expect(index.search('car', 10).map((h) => h.id)).toEqual(['car']);
    const once = index.search('car broke', 10)[0]!.score;
    const twice = index.search('car broke broke', 10)[0]!.score;
    expect(twice).toBeGreaterThan(once);
  });

  it('a restored index compacts its removed documents away and scores as a fresh one', () => {
    const docs = Array.from({ length: 120 }, (_, i) => ({ id: `d${i}`, content: `word${i % 7} common ${i % 2 ? 'odd' : 'even'} w${i}` }));
    const built = new Bm25Index();
    built.addMany(docs);
    const index = Bm25Index.fromState(built.exportState());
    for (let i = 0; i < 100; i++) index.remove(`d${i}`); // past a quarter: compacted
    index.addMany([{ id: 'new', content: 'common odd word3' }]);
    const fresh = new Bm25Index();
    fresh.addMany([...docs.slice(100), { id: 'new', content: 'common odd word3' }]);
    for (const query of ['common odd word3', 'w110 even', 'word5']) expect(index.search(query, 50)).toEqual(fresh.search(query, 50));
    expect([...index.words()].sort()).toEqual([...fresh.words()].sort());
    expect(Bm25Index.fromState(index.exportState()).search('common odd', 50)).toEqual(fresh.search('common odd', 50));
  });

  it('after any adds and removes, scores equal a fresh index of the live documents (seeded)', () => {
    const seed = fcSeed('bm25 index vs a fresh index');
    const words = ['port', 'loose', 'phone', 'call', 'order', 'cable', 'refund', 'wednesday'];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), id: fc.integer({ min: 0, max: 30 }), text: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 8 }) }),
      fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 0, max: 30 }) }),
      // A restored index reads its postings where the state holds them until a change copies them out.
      fc.record({ kind: fc.constant('restore' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }), (ops, query) => {
        let index = new Bm25Index();
        const live = new Map<string, string>();
        for (const o of ops) {
          if (o.kind === 'restore') index = Bm25Index.fromState(index.exportState());
          else if (o.kind === 'add') {
            index.addMany([{ id: `d${o.id}`, content: o.text.join(' ') }]);
            live.set(`d${o.id}`, o.text.join(' '));
          } else {
            index.remove(`d${o.id}`);
            live.delete(`d${o.id}`);
          }
        }
        const fresh = new Bm25Index();
        fresh.addMany([...live].map(([id, content]) => ({ id, content })));
        expect(index.size).toBe(live.size);
        // A removed document's words leave with it (a forgotten memory keeps no word in the index).
        expect([...index.words()].sort()).toEqual([...fresh.words()].sort());
        index.search(words.join(' '), 50); // an earlier search must leave nothing behind in the reused buffer
        const got = index.search(query.join(' '), 50);
        const want = fresh.search(query.join(' '), 50);
        expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
        got.forEach((hit, i) => expect(hit.score).toBeCloseTo(want[i]!.score, 9));
        // Scoring chosen ids (live, removed, unknown) gives the search's scores, also after a restore.
        const asked = [...Array(32).keys()].map((i) => `d${i}`);
        const expected = Object.fromEntries(fresh.search(query.join(' '), 1000).map((hit) => [hit.id, hit.score]));
        for (const scored of [index, Bm25Index.fromState(index.exportState())]) {
          const scores = Object.fromEntries(scored.scoreDocs(query.join(' '), asked));
          expect(Object.keys(scores).sort()).toEqual(Object.keys(expected).sort());
          for (const [id, score] of Object.entries(scores)) expect(score).toBeCloseTo(expected[id]!, 9);
        }
      }),
      { seed, numRuns: 200 },
    );
  });
});
