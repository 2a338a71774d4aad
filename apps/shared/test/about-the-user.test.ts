/**
 * What a user says about themself is stored so any agent reads it right: "I prefer window
 * seats" becomes "The user prefers window seats" (the apps keep the original words in
 * metadata). Both apps store through the one rewrite.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { aboutTheUser } from '../src/about-the-user.ts';

describe('aboutTheUser', () => {
  it.each([
    ['I prefer window seats', 'The user prefers window seats'],
    ['i prefer window seats.', 'The user prefers window seats.'],
    ["I'm vegetarian", 'The user is vegetarian'],
    ['I am allergic to peanuts', 'The user is allergic to peanuts'],
    ["I've got two cats", 'The user has got two cats'],
    ['I have a dog named Rex', 'The user has a dog named Rex'],
    ['I was born in Lyon', 'The user was born in Lyon'],
    ["I don't eat meat", "The user doesn't eat meat"],
    ['I do not drink coffee', 'The user does not drink coffee'],
    ["I'll be in Berlin next week", 'The user will be in Berlin next week'],
    ["I'd rather fly at night", 'The user would rather fly at night'],
    ['I can speak Spanish', 'The user can speak Spanish'],
    ['I usually fly with KLM', 'The user usually flies with KLM'],
    ['I always watch movies on Fridays', 'The user always watches movies on Fridays'],
    ['I go to the gym', 'The user goes to the gym'],
    ['I study Japanese', 'The user studies Japanese'],
    ['I play chess', 'The user plays chess'],
    ['my wife is called Ana', "The user's wife is called Ana"],
    ['My birthday is in May and I like cake', "The user's birthday is in May and the user likes cake"],
    ['call me Sam', 'call the user Sam'],
    ['the blue one is mine', "the blue one is the user's"],
    ['I prefer window seats and I hate delays', 'The user prefers window seats and the user hates delays'],
    ['I liked the hotel in Rome', 'The user liked the hotel in Rome'],
  ])('%s -> %s', (said, stored) => {
    expect(aboutTheUser(said)).toBe(stored);
  });

  it('leaves what is not in the first person as it is', () => {
    for (const text of ['The user prefers aisle seats', 'Paris is in France', 'Ideas matter', 'iPhone 15']) {
      expect(aboutTheUser(text)).toBe(text);
    }
  });

  it('the extension and the web twin store through it, keeping the original words', () => {
    for (const file of ['../../extension/src/agent.ts', '../../desktop/src/renderer/memory-tools.ts']) {
      const source = readFileSync(new URL(file, import.meta.url), 'utf8');
      expect(source, file).toContain("from '@zeromem/app-shared/about-the-user'");
      expect(source, file).toContain("metadata: { said }");
    }
  });
});
