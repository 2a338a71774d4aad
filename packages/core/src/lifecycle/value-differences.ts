import { tokenize } from '../search/tokenize.ts';

/** The kinds of value in which two near-duplicate memories can differ. */
export type ValueKind = 'number' | 'date' | 'name' | 'negation';

const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec';
const WEEKDAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
/** Dates: ISO, "4 March", "March 4(th)", month or weekday names; Chinese 3月4日, 星期一, 周一, 今天-style words excluded. */
const DATE = new RegExp(
  [
    String.raw`\d{4}-\d{1,2}-\d{1,2}`,
    String.raw`\d{1,2}/\d{1,2}(?:/\d{2,4})?`,
    String.raw`\b(?:\d{1,2}(?:st|nd|rd|th)?\s+)?(?:${MONTHS})\b(?:\s+\d{1,2}(?:st|nd|rd|th)?\b)?(?:,?\s+\d{4})?`,
    String.raw`\b(?:${WEEKDAYS})s?\b`,
    String.raw`(?:\d{2,4}年)?\d{1,2}月(?:\d{1,2}[日号])?`,
    String.raw`(?:星期|礼拜|周)[一二三四五六日天]`,
  ].join('|'),
  'giu',
);
const CHINESE_NUMERAL = '[零〇一二两三四五六七八九十百千万]';
/** Numbers: digits (with separators and a unit stuck to them), or Chinese numerals before a measure word. */
const NUMBER = new RegExp(String.raw`\d+(?:[.,:]\d+)*|${CHINESE_NUMERAL}+(?=[个位岁年月天周次块元台只张本件口层楼点号分])`, 'gu');
/** Names: capitalized Latin words not opening a sentence; Chinese places by their suffix. */
const LATIN_NAME = /(?<![.!?]\s|^)\b\p{Lu}[\p{Ll}\p{Lu}'’-]+/gu;
const CHINESE_PLACE = /[\p{Script=Han}]{1,4}(?:市|省|县|区|路|街|镇|村)/gu;
/** Negation words, English and Chinese. */
const NEGATION = /\b(?:not|no|never|none|nobody|nothing|neither|nor|without|stopped|cannot|no longer)\b|n['’]t\b|不|没|别|无|未|非/iu;

/** The values a memory states, by kind, and the words around them. */
export interface StatedValues {
  numbers: Set<string>;
  dates: Set<string>;
  names: Set<string>;
  negated: boolean;
  /** BM25 tokens of the text with the values taken out: what the near-duplicate test compares. */
  words: Set<string>;
  /** The whole text, lower case: a name the other memory has in other case ("LYON") is no difference. */
  lower: string;
}

/** Reads the values out of a memory's text. */
export function statedValues(content: string): StatedValues {
  const lower = content.normalize('NFKC').toLowerCase();
  let rest = content.normalize('NFKC');
  const take = (pattern: RegExp, normalize: (s: string) => string = (s) => s.toLowerCase()) => {
    const found = new Set<string>();
    rest = rest.replace(pattern, (match) => {
      found.add(normalize(match).replace(/\s+/g, ' ').trim());
      return ' ';
    });
    return found;
  };
  const negated = NEGATION.test(rest);
  const dates = take(DATE);
  const names = new Set([...take(LATIN_NAME), ...take(CHINESE_PLACE)]);
  const numbers = take(NUMBER);
  return { numbers, dates, names, negated, words: new Set(tokenize(rest)), lower };
}

/** Share of the words two memories have in common (Jaccard), values left out. */
export function wordOverlap(a: StatedValues, b: StatedValues): number {
  if (a.words.size === 0 || b.words.size === 0) return 0;
  let shared = 0;
  for (const word of a.words) if (b.words.has(word)) shared++;
  return shared / (a.words.size + b.words.size - shared);
}

/** The kinds of value in which two memories differ (empty: they state the same values). */
export function valueDifferences(a: StatedValues, b: StatedValues): ValueKind[] {
  const differs: ValueKind[] = [];
  if (!sameSet(a.numbers, b.numbers)) differs.push('number');
  if (!sameSet(a.dates, b.dates)) differs.push('date');
  if (![...a.names].every((name) => b.lower.includes(name)) || ![...b.names].every((name) => a.lower.includes(name))) differs.push('name');
  if (a.negated !== b.negated) differs.push('negation');
  return differs;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const value of a) if (!b.has(value)) return false;
  return true;
}
