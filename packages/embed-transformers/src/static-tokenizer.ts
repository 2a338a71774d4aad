/**
 * The tokenizer of a static embedding model, in plain JavaScript: what transformers.js's
 * `BertTokenizer` does with the bundled model's tokenizer.json (BertNormalizer with clean
 * text, padded CJK characters, lowercase and accents stripped; BertPreTokenizer; WordPiece
 * over a vocabulary of whole words, no post-processor), so that the static model runs
 * without transformers.js and onnxruntime (loading those costs ~0.3-0.4 s and ~60 MB; this
 * tokenizer is built from the same file in a few milliseconds). Only the shapes of
 * tokenizer.json that the static models use are accepted ({@link staticTokenizerFrom}); the
 * equality test (test/static-model.test.ts) runs both on the same corpus.
 */
import type { TokenizerVocabulary } from './unknown-tokens.ts';

/** Punctuation as BERT's pre-tokenizer splits on it (Unicode P plus ASCII symbols). */
const PUNCTUATION = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const WORDS = new RegExp(`[^\\s${PUNCTUATION}]+|[${PUNCTUATION}]`, 'gu');
/** Control and format characters BERT's normalizer drops (tab, newline, return are whitespace). */
const CONTROL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/u;
const WHITESPACE = /^\s$/;
const NONSPACING_MARK = /\p{Mn}/gu;

/** CJK ideographs BERT surrounds with spaces (one UTF-16 unit at a time, as transformers.js does). */
function isChineseChar(cp: number): boolean {
  return (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0xf900 && cp <= 0xfaff);
}

/** The parts of tokenizer.json this tokenizer reads. */
interface TokenizerJson {
  normalizer?: { type?: string; clean_text?: boolean; handle_chinese_chars?: boolean; strip_accents?: boolean | null; lowercase?: boolean } | null;
  pre_tokenizer?: { type?: string } | null;
  post_processor?: unknown;
  added_tokens?: Array<{ id: number; content: string; special?: boolean; normalized?: boolean; lstrip?: boolean; rstrip?: boolean }>;
  model?: { type?: string; unk_token?: string; continuing_subword_prefix?: string; max_input_chars_per_word?: number; vocab?: Record<string, number> | Map<string, number> };
}

/** One `"word": id` of a vocabulary object and what follows it (`,` or the object's end), from where the last one ended. */
const VOCAB_ENTRY = /\s*("(?:[^"\\]|\\.)*")\s*:\s*(\d+)\s*([,}])/y;

/**
 * A tokenizer.json, parsed as JSON.parse parses it but for `model.vocab`, which comes back
 * as a Map read straight from the text: a 50,000-word vocabulary as a JSON object is a
 * dictionary-mode object of its own, built only to be copied into the Map the tokenizer
 * keeps (the bundled English model: peak resident 66 -> 54 MB, 91 -> 37 ms of CPU; issue
 * 32). A vocabulary of another shape (not `{"word": id, ...}`, or not the first `"vocab"`
 * key of the file) is left to JSON.parse.
 */
export function readTokenizerJson(text: string): TokenizerJson {
  const key = text.indexOf('"vocab":');
  const open = key < 0 ? -1 : text.slice(key + 8).search(/\S/) + key + 8;
  if (open < key + 8 || text[open] !== '{') return JSON.parse(text) as TokenizerJson;
  const vocab = new Map<string, number>();
  let at = open + 1;
  if (/^\s*\}/.test(text.slice(at, at + 64))) at = text.indexOf('}', at) + 1;
  else {
    for (;;) {
      VOCAB_ENTRY.lastIndex = at;
      const entry = VOCAB_ENTRY.exec(text);
      if (!entry) return JSON.parse(text) as TokenizerJson;
      const quoted = entry[1]!;
      vocab.set(quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1), Number(entry[2]));
      at = VOCAB_ENTRY.lastIndex;
      if (entry[3] === '}') break;
    }
  }
  const rest = JSON.parse(`${text.slice(0, open)}{}${text.slice(at)}`) as TokenizerJson;
  const placed = rest.model?.vocab;
  if (!placed || placed instanceof Map || Object.keys(placed).length > 0) return JSON.parse(text) as TokenizerJson; // not model.vocab
  rest.model!.vocab = vocab;
  return rest;
}

/** Token ids of a batch, padded to its longest text, and the attention mask. */
export interface TokenizedBatch {
  /** Row-major [rows x length]. */
  ids: Int32Array;
  mask: Uint8Array;
  rows: number;
  length: number;
}

/** A BERT word-level tokenizer (the static models' vocabulary has no `##` pieces). */
export class StaticTokenizer implements TokenizerVocabulary {
  readonly all_special_ids: number[];
  readonly model: { vocab: string[]; unk_token_id: number };
  readonly #ids: Map<string, number>;
  readonly #unk: number;
  readonly #maxChars: number;
  readonly #maxTokens: number;
  /** Added tokens ([PAD], [UNK]) are matched in the raw text before normalizing. */
  readonly #added: RegExp | undefined;
  readonly #addedIds: Map<string, number>;

  constructor(ids: Map<string, number>, unk: number, added: Map<string, number>, special: number[], maxChars: number, maxTokens: number) {
    this.#ids = ids;
    this.#unk = unk;
    this.#maxChars = maxChars;
    this.#maxTokens = maxTokens;
    this.#addedIds = added;
    const escaped = [...added.keys()].sort((a, b) => b.length - a.length).map((token) => token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    this.#added = escaped.length ? new RegExp(`(${escaped.join('|')})`) : undefined;
    const vocab: string[] = [];
    for (const [token, id] of ids) vocab[id] = token;
    this.model = { vocab, unk_token_id: unk };
    this.all_special_ids = special;
  }

  /** The token ids of one text (truncated to the model's maximum length). */
  encode(text: string): number[] {
    const out: number[] = [];
    const sections = this.#added ? text.split(this.#added) : [text];
    for (let s = 0; s < sections.length; s++) {
      const section = sections[s]!;
      if (!section) continue;
      // split() with a capture group puts the matched added tokens at odd indexes.
      const added = s % 2 === 1 ? this.#addedIds.get(section) : undefined;
      if (added !== undefined) {
        out.push(added);
        continue;
      }
      for (const word of normalize(section).match(WORDS) ?? []) out.push(this.#wordId(word));
    }
    return out.length > this.#maxTokens ? out.slice(0, this.#maxTokens) : out;
  }

  /** Whole words only: WordPiece over a vocabulary without continuation pieces gives a word its id or [UNK]. */
  #wordId(word: string): number {
    const id = this.#ids.get(word);
    if (id === undefined) return this.#unk;
    // WordPiece's limit counts code points; a vocabulary word is far shorter.
    return word.length > this.#maxChars && [...word].length > this.#maxChars ? this.#unk : id;
  }

  /** Token ids of several texts, padded with 0 to the longest (the mask says which are real). */
  encodeBatch(texts: readonly string[]): TokenizedBatch {
    const encoded = texts.map((text) => this.encode(text));
    const length = Math.max(1, ...encoded.map((ids) => ids.length));
    const ids = new Int32Array(encoded.length * length);
    const mask = new Uint8Array(encoded.length * length);
    encoded.forEach((row, r) => {
      ids.set(row, r * length);
      mask.fill(1, r * length, r * length + row.length);
    });
    return { ids, mask, rows: encoded.length, length };
  }
}

/** Printable ASCII: nothing for BertNormalizer to drop, pad or strip but case. */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** BertNormalizer: drop control characters, whitespace to spaces, CJK padded, lowercase, accents stripped. */
function normalize(text: string): string {
  if (PLAIN_ASCII.test(text)) return text.toLowerCase(); // most English text: ~3x faster than the general path
  let cleaned = '';
  for (const char of text) {
    const cp = char.charCodeAt(0);
    if (cp === 0 || cp === 0xfffd) continue;
    if (char !== '\t' && char !== '\n' && char !== '\r' && CONTROL.test(char)) continue;
    cleaned += WHITESPACE.test(char) ? ' ' : char;
  }
  let padded = '';
  for (let i = 0; i < cleaned.length; i++) {
    const char = cleaned[i]!;
    padded += isChineseChar(char.charCodeAt(0)) ? ` ${char} ` : char;
  }
  return padded.toLowerCase().normalize('NFD').replace(NONSPACING_MARK, '');
}

/**
 * A {@link StaticTokenizer} for a parsed tokenizer.json ({@link readTokenizerJson}), or undefined when the file is not
 * of the one shape it reproduces exactly (BertNormalizer with every option on,
 * BertPreTokenizer, WordPiece without continuation pieces, no post-processor): such a
 * model runs through transformers.js instead.
 */
export function staticTokenizerFrom(json: TokenizerJson, maxTokens: number): StaticTokenizer | undefined {
  const { normalizer, pre_tokenizer: pre, model } = json;
  if (normalizer?.type !== 'BertNormalizer' || !normalizer.clean_text || !normalizer.handle_chinese_chars || !normalizer.lowercase || normalizer.strip_accents === false) return undefined;
  if (pre?.type !== 'BertPreTokenizer' || json.post_processor != null) return undefined;
  if (model?.type !== 'WordPiece' || !model.vocab || model.unk_token === undefined) return undefined;
  const prefix = model.continuing_subword_prefix ?? '##';
  const { vocab } = model;
  const ids = vocab instanceof Map ? vocab : new Map(Object.entries(vocab));
  for (const token of ids.keys()) {
    if (prefix && token.startsWith(prefix)) return undefined; // subword pieces: not a whole-word vocabulary
  }
  const unk = ids.get(model.unk_token);
  if (unk === undefined) return undefined;
  const added = new Map<string, number>();
  const special: number[] = [];
  for (const token of json.added_tokens ?? []) {
    if (token.normalized || token.lstrip || token.rstrip) return undefined;
    added.set(token.content, token.id);
    if (token.special) special.push(token.id);
  }
  return new StaticTokenizer(ids, unk, added, special, model.max_input_chars_per_word ?? 100, maxTokens);
}
