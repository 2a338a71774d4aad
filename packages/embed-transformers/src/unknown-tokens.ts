/** The parts of a transformers.js tokenizer the guard reads. */
export interface TokenizerVocabulary {
  /** Token ids that are not text: `[CLS]`, `[SEP]`, `[PAD]`, `<s>`... (and `[UNK]`, which the guard counts separately). */
  all_special_ids: number[];
  model: { vocab: ArrayLike<string | undefined>; unk_token_id?: number | undefined };
}

/** A token that stands for a word or part of one: letters or digits. */
const WORD_LIKE = /[\p{L}\p{N}]/u;
/** A punctuation mark or symbol: BERT-style pre-tokenizers make each one a token of its own. */
const MARK = /[^\p{L}\p{N}\p{Z}\p{C}]/gu;

const UNSEEN = 0;
const WORD = 1;
const OTHER = 2;

/**
 * Measures how much of a tokenized text the model does not know: the share of its
 * word-like tokens (letters or digits, plus the unknown token) that are the unknown token.
 * A static model knows one language: Chinese or emoji text is all `[UNK]` and pools to a
 * zero (then NaN) vector; a mostly-unknown text would get the direction of its one known
 * word. Works on the ids the model is run on, so a text is tokenized once.
 */
export class UnknownTokenGuard {
  readonly #unk: number;
  readonly #special: Set<number>;
  readonly #vocab: ArrayLike<string | undefined>;
  /** Per token id: not yet looked at, word-like, or not (filled as ids are met). */
  readonly #kind: Uint8Array;
  /** The punctuation marks the vocabulary has (a mark it lacks becomes [UNK]). */
  readonly #marks = new Set<string>();

  constructor(tokenizer: TokenizerVocabulary) {
    this.#unk = tokenizer.model.unk_token_id ?? -1;
    this.#special = new Set(tokenizer.all_special_ids.filter((id) => id !== this.#unk));
    this.#vocab = tokenizer.model.vocab;
    this.#kind = new Uint8Array(Math.max(this.#vocab.length, 1));
    for (let id = 0; id < this.#vocab.length; id++) {
      const token = this.#vocab[id];
      // One code point (one UTF-16 unit, or a surrogate pair), checked without spreading 50,000 tokens.
      if (token !== undefined && (token.length === 1 || (token.length === 2 && token.codePointAt(0)! > 0xffff)) && !WORD_LIKE.test(token)) this.#marks.add(token);
    }
  }

  /**
   * Share (0..1) of unknown tokens among the word-like tokens of one row of a padded
   * batch; 1 when the row has no word-like token (empty, punctuation, emoji for most
   * vocabularies). Given the row's `text`, the [UNK]s that stand for punctuation marks
   * the vocabulary lacks are not counted as words (the bundled static model has no
   * marks: "e-mail, 15:00" would otherwise be four unknown words of six).
   */
  unknownFraction(ids: ArrayLike<number | bigint>, mask: ArrayLike<number | bigint>, from: number, length: number, text?: string): number {
    let words = 0;
    let unknown = 0;
    for (let i = from; i < from + length; i++) {
      if (!Number(mask[i])) continue;
      const id = Number(ids[i]);
      if (id === this.#unk) {
        unknown++;
        words++;
      } else if (!this.#special.has(id) && this.#isWordLike(id)) words++;
    }
    if (text !== undefined && unknown > 0) {
      const missingMarks = Math.min(unknown, this.#missingMarks(text));
      unknown -= missingMarks;
      words -= missingMarks;
    }
    return words === 0 ? 1 : unknown / words;
  }

  /** How many of the text's punctuation marks the vocabulary lacks. */
  #missingMarks(text: string): number {
    let missing = 0;
    for (const [mark] of text.matchAll(MARK)) if (!this.#marks.has(mark)) missing++;
    return missing;
  }

  #isWordLike(id: number): boolean {
    let kind = id < this.#kind.length ? this.#kind[id]! : UNSEEN;
    if (kind === UNSEEN) {
      kind = WORD_LIKE.test(this.#vocab[id] ?? '') ? WORD : OTHER;
      if (id < this.#kind.length) this.#kind[id] = kind;
    }
    return kind === WORD;
  }
}
