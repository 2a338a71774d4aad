import * as chrono from 'chrono-node';
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

/**
 * The time windows a query names, relative to `now`: English through chrono-node (dates,
 * weekdays, "10 days ago", "last month", "past three months"), Chinese through chrono's
 * `zh` parser (三天前, 昨天, 上星期三) plus the period words it lacks (上周, 上个月, 去年,
 * N周前). A window in the future of `now` whose year was only implied is read as last
 * year's: memories are about the past. Durations without an anchor ("how many days")
 * name no window.
 */
export function timeWindows(query: string, now: number): TimeWindow[] {
  if (!query.trim() || !Number.isFinite(now)) return [];
  const ref = new Date(now);
  const windows: TimeWindow[] = [];
  const hasCjk = /\p{Script=Han}/u.test(query);
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

function fromChrono(result: chrono.ParsedResult, now: number): TimeWindow | undefined {
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
