import * as chrono from 'chrono-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mayNameTime, timeCloseness, timeWindows } from '../src/rank/time-expressions.ts';
import { fcSeed } from './helpers.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2023, 3, 22, 8, 1); // Saturday 2023-04-22, 08:01 UTC
const day = (iso: string) => new Date(`${iso}T00:00:00`).getTime(); // local midnight, as the parser's windows

async function read(query: string, now = NOW) {
  return (await timeWindows(query, now)).map((window) => ({ text: window.text, from: window.from, to: window.to }));
}

describe('time expressions in a query', () => {
  it('reads English dates, weekdays, "N days ago" and "past N months" relative to now', async () => {
    expect(await read('Who did I go with to the music event last Saturday?')).toEqual([{ text: 'last Saturday', from: day('2023-04-15'), to: day('2023-04-16') }]);
    expect(await read('What kitchen appliance did I buy 10 days ago?')).toEqual([{ text: '10 days ago', from: day('2023-04-12'), to: day('2023-04-13') }]);
    const [past] = await read('the three trips I took in the past three months');
    expect(past!.text).toBe('past three months');
    expect(past!.to).toBe(NOW);
    expect(NOW - past!.from).toBeGreaterThan(85 * DAY);
    const [month] = await read('What did I cook in March?');
    expect(month).toEqual({ text: 'March', from: day('2023-03-01'), to: day('2023-04-01') });
  });

  it("reads a month later than now without a year as last year's, and names no window for durations or today", async () => {
    const [may] = await read('the concert in May');
    expect(may).toEqual({ text: 'May', from: day('2022-05-01'), to: day('2022-06-01') });
    expect(await read('How many days ago did I meet Emma?')).toEqual([]);
    expect(await read('What should I wear today? Tell me now.')).toEqual([]);
    expect(await read('')).toEqual([]);
  });

  it('names no window for the Chinese words of now, today and tomorrow (现在, 今天, 晚上, 明天), as for English', async () => {
    expect(await read('今天早上出门太急了，晚上吃什么好呢？现在我想问的是，我的手机是什么牌子？')).toEqual([]);
    expect(await read('明天好像要下雨，下午记得带伞')).toEqual([]);
    expect((await read('昨天晚上我吃了什么')).map((window) => window.text)).toEqual(['昨天晚上']); // a past still counts
  });

  it('reads Chinese: 三天前, 两周前, 上周, 上个月, 去年, 昨天', async () => {
    const texts = async (query: string) => (await read(query)).map((window) => window.text);
    expect(await texts('我三天前买了什么')).toContain('三天前');
    const [ago] = await read('两周前我去了哪里');
    expect(ago!.text).toBe('两周前');
    expect(NOW - (ago!.from + ago!.to) / 2).toBe(14 * DAY);
    const [week] = await read('上周我去了哪里');
    expect(week).toEqual({ text: '上周', from: day('2023-04-10'), to: day('2023-04-17') });
    expect(await read('上个月的账单')).toEqual([{ text: '上个月', from: day('2023-03-01'), to: day('2023-04-01') }]);
    expect(await read('去年的旅行')).toEqual([{ text: '去年', from: day('2022-01-01'), to: day('2023-01-01') }]);
    expect(await texts('昨天吃了什么')).toEqual(['昨天']);
    expect(await texts('十二天前')).toEqual(['十二天前']);
    const [twelve] = await read('十二天前');
    expect(twelve!.from).toBeLessThanOrEqual(NOW - 12 * DAY);
    expect(twelve!.to).toBeGreaterThan(NOW - 12 * DAY);
  });

  it('closeness is 1 inside a window and falls off outside, more slowly for a window further back', async () => {
    const windows = await read('10 days ago');
    expect(timeCloseness(day('2023-04-12') + 3_600_000, windows, NOW)).toBe(1);
    const dayOff = timeCloseness(day('2023-04-11'), windows, NOW);
    expect(dayOff).toBeGreaterThan(0.3);
    expect(dayOff).toBeLessThan(1);
    expect(timeCloseness(day('2023-03-01'), windows, NOW)).toBeLessThan(0.01);
    const far = await read('two months ago');
    expect(timeCloseness((far[0]!.from - 5 * DAY), far, NOW)).toBeGreaterThan(dayOff);
    expect(timeCloseness(NOW, [], NOW)).toBe(0);
  });

  it('asks the date parser only when the query may name a time: chrono finds nothing in a text the filter passes over', () => {
    // The English parser (and its ~9 MB, ~0.3 s of regular expressions) loads on the first
    // query that may name a time; the filter must never skip a text chrono reads a time in.
    // Word classes drawn alike (then a word of the class), mostly spaced: the phrases chrono
    // reads ("a m ago", "lastnight", "firstofmarch") come up every few dozen runs.
    const classes = [
      'a an the few several couple of half one two three four five six seven eight nine ten eleven twelve',
      's sec m min mins h hr hrs d w mo mon mos qtr y yr second seconds minute minutes hour hours day days week weeks month months quarter quarters year years',
      'ago before earlier later after from now henceforth forward out and within in for about around just',
      'this last past next on end of the',
      'january jan feb march mar apr may jun july aug sept sep oct nov dec december',
      'sunday sun mon tue tues wednesday wed thu thur thurs fri sat saturday weekend weekday',
      'today tonight tomorrow overmorrow tmr tmrw yesterday night morning afternoon evening midnight midday noon',
      'first second third fourth twentieth twenty thirtieth thirty st nd th',
      'doctor appointment same meeting know snow summary data pizza idea am is was what when where who my i',
    ].map((words) => fc.constantFrom(...words.split(' ')));
    const glue = [' ', ' ', ' ', ' ', ' ', ' ', '', '', '  ', ',', ', ', '.', '-', '/', "'", '~', '+', '('];
    const query = fc
      .array(fc.tuple(fc.oneof(...classes), fc.constantFrom(...glue), fc.boolean()), { minLength: 1, maxLength: 5 })
      .map((parts) => parts.map(([word, sep, upper]) => (upper ? word[0]!.toUpperCase() + word.slice(1) : word) + sep).join(''));
    const ref = new Date(NOW);
    fc.assert(
      fc.property(query, (text) => chrono.en.parse(text, ref).length === 0 || mayNameTime(text)),
      { seed: fcSeed('time filter covers chrono en'), numRuns: 10_000 },
    );
  });

  it('passes over the everyday question without a time in it, and reads the ones with one', async () => {
    for (const text of ['when is the doctor appointment', 'What do we know about this user?', 'which courier did I use and what was the same idea', 'warm up', 'summary of the meeting data']) {
      expect(mayNameTime(text), text).toBe(false);
    }
    for (const text of ['last Saturday', '10 days ago', 'a couple of weeks ago', 'in March', 'this morning', 'lastnight', 'the day before', 'a day ago', 'few days ago', 'the s ago', 'firstofmarch']) {
      expect(chrono.en.parse(text, new Date(NOW)).length, text).toBeGreaterThan(0);
      expect(mayNameTime(text), text).toBe(true);
    }
  });
});
