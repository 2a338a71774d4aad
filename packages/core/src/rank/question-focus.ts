import { foldHan } from '../search/fold-han.ts';
import { CHINESE_STOPWORDS, ENGLISH_STOPWORDS } from '../search/stopwords.ts';

/** "which", "what" and the words that may stand between it and what is asked about. */
const EN_WH = /\b(?:which|what)\s+((?:[\p{L}\p{N}'’-]+\s*){1,5})/giu;
const EN_KIND = /^(?:kinds?|types?|sorts?|brands?|of)$/;
/** Chinese question words that come before the thing asked about: 哪家快递, 什么颜色, 哪个城市. */
const ZH_WH = /(?:哪一?[家个种位些款本件只条部辆所座])|(?:什么(?!时候)样?的?)|(?:哪(?![里儿天年]))/gu; // not 哪里 (where), 什么时候 (when)
const HAN = /\p{Script=Han}/u;

let segmenter: Intl.Segmenter | undefined;

/**
 * The words a question asks about ("which courier", "what kitchen appliance", 哪家快递):
 * a memory that answers it names that kind of thing, so these words deserve more weight
 * than the rest of the question ("like", 喜欢). English: up to three words after
 * which/what before the first function word; Chinese: the segmenter word after 哪/什么,
 * in Simplified characters (a Traditional question is folded first).
 */
export function questionFocus(query: string): string[] {
  const focus: string[] = [];
  for (const match of query.matchAll(EN_WH)) {
    let taken = 0;
    for (const word of match[1]!.toLowerCase().split(/\s+/)) {
      if (!word || EN_KIND.test(word)) continue;
      if (ENGLISH_STOPWORDS.has(word.replace(/['’]/g, '')) || taken === 3) break;
      focus.push(word);
      taken++;
    }
  }
  if (HAN.test(query)) {
    segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
    const simplified = foldHan(query); // 哪家快遞 asks about 快递, as the index spells it
    for (const match of simplified.matchAll(ZH_WH)) {
      const rest = simplified.slice(match.index + match[0].length);
      for (const segment of segmenter.segment(rest)) {
        if (!segment.isWordLike) break;
        if (CHINESE_STOPWORDS.has(segment.segment)) continue;
        if (HAN.test(segment.segment)) focus.push(segment.segment);
        break;
      }
    }
  }
  return focus;
}
