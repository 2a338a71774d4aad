import { count, create, insertMultiple, remove, search, type Orama } from '@orama/orama';
import { tokenize } from './tokenize.ts';

/** Marks the end of every token: Orama's radix lookup matches prefixes, BM25 wants whole words. */
const END = '\u0003';

const schema = { content: 'string' } as const;

/** A scored lexical match. */
export interface TextHit {
  id: string;
  score: number;
}

/**
 * BM25 over one namespace's memories, on Orama with zeromem's tokenizer (English words
 * without stopwords; Chinese words plus character bigrams). Whole-word matching only.
 */
export class TextIndex {
  readonly #db: Orama<typeof schema>;

  constructor() {
    this.#db = create({
      schema,
      components: {
        tokenizer: {
          language: 'multi',
          normalizationCache: new Map(),
          tokenize: (raw: string) => tokenize(raw).map((token) => token + END),
        },
      },
    });
  }

  /** Number of indexed memories. */
  get size(): number {
    return count(this.#db);
  }

  /** Adds memories (their ids must not be in the index). */
  addMany(docs: Array<{ id: string; content: string }>): void {
    if (docs.length) insertMultiple(this.#db, docs, 1000) as unknown;
  }

  /** Removes a memory if it is there. */
  remove(id: string): void {
    remove(this.#db, id) as unknown;
  }

  /** The `limit` best BM25 matches, best first. */
  search(query: string, limit: number): TextHit[] {
    if (tokenize(query).length === 0) return [];
    const result = search(this.#db, {
      term: query,
      properties: ['content'],
      limit,
      threshold: 1, // any query word may match: recall, not boolean AND
      relevance: { k: 1.2, b: 0.75, d: 0.5 },
    }) as { hits: Array<{ id: string; score: number }> };
    return result.hits.map((hit) => ({ id: hit.id, score: hit.score }));
  }
}
