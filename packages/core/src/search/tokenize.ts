import { stemmer } from 'stemmer';
import { foldHan } from './fold-han.ts';
import { CHINESE_STOPWORDS, ENGLISH_STOPWORDS } from './stopwords.ts';

/** Han, Hiragana, Katakana and Hangul: scripts written without spaces between words. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
/** Words the English (Porter) stemmer is for: ASCII letters only. */
const ENGLISH_WORD = /^[a-z]+$/;

let segmenter: Intl.Segmenter | undefined;

/**
 * Tokens for the BM25 index and for queries. Latin-script text: lower-cased NFKC words
 * without English stopwords or apostrophes ("I'm" -> "im", dropped), each English word
 * followed by its Porter stem when that differs ("seats" -> seats, seat), so either form
 * finds the other and the exact form still scores higher. CJK runs: the words
 * of `Intl.Segmenter('zh')`, single characters and character bigrams (less Chinese
 * function words): bigrams and characters still meet where the segmenter cuts a query
 * and a memory differently (MADial-zh R@10: words + bigrams 0.675, all three 0.695).
 * Traditional characters are folded to Simplified first (`foldHan`), so either script
 * finds the other (MADial-zh with its questions in Traditional: 0.598 without, 0.695 with).
 */
export function tokenize(text: string): string[] {
  const normalized = foldHan(text.normalize('NFKC').toLowerCase());
  const tokens: string[] = [];
  for (const match of normalized.matchAll(WORD)) {
    const word = match[0].replace(/['’]/g, '');
    if (!CJK.test(word)) {
      if (!ENGLISH_STOPWORDS.has(word)) addLatinWord(word, tokens);
      continue;
    }
    addCjkTokens(word, tokens);
  }
  return tokens;
}

/** Stems of recent words: text repeats its words, and the stemmer's rules cost more than a lookup. */
const stems = new Map<string, string>();
const STEM_CACHE_SIZE = 50_000;

function addLatinWord(word: string, tokens: string[]): void {
  tokens.push(word);
  if (!ENGLISH_WORD.test(word)) return;
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size >= STEM_CACHE_SIZE) stems.clear();
    stem = stemmer(word);
    stems.set(word, stem);
  }
  if (stem !== word) tokens.push(stem);
}

function addCjkTokens(run: string, tokens: string[]): void {
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  for (const segment of segmenter.segment(run)) {
    if (!segment.isWordLike) continue;
    const word = segment.segment;
    if (!CJK.test(word)) {
      if (!ENGLISH_STOPWORDS.has(word)) addLatinWord(word, tokens);
      continue;
    }
    if (!CHINESE_STOPWORDS.has(word)) tokens.push(word);
  }
  const chars = Array.from(run);
  for (const char of chars) if (CJK.test(char) && !CHINESE_STOPWORDS.has(char)) tokens.push(char);
  // Bigrams over the whole run, across segment borders.
  for (let i = 0; i + 1 < chars.length; i++) {
    if (CJK.test(chars[i]!) && CJK.test(chars[i + 1]!)) tokens.push(chars[i]! + chars[i + 1]!);
  }
}
