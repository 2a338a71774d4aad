import { IssueList, checkKnownKeys, describe, isPlainObject, join } from '../model/checks.ts';
import type { InputIssue } from '../public/errors.ts';
import type { Limits } from '../public/limits.ts';
import { utf8ByteLength } from '../model/utf8.ts';
import type { RedactionCount, RedactAction, DetectorName } from '../public/redaction.ts';
import type { JsonObject, JsonValue } from '../public/memory-record.ts';
import { DETECTORS, findAll, type CustomDetector, type Found } from './detectors.ts';

const ACTIONS: readonly RedactAction[] = ['mask', 'hash', 'reject', 'maskInContext'];

/** The fields of a write that redaction reads. */
export interface RedactableFields {
  content?: string | undefined;
  metadata?: JsonObject | undefined;
}

/** A redacted write, or the issues of a refused one. */
export type RedactionOutcome<T> = { ok: true; value: T; counts: RedactionCount[] } | { ok: false; issues: InputIssue[] };

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const MAX_PATTERNS = 64;

/** The limits a redacted write must still meet: tokens can be longer than the values they replace. */
export type RedactedLimits = Pick<Limits, 'maxContentBytes' | 'maxMetadataBytes'>;

/** Applies the configured detectors. Built once per memory from validated options. */
export class Redactor {
  readonly #actions: ReadonlyMap<string, RedactAction>;
  readonly #builtIns: DetectorName[];
  readonly #custom: CustomDetector[];
  readonly #key: Promise<CryptoKey> | undefined;
  readonly #limits: RedactedLimits;

  constructor(actions: Map<string, RedactAction>, custom: CustomDetector[], hashKey: string | undefined, limits: RedactedLimits) {
    this.#limits = limits;
    this.#actions = actions;
    this.#builtIns = DETECTORS.filter((name) => actions.has(name));
    this.#custom = custom;
    this.#key = hashKey === undefined ? undefined : crypto.subtle.importKey('raw', new TextEncoder().encode(hashKey), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  /** True when some detector masks values in contexts only. */
  get masksContexts(): boolean {
    return [...this.#actions.values()].includes('maskInContext');
  }

  /**
   * Redacts content and every string in metadata; refuses (with paths, never values) what a
   * `reject` detector finds, and a write whose redacted form is over `maxContentBytes` or
   * `maxMetadataBytes` (a token such as `[phone:<12 hex>]` can be longer than the value it
   * replaces): the limits hold for what is stored, which every replica checks again.
   */
  async redact<T extends RedactableFields>(value: T, path = ''): Promise<RedactionOutcome<T>> {
    const counts = new Map<string, RedactionCount>();
    const issues: InputIssue[] = [];
    const text = async (input: string, at: string) => {
      const found = findAll(input, this.#builtIns, this.#custom);
      if (found.length === 0) return input;
      const refused = [...new Set(found.filter((f) => this.#actions.get(f.detector) === 'reject').map((f) => f.detector))];
      for (const detector of refused) issues.push({ path: at, message: `holds a value the ${detector} detector refuses (redaction: reject); remove it and write again` });
      return this.#replace(input, found, counts);
    };
    const next = { ...value };
    if (value.content !== undefined) next.content = await text(value.content, join(path, 'content'));
    if (value.metadata !== undefined) next.metadata = (await this.#walk(value.metadata, join(path, 'metadata'), text)) as JsonObject;
    if (counts.size > 0) this.#checkGrowth(next, path, issues);
    if (issues.length) return { ok: false, issues };
    return { ok: true, value: next, counts: [...counts.values()] };
  }

  #checkGrowth(value: RedactableFields, path: string, issues: InputIssue[]): void {
    const over = (bytes: number, max: number, as = '') =>
      `is ${bytes} bytes of UTF-8${as} after redaction (each masked or hashed value is stored as its token), over the limit of ${max}; shorten it or split it into several memories`;
    const { maxContentBytes, maxMetadataBytes } = this.#limits;
    const content = value.content === undefined ? 0 : utf8ByteLength(value.content);
    if (content > maxContentBytes) issues.push({ path: join(path, 'content'), message: over(content, maxContentBytes) });
    const metadata = value.metadata === undefined ? 0 : utf8ByteLength(JSON.stringify(value.metadata));
    if (metadata > maxMetadataBytes) issues.push({ path: join(path, 'metadata'), message: over(metadata, maxMetadataBytes, ' as JSON') });
  }

  /**
   * A recall query as stored text would hold it: masked and hashed like a write (a value
   * a `reject` detector finds is masked), so a hashed value finds the memories holding it.
   */
  async redactQuery(query: string): Promise<string> {
    const found = findAll(query, this.#builtIns, this.#custom);
    if (found.length === 0) return query;
    const asWritten = found.map((f) => (this.#actions.get(f.detector) === 'reject' ? { ...f, forceMask: true } : f));
    return this.#replace(query, asWritten, new Map());
  }

  /** The text as a context shows it: values of `maskInContext` detectors masked. */
  maskForContext(text: string): string {
    const found = findAll(text, this.#builtIns, this.#custom).filter((f) => this.#actions.get(f.detector) === 'maskInContext');
    let out = '';
    let at = 0;
    for (const f of found) {
      out += `${text.slice(at, f.start)}[${f.detector}]`;
      at = f.end;
    }
    return out + text.slice(at);
  }

  async #replace(text: string, found: Array<Found & { forceMask?: boolean }>, counts: Map<string, RedactionCount>): Promise<string> {
    let out = '';
    let at = 0;
    for (const f of found) {
      const action = f.forceMask ? 'mask' : this.#actions.get(f.detector);
      if (action !== 'mask' && action !== 'hash') continue; // maskInContext keeps it; reject refused the write
      out += text.slice(at, f.start) + (action === 'mask' ? `[${f.detector}]` : `[${f.detector}:${await this.#hash(f)}]`);
      at = f.end;
      const key = `${f.detector}\u0000${action}`;
      const count = counts.get(key) ?? { detector: f.detector, action, count: 0 };
      count.count++;
      counts.set(key, count);
    }
    return out + text.slice(at);
  }

  async #hash(found: Found): Promise<string> {
    const mac = await crypto.subtle.sign('HMAC', await this.#key!, new TextEncoder().encode(`${found.detector}\u0000${found.normalized}`));
    return Array.from(new Uint8Array(mac, 0, 6), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  async #walk(value: JsonValue, path: string, text: (input: string, at: string) => Promise<string>): Promise<JsonValue> {
    if (typeof value === 'string') return text(value, path);
    if (Array.isArray(value)) {
      const out: JsonValue[] = [];
      for (const [i, item] of value.entries()) out.push(await this.#walk(item, join(path, i), text));
      return out;
    }
    if (value !== null && typeof value === 'object') {
      const out: JsonObject = {};
      for (const [key, item] of Object.entries(value)) out[key] = await this.#walk(item, join(path, key), text);
      return out;
    }
    return value;
  }
}

/** Validates the `redaction` option into `issues`; the Redactor, or undefined when off or invalid. */
export function checkRedaction(value: unknown, limits: RedactedLimits, issues: IssueList): Redactor | undefined {
  if (value === undefined || value === false) return undefined;
  if (!isPlainObject(value)) {
    issues.add('redaction', `must be an object { detectors?, patterns?, hashKey? }, got ${describe(value)}`);
    return undefined;
  }
  const before = issues.items.length;
  checkKnownKeys(value, ['detectors', 'patterns', 'hashKey'], 'redaction', issues);
  const actions = new Map<string, RedactAction>();
  if (value.detectors === undefined) for (const name of DETECTORS) actions.set(name, 'mask');
  else if (!isPlainObject(value.detectors)) issues.add('redaction.detectors', 'must be an object of detector -> action');
  else {
    checkKnownKeys(value.detectors, DETECTORS, 'redaction.detectors', issues);
    for (const [name, action] of Object.entries(value.detectors)) {
      if (!(DETECTORS as readonly string[]).includes(name)) continue;
      if (ACTIONS.includes(action as RedactAction)) actions.set(name, action as RedactAction);
      else issues.add(join('redaction.detectors', name), `must be one of ${ACTIONS.join(', ')}, got ${describe(action)}`);
    }
  }
  const custom: CustomDetector[] = [];
  if (value.patterns !== undefined) {
    if (!Array.isArray(value.patterns) || value.patterns.length > MAX_PATTERNS) issues.add('redaction.patterns', `must be an array of at most ${MAX_PATTERNS} { name, pattern, action }`);
    else {
      value.patterns.forEach((entry: unknown, i) => {
        const path = join('redaction.patterns', i);
        if (!isPlainObject(entry)) return issues.add(path, 'must be an object { name, pattern, action }');
        checkKnownKeys(entry, ['name', 'pattern', 'action'], path, issues);
        const { name, pattern, action } = entry;
        if (typeof name !== 'string' || !NAME.test(name) || (DETECTORS as readonly string[]).includes(name) || actions.has(name)) {
          return issues.add(join(path, 'name'), 'must be a new name of lowercase letters, digits, _ or - (at most 32, starting with a letter)');
        }
        if (!ACTIONS.includes(action as RedactAction)) return issues.add(join(path, 'action'), `must be one of ${ACTIONS.join(', ')}`);
        let regex: RegExp;
        try {
          regex = pattern instanceof RegExp ? new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`) : typeof pattern === 'string' && pattern ? new RegExp(pattern, 'gu') : (undefined as never);
        } catch (err) {
          return issues.add(join(path, 'pattern'), `is not a valid regular expression: ${(err as Error).message}`);
        }
        if (!regex) return issues.add(join(path, 'pattern'), 'must be a RegExp or a non-empty string');
        if (regex.test('')) return issues.add(join(path, 'pattern'), 'must not match the empty string');
        actions.set(name, action as RedactAction);
        custom.push({ name, pattern: regex });
      });
    }
  }
  const hashes = [...actions.values()].includes('hash');
  if (value.hashKey !== undefined && !(typeof value.hashKey === 'string' && value.hashKey.length >= 16)) issues.add('redaction.hashKey', 'must be a string of 16 characters or more');
  else if (hashes && value.hashKey === undefined) issues.add('redaction.hashKey', 'is required when a detector uses the hash action');
  if (issues.items.length > before) return undefined;
  return new Redactor(actions, custom, value.hashKey as string | undefined, limits);
}
