import { describe, expect, it } from 'vitest';
import { timeCloseness, timeWindows } from '../src/rank/time-expressions.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2023, 3, 22, 8, 1); // Saturday 2023-04-22, 08:01 UTC
const day = (iso: string) => new Date(`${iso}T00:00:00`).getTime(); // local midnight, as the parser's windows

function read(query: string, now = NOW) {
  return timeWindows(query, now).map((window) => ({ text: window.text, from: window.from, to: window.to }));
}

describe('time expressions in a query', () => {
  it('reads English dates, weekdays, "N days ago" and "past N months" relative to now', () => {
    expect(read('Who did I go with to the music event last Saturday?')).toEqual([{ text: 'last Saturday', from: day('2023-04-15'), to: day('2023-04-16') }]);
    expect(read('What kitchen appliance did I buy 10 days ago?')).toEqual([{ text: '10 days ago', from: day('2023-04-12'), to: day('2023-04-13') }]);
    const [past] = read('the three trips I took in the past three months');
    expect(past!.text).toBe('past three months');
    expect(past!.to).toBe(NOW);
    expect(NOW - past!.from).toBeGreaterThan(85 * DAY);
    const [month] = read('What did I cook in March?');
    expect(month).toEqual({ text: 'March', from: day('2023-03-01'), to: day('2023-04-01') });
  });

  it("reads a month later than now without a year as last year's, and names no window for durations or today", () => {
    const [may] = read('the concert in May');
    expect(may).toEqual({ text: 'May', from: day('2022-05-01'), to: day('2022-06-01') });
    expect(read('How many days ago did I meet Emma?')).toEqual([]);
    expect(read('What should I wear today? Tell me now.')).toEqual([]);
    expect(read('')).toEqual([]);
  });

  it('names no window for the Chinese words of now, today and tomorrow (现在, 今天, 晚上, 明天), as for English', () => {
    expect(read('今天早上出门太急了，晚上吃什么好呢？现在我想问的是，我的手机是什么牌子？')).toEqual([]);
    expect(read('明天好像要下雨，下午记得带伞')).toEqual([]);
    expect(read('昨天晚上我吃了什么').map((window) => window.text)).toEqual(['昨天晚上']); // a past still counts
  });

  it('reads Chinese: 三天前, 两周前, 上周, 上个月, 去年, 昨天', () => {
    const texts = (query: string) => read(query).map((window) => window.text);
    expect(texts('我三天前买了什么')).toContain('三天前');
    const [ago] = read('两周前我去了哪里');
    expect(ago!.text).toBe('两周前');
    expect(NOW - (ago!.from + ago!.to) / 2).toBe(14 * DAY);
    const [week] = read('上周我去了哪里');
    expect(week).toEqual({ text: '上周', from: day('2023-04-10'), to: day('2023-04-17') });
    expect(read('上个月的账单')).toEqual([{ text: '上个月', from: day('2023-03-01'), to: day('2023-04-01') }]);
    expect(read('去年的旅行')).toEqual([{ text: '去年', from: day('2022-01-01'), to: day('2023-01-01') }]);
    expect(texts('昨天吃了什么')).toEqual(['昨天']);
    expect(texts('十二天前')).toEqual(['十二天前']);
    const [twelve] = read('十二天前');
    expect(twelve!.from).toBeLessThanOrEqual(NOW - 12 * DAY);
    expect(twelve!.to).toBeGreaterThan(NOW - 12 * DAY);
  });

  it('closeness is 1 inside a window and falls off outside, more slowly for a window further back', () => {
    const windows = read('10 days ago');
    expect(timeCloseness(day('2023-04-12') + 3_600_000, windows, NOW)).toBe(1);
    const dayOff = timeCloseness(day('2023-04-11'), windows, NOW);
    expect(dayOff).toBeGreaterThan(0.3);
    expect(dayOff).toBeLessThan(1);
    expect(timeCloseness(day('2023-03-01'), windows, NOW)).toBeLessThan(0.01);
    const far = read('two months ago');
    expect(timeCloseness((far[0]!.from - 5 * DAY), far, NOW)).toBeGreaterThan(dayOff);
    expect(timeCloseness(NOW, [], NOW)).toBe(0);
  });
});
