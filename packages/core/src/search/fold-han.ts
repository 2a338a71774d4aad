import { Converter } from 'opencc-js/t2cn';

const HAN = /\p{Script=Han}/u;

let toSimplified: ((text: string) => string) | undefined;

/**
 * Chinese text in Simplified characters: Traditional characters and their Taiwan and
 * Hong Kong variants folded by OpenCC's tables (`opencc-js`, 快遞 -> 快递, 裡/裏 -> 里), so a
 * memory written in one script is found by a question in the other. Text without Han
 * characters is returned as it is (no table lookup).
 */
export function foldHan(text: string): string {
  if (!HAN.test(text)) return text;
  const fold = (toSimplified ??= Converter({ from: 't', to: 'cn' }));
  return fold(text);
}
