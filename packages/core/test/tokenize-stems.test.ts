import { describe, expect, it } from 'vitest';
import { tokenize } from '../src/search/tokenize.ts';
import { openTestMemory } from './helpers.ts';

const ns = { userId: 'u1' };

describe('English stems in the text index', () => {
  it('keeps each English word and adds its stem when the stem differs', () => {
    expect(tokenize('Two seats, flights booked')).toEqual(['two', 'seats', 'seat', 'flights', 'flight', 'booked', 'book']);
    expect(tokenize('seat flight')).toEqual(['seat', 'flight']); // already a stem: no second token
  });

  it('leaves Chinese to its segmenter, characters and bigrams', () => {
    expect(tokenize('快递')).toEqual(['快递', '快', '递', '快递']);
  });

  it('finds "seat" from "seats" and "flights" from "flight", the exact form first', async () => {
    const { memory } = await openTestMemory();
    await memory.rememberMany([
      { namespace: ns, id: 'seat', content: 'Wants an aisle seat on long trips' },
      { namespace: ns, id: 'flights', content: 'Books flights through the company portal' },
      { namespace: ns, id: 'seats', content: 'Reserved two seats at the theatre' },
    ]);
    const seats = await memory.recall(ns, 'seats', { trackAccess: false });
    expect(seats.hits.map((hit) => hit.id)).toEqual(['seats', 'seat']);
    const flight = await memory.recall(ns, 'flight', { trackAccess: false });
    expect(flight.hits.map((hit) => hit.id)).toEqual(['flights']);
    await memory.close();
  });
});
