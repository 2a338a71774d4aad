/**
 * Redaction: detection precision and recall on a generated set (positives in several
 * written forms, and look-alikes that must not match), and what redaction costs a write.
 *
 *   npx tsx test/bench/redaction-quality.ts            # writes test/bench/results/redaction.json
 *
 * Positives are generated valid (Luhn, mod 97, GB 11643 check characters), inside Chinese
 * and English sentences; look-alikes are near misses (a broken check digit, an impossible
 * birth date, too few digits, order numbers, dates, versions, @-mentions). A found value
 * counts as a true positive only with the right detector and the exact span.
 */
import { writeFileSync } from 'node:fs';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { openMemory, type RedactionOptions } from '../../packages/core/src/index.ts';
import { DETECTORS, findAll } from '../../packages/core/src/redact/detectors.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';
import { median, summarize } from './stats.ts';

const random = prng(20240315);
const int = (n: number) => Math.floor(random() * n);
const pick = <T,>(items: readonly T[] | string): T => items[int(items.length)] as T;
const digitsOf = (n: number) => Array.from({ length: n }, () => String(int(10))).join('');

function luhnDigit(body: string): string {
  for (let d = 0; d < 10; d++) {
    const n = body + d;
    let sum = 0;
    for (let i = 0; i < n.length; i++) {
      let x = Number(n[n.length - 1 - i]);
      if (i % 2) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
      sum += x;
    }
    if (sum % 10 === 0) return String(d);
  }
  throw new Error('unreachable');
}
function ibanCheck(country: string, bban: string): string {
  const numeric = (bban + country + '00').replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let r = 0;
  for (const d of numeric) r = (r * 10 + Number(d)) % 97;
  return String(98 - r).padStart(2, '0');
}
const W = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const idCheck = (body: string) => '10X98765432'[[...body].reduce((s, d, i) => s + Number(d) * W[i]!, 0) % 11]!;
const group = (s: string, size: number, sep: string) => s.match(new RegExp(`.{1,${size}}`, 'g'))!.join(sep);

const positives: Record<string, () => string> = {
  email: () => `${pick(['wang.li', 'zhang_san', 'support+tickets', 'A.Smith', 'li99'])}@${pick(['example.com', 'mail.example.cn', 'corp.example.co.uk', 'qq.com'])}`,
  phone: () => {
    const mobile = `1${pick('3456789')}${digitsOf(9)}`;
    return pick([
      () => mobile,
      () => `+86 ${mobile.slice(0, 3)} ${mobile.slice(3, 7)} ${mobile.slice(7)}`,
      () => `${mobile.slice(0, 3)}-${mobile.slice(3, 7)}-${mobile.slice(7)}`,
      () => `+86-${mobile}`,
      () => `+49 30 ${digitsOf(7)}`,
      () => `+1 415-555-${digitsOf(4)}`,
      () => `+44 20 ${digitsOf(4)} ${digitsOf(4)}`,
      () => `(+86) ${mobile}`, // a written form the detector does not cover: counted as missed
    ])();
  },
  card: () => {
    const body = pick(['4', '51', '37', '6011', '62']) ;
    const len = body === '37' ? 15 : 16;
    const number = body + digitsOf(len - body.length - 1);
    const full = number + luhnDigit(number);
    return pick([() => full, () => group(full, 4, ' '), () => group(full, 4, '-')])();
  },
  iban: () => {
    const [country, bban] = pick([
      ['DE', digitsOf(18)],
      ['GB', `WEST${digitsOf(14)}`],
      ['FR', digitsOf(23)],
      ['NL', `ABNA${digitsOf(10)}`],
    ] as const);
    const iban = `${country}${ibanCheck(country, bban)}${bban}`;
    return pick([() => iban, () => group(iban, 4, ' ')])();
  },
  cn_id: () => {
    const year = 1950 + int(60);
    const month = String(1 + int(12)).padStart(2, '0');
    const day = String(1 + int(28)).padStart(2, '0');
    const body = `${pick(['110105', '440305', '310104', '510107'])}${year}${month}${day}${digitsOf(3)}`;
    return body + idCheck(body);
  },
};

const lookAlikes: Array<() => string> = [
  () => { const c = `4${digitsOf(14)}`; const good = luhnDigit(c); return c + ((Number(good) + 1) % 10); }, // card failing Luhn
  () => { const b = `110105${1960 + int(40)}0${1 + int(9)}1${int(9)}${digitsOf(3)}`; const good = idCheck(b); return b + (good === '0' ? '1' : '0'); }, // ID with a wrong check character
  () => { const b = `11010519${50 + int(40)}0230${digitsOf(3)}`; return b + idCheck(b); }, // valid check character, Feb 30
  () => { const bban = digitsOf(18); const good = ibanCheck('DE', bban); return `DE${String((Number(good) + 1) % 100).padStart(2, '0')}${bban}`; }, // IBAN with wrong check digits
  () => `TS${2020 + int(6)}${digitsOf(4)}`, // work order
  () => `${2020 + int(6)}-0${1 + int(9)}-1${int(9)}`, // date
  () => `${digitsOf(1)}${digitsOf(9)}`, // 10 digits: too short for a mobile
  () => `2${digitsOf(10)}`, // 11 digits, not 1[3-9]
  () => `1${pick('012')}${digitsOf(9)}`, // 11 digits, 10/11/12 prefix
  () => `v${int(9)}.${int(20)}.${int(50)}`,
  () => `${2020 + int(6)}${digitsOf(10)}`, // a 14-digit timestamp
  () => `@${pick(['wang', 'li', 'support'])}`,
  () => `${pick(['wang', 'li'])}@localhost`,
  () => `${digitsOf(3)}-${digitsOf(4)}`,
];

const templates = [
  (v: string) => `用户王先生反馈充电口接触不良，联系方式 ${v}，约定周三回访`,
  (v: string) => `Customer asked us to use ${v} for the refund.`,
  (v: string) => `备注：${v}。`,
  (v: string) => `${v}`,
  (v: string) => `(${v})`,
];

interface Sample {
  text: string;
  expected?: { detector: string; start: number; end: number };
}
const samples: Sample[] = [];
const PER_DETECTOR = 400;
for (const [detector, make] of Object.entries(positives)) {
  for (let i = 0; i < PER_DETECTOR; i++) {
    const value = make();
    const template = pick(templates);
    const text = template(value);
    const start = text.indexOf(value);
    samples.push({ text, expected: { detector, start, end: start + value.length } });
  }
}
for (let i = 0; i < PER_DETECTOR * 5; i++) samples.push({ text: pick(templates)(pick(lookAlikes)()) });

const counts = Object.fromEntries(DETECTORS.map((d) => [d, { tp: 0, fp: 0, fn: 0 }]));
const falsePositives: string[] = [];
const missed: string[] = [];
for (const sample of samples) {
  const found = findAll(sample.text, DETECTORS, []);
  let hit = false;
  for (const f of found) {
    const e = sample.expected;
    if (e && f.detector === e.detector && f.start === e.start && f.end === e.end) {
      counts[f.detector]!.tp++;
      hit = true;
    } else {
      counts[f.detector]!.fp++;
      if (falsePositives.length < 12) falsePositives.push(`${f.detector}: ${sample.text.slice(f.start, f.end)}`);
    }
  }
  if (sample.expected && !hit) {
    counts[sample.expected.detector]!.fn++;
    if (missed.length < 12) missed.push(`${sample.expected.detector}: ${sample.text.slice(sample.expected.start, sample.expected.end)}`);
  }
}
const round = (x: number) => Math.round(x * 1000) / 1000;
const quality = Object.fromEntries(
  Object.entries(counts).map(([d, c]) => [d, { ...c, precision: round(c.tp / (c.tp + c.fp || 1)), recall: round(c.tp / (c.tp + c.fn || 1)) }]),
);

// Write cost: one remember() at a time, 2,000 writes, 30% of them holding personal data.
async function writeRun(redaction: RedactionOptions | undefined): Promise<{ p50: number; p95: number; perSecond: number }> {
  const memory = await openMemory({ indexedDB: new IDBFactory(), IDBKeyRange, name: 'bench', ...(redaction ? { redaction } : {}) });
  const local = prng(7);
  const ns = { userId: 'bench' };
  const samplesMs: number[] = [];
  const started = performance.now();
  for (let i = 0; i < 2000; i++) {
    const pii = local() < 0.3 ? ` 电话 1380013${String(i).padStart(4, '0')}，邮箱 user${i}@example.com` : '';
    const content = `工单 TS2024${String(i).padStart(5, '0')}：客户反馈充电口接触不良，已安排周三回访。${pii} Follow-up note ${i} about the charging port.`;
    const t0 = performance.now();
    await memory.remember({ namespace: ns, content });
    samplesMs.push(performance.now() - t0);
  }
  const total = performance.now() - started;
  await memory.close();
  const s = summarize(samplesMs);
  return { p50: s.p50, p95: s.p95, perSecond: Math.round(2000 / (total / 1000)) };
}

const RUNS = 5;
const variants: Record<string, RedactionOptions | undefined> = {
  off: undefined,
  'mask (all detectors)': {},
  'hash (all detectors)': { detectors: { email: 'hash', phone: 'hash', card: 'hash', iban: 'hash', cn_id: 'hash' }, hashKey: 'bench-key-0123456789' },
};
const runs: Record<string, Array<{ p50: number; p95: number; perSecond: number }>> = {};
for (let r = 0; r < RUNS; r++) {
  // Interleaved so machine load hits every variant alike.
  for (const [name, options] of Object.entries(variants)) (runs[name] ??= []).push(await writeRun(options));
}
const cost = Object.fromEntries(
  Object.entries(runs).map(([name, all]) => [name, { p50: median(all.map((x) => x.p50)), p95: median(all.map((x) => x.p95)), perSecond: median(all.map((x) => x.perSecond)), runs: all }]),
);

console.log('\nDetection on', samples.length, 'samples (', PER_DETECTOR, 'positives per detector,', PER_DETECTOR * 5, 'look-alikes)');
console.log('| detector | TP | FP | FN | precision | recall |\n| --- | --- | --- | --- | --- | --- |');
for (const [d, q] of Object.entries(quality)) console.log(`| ${d} | ${q.tp} | ${q.fp} | ${q.fn} | ${q.precision} | ${q.recall} |`);
console.log('\nfalse positives (first):', falsePositives, '\nmissed (first):', missed);
console.log(`\nremember() one at a time, 2,000 writes, medians of ${RUNS} runs (fake-indexeddb, Node)`);
console.log('| redaction | p50 ms | p95 ms | writes/s | p50 vs off |\n| --- | --- | --- | --- | --- |');
const off = cost.off!.p50;
for (const [name, c] of Object.entries(cost)) console.log(`| ${name} | ${c.p50} | ${c.p95} | ${c.perSecond} | ${Math.round((c.p50 / off) * 100) / 100} |`);
writeFileSync(new URL('./results/redaction.json', import.meta.url), `${JSON.stringify({ samples: samples.length, quality, falsePositives, missed, cost }, null, 2)}\n`);
