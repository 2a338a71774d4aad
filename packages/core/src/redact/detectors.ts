import type { DetectorName } from '../public/redaction.ts';

/** All built-in detector names, in the order overlapping matches are decided (first wins). */
export const DETECTORS: readonly DetectorName[] = ['cn_id', 'iban', 'card', 'email', 'phone'];

/** One found value: where it is and its normalized form (what a keyed hash is taken of). */
export interface Found {
  detector: string;
  start: number;
  end: number;
  normalized: string;
}

interface Detector {
  pattern: RegExp;
  /** A candidate the pattern found is kept only if this holds (checksums, lengths). */
  accept?: (match: string) => boolean;
  normalize: (match: string) => string;
}

const digits = (text: string) => text.replace(/\D/g, '');

/** Luhn (mod 10) check of a digit string. */
export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * True when the number's issuer prefix and length belong to a card network (Visa,
 * Mastercard, Amex, Discover, UnionPay, JCB, Diners, Maestro). Luhn alone passes one
 * random digit string in ten (timestamps, IDs, account numbers); the prefix table cuts that.
 */
export function cardBrandFits(number: string): boolean {
  const n = number.length;
  const p2 = Number(number.slice(0, 2));
  const p3 = Number(number.slice(0, 3));
  const p4 = Number(number.slice(0, 4));
  if (number[0] === '4') return n === 13 || n === 16 || n === 19; // Visa
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return n === 16; // Mastercard
  if (p2 === 34 || p2 === 37) return n === 15; // Amex
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649)) return n >= 16 && n <= 19; // Discover
  if (p2 === 62) return n >= 16 && n <= 19; // UnionPay
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19; // JCB
  if (p2 === 36 || p2 === 38 || (p3 >= 300 && p3 <= 305)) return n >= 14 && n <= 19; // Diners
  if (p2 === 50 || (p2 >= 56 && p2 <= 69)) return n >= 12 && n <= 19; // Maestro
  return false;
}

/** ISO 13616 mod-97 check of an IBAN (spaces removed). */
export function ibanValid(iban: string): boolean {
  const compact = iban.replace(/ /g, '').toUpperCase();
  if (compact.length < 15 || compact.length > 34) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = char >= 'A' && char <= 'Z' ? String(char.charCodeAt(0) - 55) : char;
    for (const d of value) remainder = (remainder * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = '10X98765432';

/** GB 11643 check of an 18-character Chinese resident ID: ISO 7064 MOD 11-2 check character and a real birth date. */
export function cnIdValid(id: string): boolean {
  if (!/^\d{17}[\dXx]$/.test(id)) return false;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (id.charCodeAt(i) - 48) * ID_WEIGHTS[i]!;
  if (ID_CHECK[sum % 11] !== id[17]!.toUpperCase()) return false;
  const year = Number(id.slice(6, 10));
  const month = Number(id.slice(10, 12));
  const day = Number(id.slice(12, 14));
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const BUILT_IN: Record<DetectorName, Detector> = {
  email: {
    pattern: /(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w-])/g,
    normalize: (match) => match.toLowerCase(),
  },
  phone: {
    // Chinese mobiles (1[3-9]x, 11 digits, optional +86 / 0086) and international numbers written with + (8 to 15 digits).
    pattern: /(?<![\w+])(?:(?:\(\+86\)|\+86|0086)[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}(?!\d)|(?<![\w+])\+[1-9]\d{0,3}(?:[ .-]?\d{1,4}){2,5}(?![\d])/g,
    accept: (match) => {
      const n = digits(match).length;
      return n >= 8 && n <= 15;
    },
    normalize: (match) => {
      const d = digits(match);
      return d.length === 11 && d.startsWith('1') ? `86${d}` : d.replace(/^0086/, '86');
    },
  },
  card: {
    pattern: /(?<![\dA-Za-z+-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
    accept: (match) => {
      const number = digits(match);
      return luhnValid(number) && cardBrandFits(number) && !/^(\d)\1+$/.test(number);
    },
    normalize: digits,
  },
  iban: {
    pattern: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g,
    accept: ibanValid,
    normalize: (match) => match.replace(/ /g, '').toUpperCase(),
  },
  cn_id: {
    pattern: /(?<![0-9A-Za-z])[1-9]\d{16}[\dXx](?![0-9A-Za-z])/g,
    accept: cnIdValid,
    normalize: (match) => match.toUpperCase(),
  },
};

/** A caller-supplied detector: a name and a pattern (made global). */
export interface CustomDetector {
  name: string;
  pattern: RegExp;
}

/**
 * Every value the named detectors (and custom patterns) find in `text`. Overlaps are
 * decided by order: built-ins in {@link DETECTORS} order, then the custom ones.
 */
export function findAll(text: string, builtIns: readonly DetectorName[], custom: readonly CustomDetector[]): Found[] {
  const found: Found[] = [];
  const taken = (start: number, end: number) => found.some((f) => start < f.end && f.start < end);
  const scan = (name: string, pattern: RegExp, accept: ((m: string) => boolean) | undefined, normalize: (m: string) => string) => {
    pattern.lastIndex = 0;
    for (const match of text.matchAll(pattern)) {
      const value = match[0];
      if (value.length === 0) continue;
      const start = match.index!;
      if ((accept && !accept(value)) || taken(start, start + value.length)) continue;
      found.push({ detector: name, start, end: start + value.length, normalized: normalize(value) });
    }
  };
  for (const name of DETECTORS) if (builtIns.includes(name)) scan(name, BUILT_IN[name].pattern, BUILT_IN[name].accept, BUILT_IN[name].normalize);
  for (const detector of custom) scan(detector.name, detector.pattern, undefined, (m) => m);
  return found.sort((a, b) => a.start - b.start);
}
