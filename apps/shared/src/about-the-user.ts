/**
 * What a user says about themself, rewritten so any agent reads it right: "I prefer window
 * seats" becomes "The user prefers window seats". A memory is read later, by another agent
 * and in another conversation, where "I" would be whoever is speaking there. The apps store
 * the rewritten text and keep the original words in metadata (`said`).
 *
 * A small rule set, not a parser: I / I'm / I've / I'll / I'd, my, mine, me, myself, and the
 * verb right after "I" (past, modal and negative forms stay as they are). Text not in the
 * first person comes back unchanged.
 */

const WORD = /[A-Za-z]+(?:['’][A-Za-z]+)*/g;

/** "I'm" and the like, to the user's form. */
const CONTRACTED: Record<string, string> = { "i'm": 'is', "i've": 'has', "i'll": 'will', "i'd": 'would' };
/** Other first-person words, to the user's form. */
const OTHER: Record<string, string> = { my: "the user's", mine: "the user's", me: 'the user', myself: 'themself' };
/** Verbs whose third person is not the regular one. */
const IRREGULAR: Record<string, string> = { am: 'is', have: 'has', "haven't": "hasn't", do: 'does', "don't": "doesn't", go: 'goes', be: 'is' };
/** Words after "I" that already agree with "the user": modals and common past forms. */
const UNCHANGED = new Set(
  'can could will would shall should may might must was were did had went got made saw took came bought left met felt found gave knew thought told said ate drank flew drove wrote lost spent sold paid grew began became kept ran sat stood slept won heard taught brought built chose forgot'.split(' '),
);
/** Adverbs that may stand between "I" and its verb ("I usually fly"). */
const ADVERBS = new Set('also always usually often never really sometimes rarely mostly generally normally still just only actually mainly definitely strongly absolutely totally hardly mostly occasionally already even'.split(' '));

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** The text with first-person statements about the speaker rewritten about "the user". */
export function aboutTheUser(text: string): string {
  const words = [...text.matchAll(WORD)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0], key: m[0].toLowerCase().replace('’', "'") }));
  const edits: Edit[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const cap = (s: string) => (startsSentence(text, word.start) ? s[0]!.toUpperCase() + s.slice(1) : s);
    if (word.key === 'i') {
      edits.push({ start: word.start, end: word.end, text: cap('the user') });
      // The verb: the next word, after any adverbs, separated by spaces only.
      let j = i + 1;
      while (words[j] && adjacent(text, words[j - 1]!.end, words[j]!.start) && ADVERBS.has(words[j]!.key)) j++;
      const verb = words[j];
      if (verb && adjacent(text, words[j - 1]!.end, verb.start)) {
        const agreed = thirdPerson(verb.key);
        if (agreed !== verb.key) edits.push({ start: verb.start, end: verb.end, text: agreed });
        i = j;
      }
    } else if (word.key in CONTRACTED) {
      edits.push({ start: word.start, end: word.end, text: cap(`the user ${CONTRACTED[word.key]}`) });
    } else if (word.key in OTHER) {
      edits.push({ start: word.start, end: word.end, text: cap(OTHER[word.key]!) });
    }
  }
  let out = text;
  for (const edit of edits.reverse()) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

function adjacent(text: string, end: number, start: number): boolean {
  return /^[ \t]+$/.test(text.slice(end, start));
}

function startsSentence(text: string, at: number): boolean {
  return /(?:^|[.!?]\s+)$/.test(text.slice(0, at));
}

/** The form of a present-tense verb after "the user". */
function thirdPerson(verb: string): string {
  if (verb in IRREGULAR) return IRREGULAR[verb]!;
  if (UNCHANGED.has(verb) || /'|ed$/.test(verb) || !/^[a-z]+$/.test(verb)) return verb;
  if (/(?:s|x|z|ch|sh|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}
