import type { ParsedResult } from 'chrono-node';
import type { TimeWindow } from '../public/query-signals.ts';

const DAY = 86_400_000;

/** Words chrono reads as a time that say nothing about when a memory was made (English and Chinese alike: 现在 now, 今天 today, 晚上 tonight, 明天 tomorrow). */
const NOT_A_PAST =
  /^(?:now|right now|today|tonight|this (?:morning|afternoon|evening)|tomorrow|in an? (?:day|minute|hour|second)|现在|今天|今日|今晚|今早|(?:今天)?(?:早上|上午|中午|下午|晚上)|明天|明早|明晚|后天)$/i;
/** "past three months", "last 2 weeks", "recently": from then until now. */
const SINCE = /^(?:the\s+)?(?:past|last|previous)\s+(?:few|couple(?:\s+of)?|several|\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?:day|week|month|year)s\b/i;
/** "last week", "last month", "last year": that whole calendar unit. */
const LAST_UNIT = /^(?:last|previous)\s+(week|month|year)$/i;

const ZH_DIGITS: Record<string, number> = { 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10, 几: 3, 半: 0.5 };
const ZH_UNIT_DAYS: Record<string, number> = { 天: 1, 日: 1, 周: 7, 星期: 7, 礼拜: 7, 个月: 30, 月: 30, 年: 365 };
/** 三天前, 两周前, 5个月前, 十天之前. */
const ZH_AGO = /([0-9]+|[一二两三四五六七八九十几半]+)\s*(天|日|周|星期|礼拜|个月|月|年)(?:之|以)?前/gu;
/** 上周, 上个星期, 上个月, 去年, 前年, 这周, 本月, 今年. */
const ZH_PERIOD = /(上上?(?:个)?(?:周|星期|礼拜|月)|去年|前年|(?:这|本)(?:个)?(?:周|星期|礼拜|月)|今年)/gu;

/*
 * What chrono-node 2.10's English parsers (the casual configuration, `chrono.en`) need
 * before they read any time, so a query without it is never given to them: chrono's
 * modules (266 of them, its 15 locales) and the native code of its regular expressions
 * cost ~0.3 s of CPU and ~9 MB on their first use (issue 32: a server's first search). A
 * superset by construction, parser by parser (each anchor below names the parsers it
 * stands for; the left boundaries are chrono's `(\W|^)` or the prefixes it lets a word be
 * glued to); the property test in time-expressions.test.ts checks it against chrono.
 */
/** chrono's NUMBER_PATTERN words (a count before a unit: "a", "the", "a couple of"). */
const COUNT = 'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|half|an?|few|several|the|couple|of';
/** chrono's TIME_UNIT_DICTIONARY, abbreviations included. */
const UNIT = '(?:s|sec|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?|mo|mon|mos|months?|qtr|quarters?|y|yr|years?)';
const TIME_ANCHORS = new RegExp(
  [
    // ISO, slash dates, times of day, years, "10 days ago": every parser that reads digits.
    '[0-9]',
    // Casual dates and times of day ("yesterday", "tonight", "this morning", "last night").
    '(?:\\b|this|last)\\s{0,3}(?:now|today|tonight|tomorrow|overmorrow|tmrw?|yesterday|night|morning|afternoon|evening|midnight|midday|noon)(?=\\W|$)',
    // Month names, before or after an ordinal, "of", "in" or a year.
    '(?:\\b|in|of|st|nd|rd|th)(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)' +
      '(?=\\W|$|of|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty|thirtieth|thirty)',
    // Weekdays ("last Saturday", "Sat", "the weekend").
    '(?:\\b|on|this|last|past|next)(?:sun(?:day)?|mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs?(?:day)?)?|fri(?:day)?|sat(?:urday)?|weekend|weekday)(?=\\W|$|of|this|last|past|next)',
    // A unit after a relative word ("last month", "next week").
    `(?:this|last|past|next|after)\\s*${UNIT}(?=\\W|$)`,
    // A counted unit ("a few days ago", "in a couple of weeks", "the day before"): chrono
    // counts one only with a space or a digit in it, and reads it only at a word's end or
    // before ago/later words or a further counted unit.
    `(?:(?:${COUNT})\\s{1,3}|(?:half\\s+an?|an?\\s+few|couple\\s+of|a\\s+couple)\\s{0,3})${UNIT}` +
      `(?:\\s{0,5},?(?:\\s*and)?\\s{0,5}(?:${COUNT}|half\\s{0,2}an?|an?\\s{0,2}few|a?\\s{0,2}couple\\s{0,2}(?:of)?)\\s{0,3}${UNIT}){0,10}` +
      '(?:(?=\\W|$)|\\s{0,5}(?:ago|before|earlier|later|after|from|henceforth|forward|out))',
  ].join('|'),
  'i',
);

/** Whether chrono's English parser could read a time in `text` (a superset: see TIME_ANCHORS). */
export function mayNameTime(text: string): boolean {
  return TIME_ANCHORS.test(text);
}

/**
 * The time windows a query names, relative to `now`: English through chrono-node (dates,
 * weekdays, "10 days ago", "last month", "past three months"), Chinese through chrono's
 * `zh` parser (三天前, 昨天, 上星期三) plus the period words it lacks (上周, 上个月, 去年,
 * N周前). A window in the future of `now` whose year was only implied is read as last
 * year's: memories are about the past. Durations without an anchor ("how many days")
 * name no window. chrono's parsers are loaded on the first query that may name a time
 * ({@link mayNameTime}, or any Chinese text); other queries never load them.
 */
export async function timeWindows(query: string, now: number): Promise<TimeWindow[]> {
  if (!query.trim() || !Number.isFinite(now)) return [];
  const hasCjk = /\p{Script=Han}/u.test(query);
  if (!hasCjk && !mayNameTime(query)) return [];
  const ref = new Date(now);
  const windows: TimeWindow[] = [];
  // The package's root: Vite resolves no locale subpath (`chrono-node/en`) of its exports.
  const chrono = await import('chrono-node');
  const results = [...chrono.en.parse(query, ref), ...(hasCjk ? chrono.zh.hans.parse(query, ref) : [])];
  for (const result of results) {
    if (NOT_A_PAST.test(result.text.trim())) continue;
    const window = fromChrono(result, now);
    if (window && window.from < now) windows.push(window);
  }
  if (hasCjk) {
    // chrono's zh parser reads some of these too ("三天前"): keep its reading.
    const read = new Set(windows.map((window) => window.text));
    windows.push(...chineseWindows(query, now).filter((window) => !read.has(window.text)));
  }
  return windows;
}

function fromChrono(result: ParsedResult, now: number): TimeWindow | undefined {
  const text = result.text.trim();
  const start = result.start;
  let at = start.date().getTime();
  if (!Number.isFinite(at)) return undefined;
  if (SINCE.test(text)) return { text, from: at, to: now };
  const last = LAST_UNIT.exec(text);
  if (last) {
    const unit = last[1]!.toLowerCase();
    const span = unit === 'week' ? 7 * DAY : unit === 'month' ? 31 * DAY : 366 * DAY;
    return { text, from: now - span, to: now };
  }
  if (result.end) return { text, from: at, to: result.end.date().getTime() };
  if (at > now + DAY && !start.isCertain('year')) {
    const shifted = new Date(at);
    shifted.setFullYear(shifted.getFullYear() - 1);
    at = shifted.getTime();
  }
  if (start.isCertain('day') || start.isCertain('weekday')) return dayWindow(text, at);
  if (start.isCertain('month')) {
    if (/\bago\b/i.test(text)) return { text, from: at - 15 * DAY, to: at + 15 * DAY };
    const date = new Date(at);
    const from = new Date(date.getFullYear(), date.getMonth(), 1).getTime();
    return { text, from, to: new Date(date.getFullYear(), date.getMonth() + 1, 1).getTime() };
  }
  if (start.isCertain('year')) {
    const year = new Date(at).getFullYear();
    return { text, from: new Date(year, 0, 1).getTime(), to: new Date(year + 1, 0, 1).getTime() };
  }
  return undefined; // a time of day alone ("at 9 am") names no date
}

function dayWindow(text: string, at: number): TimeWindow {
  const date = new Date(at);
  const from = new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
  return { text, from, to: from + DAY };
}

function chineseWindows(query: string, now: number): TimeWindow[] {
  const windows: TimeWindow[] = [];
  for (const match of query.matchAll(ZH_AGO)) {
    const n = chineseNumber(match[1]!);
    const unit = ZH_UNIT_DAYS[match[2]!]!;
    if (!n) continue;
    const at = now - n * unit * DAY;
    const half = Math.max(DAY / 2, (unit * DAY) / 2);
    windows.push({ text: match[0], from: at - half, to: at + half });
  }
  const today = new Date(now);
  for (const match of query.matchAll(ZH_PERIOD)) {
    const word = match[0];
    const back = word.startsWith('上上') ? 2 : word.startsWith('上') || word === '去年' ? 1 : word === '前年' ? 2 : 0;
    if (/周|星期|礼拜/.test(word)) {
      const weekday = (today.getDay() + 6) % 7; // Monday = 0
      const monday = new Date(today.getFullYear(), today.getMonth(), today.getDate() - weekday - 7 * back).getTime();
      windows.push({ text: word, from: monday, to: monday + 7 * DAY });
    } else if (word.endsWith('月')) {
      const from = new Date(today.getFullYear(), today.getMonth() - back, 1).getTime();
      windows.push({ text: word, from, to: new Date(today.getFullYear(), today.getMonth() - back + 1, 1).getTime() });
    } else {
      const year = today.getFullYear() - back;
      windows.push({ text: word, from: new Date(year, 0, 1).getTime(), to: new Date(year + 1, 0, 1).getTime() });
    }
  }
  return windows;
}

function chineseNumber(text: string): number {
  if (/^[0-9]+$/.test(text)) return Number(text);
  if (text === '十') return 10;
  if (text.startsWith('十')) return 10 + (ZH_DIGITS[text[1]!] ?? 0);
  if (text.length === 2 && text[1] === '十') return (ZH_DIGITS[text[0]!] ?? 0) * 10;
  if (text.length === 3 && text[1] === '十') return (ZH_DIGITS[text[0]!] ?? 0) * 10 + (ZH_DIGITS[text[2]!] ?? 0);
  return ZH_DIGITS[text] ?? 0;
}

/**
 * How close a memory's time is to the windows, 0..1: 1 inside one, falling off outside
 * with a softness that grows with the window's width and its distance from `now` ("two
 * months ago" is meant loosely, "yesterday" is not).
 */
export function timeCloseness(at: number, windows: readonly TimeWindow[], now: number): number {
  let best = 0;
  for (const window of windows) {
    const outside = at < window.from ? window.from - at : at > window.to ? at - window.to : 0;
    if (outside === 0) return 1;
    const soft = Math.max(DAY, 0.25 * (window.to - window.from), 0.1 * Math.abs(now - window.to));
    best = Math.max(best, Math.exp(-0.5 * (outside / soft) ** 2));
  }
  return best;
}
