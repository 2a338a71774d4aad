import { tokenize } from '../search/tokenize.ts';

/**
 * Words that name the subject every memory is about: an agent's memories are about its
 * user, whether or not each one says so ("The user plays the cello", "Lives in Lyon",
 * "用户住在上海"). A query saying "the user" therefore tells no memory from another, and a
 * memory that shares only that word with it ("which drink does the user like") has no
 * evidence of being about the question. idf cannot see this on its own: in a store where
 * few memories spell the subject out, the word is rare and would weigh the most.
 *
 * These words count for nothing in a hit's lexical evidence (neither matched nor missed,
 * see `Bm25Index.coverage`); ranking still reads them. A query made only of them has no
 * lexical evidence: what a store knows about its user as a whole is its profile.
 */
export const SUBJECT_WORDS: readonly string[] = ['user', 'users', '用户'];

/** The index tokens of {@link SUBJECT_WORDS} that stand for the whole word (not a CJK word's single characters). */
export const SUBJECT_TOKENS: ReadonlySet<string> = new Set(SUBJECT_WORDS.flatMap((word) => tokenize(word).filter((token) => token.length > 1 || word.length === 1)));
