/**
 * Scores relevance variants on abstain-study.ts dumps (issue 28, foreign queries), offline.
 * For each variant (a score of one recall's answer: its top 10 with no floor) it prints
 *   - AUC: the chance the best own answer scores above the best foreign one (ties half);
 *   - at the default floor 0.01, the variant read as a relevance: R@10 change in points and
 *     the foreign queries answered with nothing;
 *   - the oracle: the best single threshold on that score losing at most 1 point of R@10 (an
 *     upper bound for any floor on it, not a mechanism) and the foreign share it abstains on;
 *   - the R@10 lost by the threshold that answers 70% of the foreign queries with nothing.
 *
 *   npx tsx test/bench/abstain-variants.ts /tmp/<set>.study.jsonl [...]
 */
import { readFileSync } from 'node:fs';

interface Hit {
  gold: number;
  rel: number;
  matched: number;
  possible: number;
  cos: number | null;
  z: number | null;
  sem: number;
  above: number | null;
  agreement: number;
  words: string[];
}
interface Answer {
  ns: string;
  absent: number;
  /** token -> [count in the query, idf in the namespace, document frequency] */
  words: Record<string, [number, number, number]>;
  hits: Hit[];
}
interface Query {
  qid: string;
  conversation: boolean;
  gold: string[];
  own: Answer;
  foreign: Answer | null;
}
type Score = (q: Query, a: Answer) => number;

/** The best score of an answer's hits (0 for an answer with none). */
const best = (hits: Hit[], f: (h: Hit) => number) => (hits.length ? Math.max(...hits.map(f)) : 0);
const lexShare = (h: Hit) => (h.possible > 0 ? Math.min(1, h.matched / h.possible) : 0);
const relevance = (a: Answer) => best(a.hits, (h) => h.rel);

function unionShare(a: Answer): number {
  let total = 0;
  let present = 0;
  for (const [n, idf, df] of Object.values(a.words)) {
    total += n * idf;
    if (df > 0) present += n * idf;
  }
  return total ? present / total : 0;
}
function wordsPresent(a: Answer): number {
  const all = Object.values(a.words);
  return all.length ? all.filter(([, , df]) => df > 0).length / all.length : 0;
}
const wordsShare = (h: Hit, a: Answer) => (Object.keys(a.words).length ? h.words.length / Object.keys(a.words).length : 0);
function rareCover(h: Hit, a: Answer): number {
  const rare = Object.entries(a.words).filter(([, [, idf]]) => idf >= 0.8 * a.absent).map(([t]) => t);
  return rare.length ? rare.filter((t) => h.words.includes(t)).length / rare.length : 0;
}
/** Kept on branch abstain3: a hit's words count only where its cosine is above the unrelated pairs' mean (single-text queries). */
const wordsAboveMean: Score = (q, a) =>
  best(a.hits, (h) => (q.conversation || h.z === null || !h.cos || h.above === null || h.above > 0.5 ? h.rel : h.sem));
/** Today's relevance, but a single-text query gets no answer unless some hit's cosine stands above the pairs' mean. */
const zGate: Score = (q, a) => {
  if (q.conversation) return relevance(a);
  const zs = a.hits.filter((h) => h.z !== null && h.cos).map((h) => h.z!);
  return !zs.length || Math.max(...zs) > 0 ? relevance(a) : 0;
};
const agreementPerWord: Score = (q, a) =>
  best(a.hits, (h) => 1 - (1 - lexShare(h) * h.agreement ** Math.max(1, h.words.length)) * (1 - h.sem));

const VARIANTS: Record<string, Score> = {
  "words count only above the pairs' mean (kept)": wordsAboveMean,
  'single-text z > 0 answer gate': zGate,
  'relevance (today)': (q, a) => relevance(a),
  'lexical share': (q, a) => best(a.hits, lexShare),
  'lexical share x agreement': (q, a) => best(a.hits, (h) => lexShare(h) * h.agreement),
  'semantic share': (q, a) => best(a.hits, (h) => h.sem),
  'best z': (q, a) => best(a.hits, (h) => h.z ?? -9),
  'best cosine': (q, a) => best(a.hits, (h) => h.cos ?? -9),
  'union coverage (query weight present in ns)': (q, a) => unionShare(a),
  'content words present in ns': (q, a) => wordsPresent(a),
  'best content-word share': (q, a) => best(a.hits, (h) => wordsShare(h, a)),
  'best rare-word cover': (q, a) => best(a.hits, (h) => rareCover(h, a)),
  'relevance x union coverage': (q, a) => relevance(a) * unionShare(a),
  'relevance x content words present': (q, a) => relevance(a) * wordsPresent(a),
  'lexical x agreement x words share': (q, a) => best(a.hits, (h) => lexShare(h) * h.agreement * wordsShare(h, a)),
  'agreement Phi(z)^(words matched)': agreementPerWord,
};

function recall10(q: Query, empty: boolean): number {
  if (!q.gold.length || empty) return 0;
  return Math.min(1, q.own.hits.slice(0, 10).reduce((sum, h) => sum + h.gold, 0) / q.gold.length);
}

function auc(own: number[], foreign: number[]): number {
  const sorted = [...foreign].sort((a, b) => a - b);
  let wins = 0;
  for (const v of own) {
    const below = sorted.filter((f) => f < v).length;
    const equal = sorted.filter((f) => f === v).length;
    wins += below + equal / 2;
  }
  return wins / (own.length * sorted.length);
}

function evaluate(all: Query[], f: Score) {
  const qs = all.filter((q) => q.foreign !== null);
  const own = qs.map((q) => f(q, q.own));
  const foreign = qs.map((q) => f(q, q.foreign!));
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const rAt = (t: number) => mean(qs.map((q, i) => recall10(q, own[i]! < t)));
  const today = mean(qs.map((q) => recall10(q, relevance(q.own) < 0.01)));
  const abstains = (t: number) => foreign.filter((s) => s < t).length / qs.length;
  let oracle = { t: undefined as number | undefined, fe: 0, r: today };
  for (const t of [...new Set([...own, ...foreign])].sort((a, b) => a - b)) {
    const r = rAt(t);
    if ((today - r) * 100 <= 1 + 1e-9 && abstains(t) > oracle.fe) oracle = { t, fe: abstains(t), r };
  }
  // The lowest threshold that answers 70% of the foreign queries with nothing.
  const sorted = [...foreign].sort((a, b) => a - b);
  let t70 = sorted[Math.min(sorted.length - 1, Math.ceil(0.7 * sorted.length) - 1)]!;
  if (abstains(t70) < 0.7) t70 = sorted.find((v) => v > t70) ?? t70 + 1e-9;
  return { auc: auc(own, foreign), today, floorDr: (rAt(0.01) - today) * 100, floorFe: abstains(0.01), oracle, cost70: (today - rAt(t70)) * 100 };
}

for (const path of process.argv.slice(2)) {
  const qs = readFileSync(path, 'utf8').split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as Query);
  console.log(`## ${path} (${qs.length} queries)`);
  console.log(`${'variant'.padEnd(48)} ${'AUC'.padStart(6)} ${'floor .01: dR@10'.padStart(17)} ${'foreign empty'.padStart(14)} ${'oracle t'.padStart(9)} ${'oracle fe'.padStart(10)} ${'dR'.padStart(6)} ${'R@10 cost of 70%'.padStart(17)}`);
  let today = 0;
  for (const [name, f] of Object.entries(VARIANTS)) {
    const e = evaluate(qs, f);
    today = e.today;
    const sign = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(1);
    console.log(
      `${name.padEnd(48)} ${e.auc.toFixed(3).padStart(6)} ${sign(e.floorDr).padStart(17)} ${((e.floorFe * 100).toFixed(1) + '%').padStart(14)} ` +
        `${(e.oracle.t === undefined ? '-' : e.oracle.t.toFixed(3)).padStart(9)} ${((e.oracle.fe * 100).toFixed(1) + '%').padStart(10)} ${sign((e.oracle.r - e.today) * 100).padStart(6)} ${sign(-e.cost70).padStart(17)}`,
    );
  }
  console.log(`R@10 today (floor 0.01): ${today.toFixed(3)}\n`);
}
