import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, openMemory, type ErrorCode, type JsonObject, type OpenMemoryOptions, type RememberInput } from '../src/index.ts';
import { expectCode, freshIndexedDB, openTestMemory, type TestMemory } from './helpers.ts';

const ns = { userId: 'u1' };
const KiB = 1024;

/** Objects nested `levels` deep: `{ a: { a: ... { a: 1 } } }` has `levels` objects. */
function nested(levels: number): JsonObject {
  let value: JsonObject = { a: 1 };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** Asserts that the database holds no record and no audit entry at all. */
async function expectNothingWritten(t: TestMemory): Promise<void> {
  expect(await t.memory.count(ns)).toBe(0);
  const stores = await t.stores();
  expect(Object.keys(stores)).toEqual(expect.arrayContaining(['audit', 'records']));
  for (const [store, rows] of Object.entries(stores)) expect(rows, `object store ${store}`).toEqual([]);
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

const cyclic: Record<string, unknown> = { name: 'loop' };
cyclic.self = cyclic;

const withGetter = Object.defineProperty({}, 'g', { get: () => 1, enumerable: true });
const throwingGetter = Object.defineProperty({}, 'g', {
  get: () => {
    throw new Error('getter ran');
  },
  enumerable: true,
});
const arrayWithGetter = Object.defineProperty([1, 2], 0, {
  get: () => {
    throw new Error('getter ran');
  },
  enumerable: true,
});

/** [case name, the input (merged over a valid one), expected code, expected first issue path] */
const rememberCases: Array<[string, Record<string, unknown>, ErrorCode, string]> = [
  // content
  ['content missing', { content: undefined }, 'INVALID_INPUT', 'content'],
  ['content a number', { content: 42 }, 'INVALID_INPUT', 'content'],
  ['content a String object', { content: new String('boxed') }, 'INVALID_INPUT', 'content'],
  ['content empty', { content: '' }, 'INVALID_INPUT', 'content'],
  ['content blank', { content: ' \n\t\u00a0 ' }, 'INVALID_INPUT', 'content'],
  ['content one byte over 32 KiB (ASCII)', { content: 'a'.repeat(32 * KiB + 1) }, 'INVALID_INPUT', 'content'],
  // 10922 x "€" (3 bytes) + "abc" = 32769 bytes in only 10925 UTF-16 units
  ['content one byte over 32 KiB (3-byte chars)', { content: '€'.repeat(10922) + 'abc' }, 'INVALID_INPUT', 'content'],
  // 8192 x U+1F600 (4 bytes, 2 units) = 32768 bytes; one more byte is over
  ['content one byte over 32 KiB (4-byte chars)', { content: '😀'.repeat(8192) + 'a' }, 'INVALID_INPUT', 'content'],
  ['content an unpaired high surrogate', { content: 'abc\ud800def' }, 'INVALID_INPUT', 'content'],
  ['content an unpaired low surrogate at the end', { content: 'abc\udc00' }, 'INVALID_INPUT', 'content'],
  ['content reversed surrogates', { content: 'x\ude00\ud83d' }, 'INVALID_INPUT', 'content'],
  // id
  ['id with a space', { id: 'a b' }, 'INVALID_INPUT', 'id'],
  ['id with a slash', { id: 'a/b' }, 'INVALID_INPUT', 'id'],
  ['id with a semicolon', { id: 'a;a=b' }, 'INVALID_INPUT', 'id'],
  ['id with a percent sign', { id: '%41' }, 'INVALID_INPUT', 'id'],
  ['id with a non-ASCII letter', { id: 'ä' }, 'INVALID_INPUT', 'id'],
  ['id with a NUL', { id: 'a\u0000b' }, 'INVALID_INPUT', 'id'],
  ['id empty', { id: '' }, 'INVALID_INPUT', 'id'],
  ['id too long', { id: 'a'.repeat(129) }, 'INVALID_INPUT', 'id'],
  ['id a number', { id: 7 }, 'INVALID_INPUT', 'id'],
  // source, layer
  ['source unknown', { source: 'bot' }, 'INVALID_INPUT', 'source'],
  ['source wrong case', { source: 'User' }, 'INVALID_INPUT', 'source'],
  ['source null', { source: null }, 'INVALID_INPUT', 'source'],
  ['layer unknown', { layer: 'longterm' }, 'INVALID_INPUT', 'layer'],
  ['layer an array', { layer: ['session'] }, 'INVALID_INPUT', 'layer'],
  // tags
  ['tags not an array', { tags: 'a,b' }, 'INVALID_INPUT', 'tags'],
  ['tags an object', { tags: { 0: 'a', length: 1 } }, 'INVALID_INPUT', 'tags'],
  ['tag not a string', { tags: ['ok', 3] }, 'INVALID_INPUT', 'tags.1'],
  ['tag null', { tags: [null] }, 'INVALID_INPUT', 'tags.0'],
  ['tag empty', { tags: [''] }, 'INVALID_INPUT', 'tags.0'],
  ['tag blank', { tags: ['ok', '   '] }, 'INVALID_INPUT', 'tags.1'],
  ['tag with a leading space', { tags: [' a'] }, 'INVALID_INPUT', 'tags.0'],
  ['tag with a trailing newline', { tags: ['a\n'] }, 'INVALID_INPUT', 'tags.0'],
  ['tag with a control character', { tags: ['a\u0007b'] }, 'INVALID_INPUT', 'tags.0'],
  ['tag with a NUL', { tags: ['a\u0000b'] }, 'INVALID_INPUT', 'tags.0'],
  ['tag with U+FFFF', { tags: ['a\uffff'] }, 'INVALID_INPUT', 'tags.0'],
  ['tag with an unpaired surrogate', { tags: ['a\ud800'] }, 'INVALID_INPUT', 'tags.0'],
  ['33 distinct tags', { tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }, 'INVALID_INPUT', 'tags'],
  ['a huge tag array', { tags: Array.from({ length: 1000 }, () => 'same') }, 'INVALID_INPUT', 'tags'],
  ['tag of 129 characters', { tags: ['x'.repeat(129)] }, 'INVALID_INPUT', 'tags.0'],
  // metadata
  ['metadata a string', { metadata: 'color=red' }, 'INVALID_INPUT', 'metadata'],
  ['metadata null', { metadata: null }, 'INVALID_INPUT', 'metadata'],
  ['metadata an array', { metadata: [1, 2] }, 'INVALID_INPUT', 'metadata'],
  ['metadata a Map', { metadata: new Map([['a', 1]]) }, 'INVALID_INPUT', 'metadata'],
  ['metadata NaN', { metadata: { a: Number.NaN } }, 'INVALID_INPUT', 'metadata.a'],
  ['metadata Infinity', { metadata: { a: Number.POSITIVE_INFINITY } }, 'INVALID_INPUT', 'metadata.a'],
  ['metadata -Infinity in an array', { metadata: { a: [1, Number.NEGATIVE_INFINITY] } }, 'INVALID_INPUT', 'metadata.a.1'],
  ['metadata an undefined value', { metadata: { a: 1, b: undefined } }, 'INVALID_INPUT', 'metadata.b'],
  ['metadata a function', { metadata: { f: () => 1 } }, 'INVALID_INPUT', 'metadata.f'],
  ['metadata a bigint', { metadata: { n: 10n } }, 'INVALID_INPUT', 'metadata.n'],
  ['metadata a symbol value', { metadata: { s: Symbol('s') } }, 'INVALID_INPUT', 'metadata.s'],
  ['metadata a Date', { metadata: { when: new Date(0) } }, 'INVALID_INPUT', 'metadata.when'],
  ['metadata a class instance', { metadata: { at: new Point(1, 2) } }, 'INVALID_INPUT', 'metadata.at'],
  ['metadata a nested class instance', { metadata: { a: { b: [new Point(1, 2)] } } }, 'INVALID_INPUT', 'metadata.a.b.0'],
  ['metadata a cycle', { metadata: cyclic }, 'INVALID_INPUT', 'metadata.self'],
  ['metadata a sparse array', { metadata: { a: [1, , 3] } }, 'INVALID_INPUT', 'metadata.a.1'],
  ['metadata a getter', { metadata: withGetter }, 'INVALID_INPUT', 'metadata.g'],
  ['metadata a throwing getter', { metadata: throwingGetter }, 'INVALID_INPUT', 'metadata.g'],
  ['metadata an array with a (throwing) getter', { metadata: { list: arrayWithGetter } }, 'INVALID_INPUT', 'metadata.list.0'],
  ['metadata a symbol key', { metadata: { [Symbol('k')]: 1 } }, 'INVALID_INPUT', 'metadata'],
  ['metadata an own __proto__ key', { metadata: JSON.parse('{"__proto__":1}') }, 'INVALID_INPUT', 'metadata.__proto__'],
  ['metadata a nested __proto__ key', { metadata: JSON.parse('{"a":{"__proto__":{"polluted":true}}}') }, 'INVALID_INPUT', 'metadata.a.__proto__'],
  ['metadata a constructor key', { metadata: { constructor: 1 } }, 'INVALID_INPUT', 'metadata.constructor'],
  ['metadata a prototype key', { metadata: { prototype: {} } }, 'INVALID_INPUT', 'metadata.prototype'],
  ['metadata a key with an unpaired surrogate', { metadata: { 'k\ud800': 1 } }, 'INVALID_INPUT', 'metadata.k\ud800'],
  ['metadata a string with an unpaired surrogate', { metadata: { k: '\udfff' } }, 'INVALID_INPUT', 'metadata.k'],
  ['metadata over 8 KiB', { metadata: { blob: 'x'.repeat(8 * KiB) } }, 'INVALID_INPUT', 'metadata'],
  ['metadata over 8 KiB in many small values', { metadata: { list: Array.from({ length: 5000 }, () => 1) } }, 'INVALID_INPUT', 'metadata'],
  ['metadata 17 levels deep', { metadata: nested(17) }, 'INVALID_INPUT', `metadata${'.a'.repeat(16)}`],
  // importance
  ['importance below 0', { importance: -0.01 }, 'INVALID_INPUT', 'importance'],
  ['importance above 1', { importance: 1.01 }, 'INVALID_INPUT', 'importance'],
  ['importance NaN', { importance: Number.NaN }, 'INVALID_INPUT', 'importance'],
  ['importance a string', { importance: '0.5' }, 'INVALID_INPUT', 'importance'],
  ['importance null', { importance: null }, 'INVALID_INPUT', 'importance'],
  // createdAt
  ['createdAt an invalid Date', { createdAt: new Date('not a date') }, 'INVALID_INPUT', 'createdAt'],
  ['createdAt negative', { createdAt: -1 }, 'INVALID_INPUT', 'createdAt'],
  ['createdAt NaN', { createdAt: Number.NaN }, 'INVALID_INPUT', 'createdAt'],
  ['createdAt beyond the last Date', { createdAt: 8.64e15 + 1 }, 'INVALID_INPUT', 'createdAt'],
  ['createdAt a garbage string', { createdAt: 'yesterday' }, 'INVALID_INPUT', 'createdAt'],
  ['createdAt an impossible ISO date', { createdAt: '2026-13-45' }, 'INVALID_INPUT', 'createdAt'],
  ['createdAt a numeric string', { createdAt: '1700000000000' }, 'INVALID_INPUT', 'createdAt'],
  // expiresAt, ttl
  ['expiresAt in the past', { expiresAt: Date.UTC(2025, 0, 1) }, 'INVALID_INPUT', 'expiresAt'],
  ['expiresAt exactly now', { expiresAt: Date.UTC(2026, 0, 1) }, 'INVALID_INPUT', 'expiresAt'],
  ['expiresAt a garbage string', { expiresAt: 'tomorrow' }, 'INVALID_INPUT', 'expiresAt'],
  ['ttl with an unknown unit', { ttl: '2x' }, 'INVALID_INPUT', 'ttl'],
  ['ttl negative', { ttl: '-1d' }, 'INVALID_INPUT', 'ttl'],
  ['ttl negative number', { ttl: -1000 }, 'INVALID_INPUT', 'ttl'],
  ['ttl zero', { ttl: 0 }, 'INVALID_INPUT', 'ttl'],
  ['ttl "0s"', { ttl: '0s' }, 'INVALID_INPUT', 'ttl'],
  ['ttl empty', { ttl: '' }, 'INVALID_INPUT', 'ttl'],
  ['ttl NaN', { ttl: Number.NaN }, 'INVALID_INPUT', 'ttl'],
  ['ttl Infinity', { ttl: Number.POSITIVE_INFINITY }, 'INVALID_INPUT', 'ttl'],
  ['ttl a unit without a number', { ttl: 'd' }, 'INVALID_INPUT', 'ttl'],
  ['ttl and expiresAt together', { ttl: '1d', expiresAt: Date.UTC(2027, 0, 1) }, 'INVALID_INPUT', 'ttl'],
  // a ttl anchored on an old createdAt that has already run out
  ['ttl already run out from createdAt', { createdAt: Date.UTC(2025, 0, 1), ttl: '1d' }, 'INVALID_INPUT', 'ttl'],
  // unknown fields
  ['a misspelled field', { improtance: 0.9 }, 'INVALID_INPUT', 'improtance'],
  ['a field of another verb', { version: 2 }, 'INVALID_INPUT', 'version'],
  ['a symbol key', { [Symbol('x')]: 1 }, 'INVALID_INPUT', 'Symbol(x)'],
  // namespace
  ['namespace missing', { namespace: undefined }, 'NAMESPACE_REQUIRED', 'namespace'],
  ['namespace null', { namespace: null }, 'NAMESPACE_REQUIRED', 'namespace'],
  ['namespace without userId', { namespace: { agentId: 'support' } }, 'NAMESPACE_REQUIRED', 'namespace.userId'],
  ['namespace empty object', { namespace: {} }, 'NAMESPACE_REQUIRED', 'namespace.userId'],
  ['namespace a string', { namespace: 'u1' }, 'INVALID_INPUT', 'namespace'],
  ['namespace an array', { namespace: ['u1'] }, 'INVALID_INPUT', 'namespace'],
  ['userId blank', { namespace: { userId: '  ' } }, 'INVALID_INPUT', 'namespace.userId'],
  ['userId empty', { namespace: { userId: '' } }, 'INVALID_INPUT', 'namespace.userId'],
  ['userId a number', { namespace: { userId: 1 } }, 'INVALID_INPUT', 'namespace.userId'],
  ['userId null', { namespace: { userId: null } }, 'INVALID_INPUT', 'namespace.userId'],
  ['userId with a control character', { namespace: { userId: 'u\n1' } }, 'INVALID_INPUT', 'namespace.userId'],
  ['userId with an unpaired surrogate', { namespace: { userId: 'u\ud800' } }, 'INVALID_INPUT', 'namespace.userId'],
  ['userId too long', { namespace: { userId: 'u'.repeat(257) } }, 'INVALID_INPUT', 'namespace.userId'],
  ['agentId blank', { namespace: { userId: 'u1', agentId: ' ' } }, 'INVALID_INPUT', 'namespace.agentId'],
  ['scope a number', { namespace: { userId: 'u1', scope: 3 } }, 'INVALID_INPUT', 'namespace.scope'],
  ['unknown namespace key', { namespace: { userId: 'u1', team: 'a' } }, 'INVALID_INPUT', 'namespace.team'],
  ['misspelled namespace key', { namespace: { userID: 'u1' } }, 'INVALID_INPUT', 'namespace.userID'],
];

describe('remember() refuses each invalid field with its code and path, and writes nothing', () => {
  it.each(rememberCases)('%s', async (_name, fields, code, path) => {
    const t = await openTestMemory();
    const input = { namespace: ns, content: 'A valid memory', ...fields } as unknown as RememberInput;
    const err = await expectCode(t.memory.remember(input), code, path);
    expect(err.message.length).toBeGreaterThan(10);
    await expectNothingWritten(t);
  });

  it('refuses input that is not an object', async () => {
    const t = await openTestMemory();
    for (const input of [undefined, null, 'text', 42, ['content'], new Date(0)]) {
      await expectCode(t.memory.remember(input as unknown as RememberInput), 'INVALID_INPUT', '');
    }
    await expectNothingWritten(t);
  });

  it('refuses bad write options before writing', async () => {
    const t = await openTestMemory();
    const input = { namespace: ns, content: 'x' };
    await expectCode(t.memory.remember(input, { actor: '' }), 'INVALID_INPUT', 'actor');
    await expectCode(t.memory.remember(input, { actor: 'a\u0000' }), 'INVALID_INPUT', 'actor');
    await expectCode(t.memory.remember(input, { who: 'x' } as never), 'INVALID_INPUT', 'who');
    await expectCode(t.memory.remember(input, 'me' as never), 'INVALID_INPUT', '');
    await expectNothingWritten(t);
  });

  it('lists every problem of one input, in field order', async () => {
    const t = await openTestMemory();
    const err = await expectCode(
      t.memory.remember({ namespace: ns, content: '', importance: 2, tags: ['ok', ' bad'], oops: 1 } as never),
      'INVALID_INPUT',
      'oops',
    );
    expect(err.details.issues?.map((i) => i.path)).toEqual(['oops', 'content', 'tags.1', 'importance']);
    await expectNothingWritten(t);
  });

  it('does not let a metadata __proto__ key pollute anything', async () => {
    const t = await openTestMemory();
    await expectCode(
      t.memory.remember({ namespace: ns, content: 'x', metadata: JSON.parse('{"__proto__":{"polluted":true}}') }),
      'INVALID_INPUT',
      'metadata.__proto__',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expectNothingWritten(t);
  });
});

describe('remember() accepts values right at the limits', () => {
  it.each([
    ['32 KiB of ASCII', 'a'.repeat(32 * KiB)],
    ['32 KiB of 3-byte characters plus 2 bytes', '€'.repeat(10922) + 'ab'],
    ['32 KiB of 4-byte characters', '😀'.repeat(8192)],
    ['32 KiB of 2-byte characters', 'é'.repeat(16 * KiB)],
  ])('content of %s', async (_name, content) => {
    const { memory } = await openTestMemory();
    const { record } = await memory.remember({ namespace: ns, content });
    expect(record.content).toBe(content);
    expect((await memory.stats(ns)).contentBytes).toBe(32 * KiB);
  });

  it('id, tags, metadata and times at their limits', async () => {
    const { memory, clock } = await openTestMemory();
    const tags = Array.from({ length: 32 }, (_, i) => `t${i}`);
    const { record } = await memory.remember({
      namespace: { userId: 'u'.repeat(256) },
      id: 'a'.repeat(128),
      content: 'limits',
      tags: [...tags, ...tags], // 64 entries, 32 distinct: duplicates fold
      metadata: nested(16),
      importance: 1,
      createdAt: 0,
      expiresAt: clock.now() + 1,
    });
    expect(record.tags).toEqual(tags);
    expect(record.createdAt).toBe(0);
    const zero = await memory.remember({ namespace: ns, content: 'zero', importance: 0, id: 'A-z_0.9:x' });
    expect(zero.record.importance).toBe(0);
    expect(zero.id).toBe('A-z_0.9:x');
  });

  it('metadata of exactly 8 KiB of JSON, and one byte more is refused', async () => {
    const { memory } = await openTestMemory();
    const overhead = JSON.stringify({ blob: '' }).length;
    const exact = { blob: 'x'.repeat(8 * KiB - overhead) };
    expect(JSON.stringify(exact).length).toBe(8 * KiB);
    await memory.remember({ namespace: ns, content: 'exact', metadata: exact });
    await expectCode(memory.remember({ namespace: ns, content: 'over', metadata: { blob: `${exact.blob}x` } }), 'INVALID_INPUT', 'metadata');
    expect(await memory.count(ns)).toBe(1);
  });
});

describe('remember() stores what JSON can carry', () => {
  it('turns -0 into 0 in metadata, importance and createdAt (regression: -0 survived into storage)', async () => {
    const { memory } = await openTestMemory();
    const { id, record } = await memory.remember({ namespace: ns, content: 'zero', metadata: { a: -0, list: [-0], deep: { z: -0 } }, importance: -0, createdAt: -0 });
    const stored = (await memory.get(ns, id))!;
    for (const r of [record, stored]) {
      expect(Object.is(r.metadata.a, 0)).toBe(true);
      expect(Object.is((r.metadata.list as number[])[0], 0)).toBe(true);
      expect(Object.is((r.metadata.deep as { z: number }).z, 0)).toBe(true);
      expect(Object.is(r.importance, 0)).toBe(true);
      expect(Object.is(r.createdAt, 0)).toBe(true);
      expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    }
  });

  it('copies metadata, so later changes by the caller do not reach the store', async () => {
    const { memory } = await openTestMemory();
    const metadata = { list: [1], inner: { k: 'v' } };
    const { id } = await memory.remember({ namespace: ns, content: 'copied', metadata });
    metadata.list.push(2);
    metadata.inner.k = 'changed';
    expect((await memory.get(ns, id))!.metadata).toEqual({ list: [1], inner: { k: 'v' } });
  });
});

describe('update() validation', () => {
  async function withRecord() {
    const t = await openTestMemory();
    const { record } = await t.memory.remember({ namespace: ns, id: 'r1', content: 'original' });
    await t.memory.remember({ namespace: ns, id: 'r2', content: 'other' });
    return { ...t, record };
  }

  it.each<[string, unknown, string]>([
    ['not an object', 'content', ''],
    ['null', null, ''],
    ['an array', [], ''],
    ['empty', {}, ''],
    ['blank content', { content: ' ' }, 'content'],
    ['content over 32 KiB', { content: '€'.repeat(10923) }, 'content'],
    ['content with an unpaired surrogate', { content: '\ud800' }, 'content'],
    ['unknown field', { improtance: 1 }, 'improtance'],
    ['id in the patch', { id: 'r9' }, 'id'],
    ['namespace in the patch', { namespace: { userId: 'u2' } }, 'namespace'],
    ['version in the patch', { version: 7 }, 'version'],
    ['createdAt in the patch', { createdAt: 0 }, 'createdAt'],
    ['bad source', { source: 'bot' }, 'source'],
    ['bad layer', { layer: 'x' }, 'layer'],
    ['bad tag', { tags: ['a', ''] }, 'tags.1'],
    ['bad metadata', { metadata: { a: Number.NaN } }, 'metadata.a'],
    ['metadata __proto__', { metadata: JSON.parse('{"__proto__":1}') }, 'metadata.__proto__'],
    ['importance too high', { importance: 1.5 }, 'importance'],
    ['expiresAt in the past', { expiresAt: 0 }, 'expiresAt'],
    ['expiresAt garbage', { expiresAt: 'soon' }, 'expiresAt'],
    ['ttl bad', { ttl: '2x' }, 'ttl'],
    ['ttl zero', { ttl: 0 }, 'ttl'],
    ['ttl and expiresAt together', { ttl: '1d', expiresAt: null }, 'ttl'],
  ])('refuses a patch that is %s and changes nothing', async (_name, patch, path) => {
    const t = await withRecord();
    await expectCode(t.memory.update(ns, 'r1', patch as never), 'INVALID_INPUT', path);
    expect(await t.memory.get(ns, 'r1')).toEqual(t.record);
    expect((await t.memory.audit(ns)).map((e) => e.op)).toEqual(['remember', 'remember']);
  });

  it('refuses bad ids, namespaces and options', async () => {
    const t = await withRecord();
    await expectCode(t.memory.update(ns, 'r 1', { importance: 1 }), 'INVALID_INPUT', 'id');
    await expectCode(t.memory.update(ns, 5 as never, { importance: 1 }), 'INVALID_INPUT', 'id');
    await expectCode(t.memory.update(undefined as never, 'r1', { importance: 1 }), 'NAMESPACE_REQUIRED');
    await expectCode(t.memory.update({ agentId: 'a' } as never, 'r1', { importance: 1 }), 'NAMESPACE_REQUIRED', 'namespace.userId');
    await expectCode(t.memory.update({ userId: '' }, 'r1', { importance: 1 }), 'INVALID_INPUT', 'namespace.userId');
    await expectCode(t.memory.update(ns, 'r1', { importance: 1 }, { ifVersion: 0 }), 'INVALID_INPUT', 'ifVersion');
    await expectCode(t.memory.update(ns, 'r1', { importance: 1 }, { ifVersion: 1.5 }), 'INVALID_INPUT', 'ifVersion');
    await expectCode(t.memory.update(ns, 'r1', { importance: 1 }, { ifVersion: '1' as never }), 'INVALID_INPUT', 'ifVersion');
    await expectCode(t.memory.update(ns, 'r1', { importance: 1 }, { actor: ' ' }), 'INVALID_INPUT', 'actor');
    await expectCode(t.memory.update(ns, 'r1', { importance: 1 }, { force: true } as never), 'INVALID_INPUT', 'force');
    expect(await t.memory.get(ns, 'r1')).toEqual(t.record);
    expect(await t.memory.audit(ns)).toHaveLength(2);
  });
});

describe('list() and count() validation', () => {
  it.each<[string, unknown, string]>([
    ['options not an object', 'recent', ''],
    ['limit 0', { limit: 0 }, 'limit'],
    ['limit 1001', { limit: 1001 }, 'limit'],
    ['limit fractional', { limit: 1.5 }, 'limit'],
    ['limit a string', { limit: '10' }, 'limit'],
    ['orderBy unknown', { orderBy: 'id' }, 'orderBy'],
    ['order unknown', { order: 'up' }, 'order'],
    ['cursor garbage', { cursor: 'not-a-cursor' }, 'cursor'],
    ['cursor a number', { cursor: 5 }, 'cursor'],
    ['cursor forged with a bad position', { cursor: btoa(JSON.stringify([1, 'createdAt', 'desc', 'x'])) }, 'cursor'],
    ['tags not an object', { tags: ['a'] }, 'tags'],
    ['tags with an unknown mode', { tags: { none: ['a'] } }, 'tags.none'],
    ['tags.any empty', { tags: { any: [] } }, 'tags.any'],
    ['tags.all with a blank tag', { tags: { all: ['a', ' '] } }, 'tags.all.1'],
    ['metadata NaN', { metadata: { a: Number.NaN } }, 'metadata.a'],
    ['metadata not an object', { metadata: 'x' }, 'metadata'],
    ['source unknown', { source: 'bot' }, 'source'],
    ['source list with an unknown', { source: ['user', 'bot'] }, 'source.1'],
    ['source empty list', { source: [] }, 'source'],
    // eslint-disable-next-line no-sparse-arrays
    ['source list with a hole', { source: ['user', , 'tool'] }, 'source.1'],
    // eslint-disable-next-line no-sparse-arrays
    ['layer list with a hole', { layer: [, 'session'] }, 'layer.0'],
    ['layer unknown in a list', { layer: ['x'] }, 'layer.0'],
    ['createdAt not a range', { createdAt: 5 }, 'createdAt'],
    ['createdAt.from garbage', { createdAt: { from: 'garbage' } }, 'createdAt.from'],
    ['updatedAt.to negative', { updatedAt: { to: -5 } }, 'updatedAt.to'],
    ['createdAt unknown range key', { createdAt: { since: 0 } }, 'createdAt.since'],
    ['unknown option', { offset: 10 }, 'offset'],
  ])('list refuses %s', async (_name, options, path) => {
    const { memory } = await openTestMemory();
    await memory.remember({ namespace: ns, content: 'x' });
    await expectCode(memory.list(ns, options as never), 'INVALID_INPUT', path);
  });

  it('list and count need a namespace', async () => {
    const { memory } = await openTestMemory();
    await expectCode(memory.list(undefined as never), 'NAMESPACE_REQUIRED');
    await expectCode(memory.count(null as never), 'NAMESPACE_REQUIRED');
    await expectCode(memory.list({ userId: ' ' }), 'INVALID_INPUT', 'namespace.userId');
    await expectCode(memory.count({ userId: 'u', x: 1 } as never), 'INVALID_INPUT', 'namespace.x');
  });

  it('a cursor from another orderBy or order is refused', async () => {
    const { memory, clock } = await openTestMemory();
    for (let i = 0; i < 3; i++) {
      clock.advance(1);
      await memory.remember({ namespace: ns, content: `r${i}` });
    }
    const page = await memory.list(ns, { limit: 1 });
    expect(page.nextCursor).not.toBeNull();
    const cursor = page.nextCursor!;
    await expectCode(memory.list(ns, { limit: 1, cursor, orderBy: 'updatedAt' }), 'INVALID_INPUT', 'cursor');
    await expectCode(memory.list(ns, { limit: 1, cursor, order: 'asc' }), 'INVALID_INPUT', 'cursor');
    expect((await memory.list(ns, { limit: 1, cursor })).items.map((r) => r.content)).toEqual(['r1']);
  });

  it.each<[string, unknown, string]>([
    ['a list option', { limit: 5 }, 'limit'],
    ['orderBy', { orderBy: 'createdAt' }, 'orderBy'],
    ['a bad tag filter', { tags: { any: [''] } }, 'tags.any.0'],
    ['not an object', 7, ''],
  ])('count refuses %s', async (_name, filter, path) => {
    const { memory } = await openTestMemory();
    await expectCode(memory.count(ns, filter as never), 'INVALID_INPUT', path);
  });
});

describe('forgetWhere(), forget(), forgetNamespace(), forgetUser() validation', () => {
  async function withRecords() {
    const t = await openTestMemory();
    await t.memory.remember({ namespace: ns, content: 'keep a', tags: ['a'] });
    await t.memory.remember({ namespace: ns, content: 'keep b', tags: ['b'] });
    return t;
  }

  it.each<[string, unknown, string]>([
    ['no filter', undefined, ''],
    ['an empty filter', {}, ''],
    ['a list option', { limit: 1 }, 'limit'],
    ['a bad tag filter', { tags: { any: [] } }, 'tags.any'],
    ['a bad source', { source: 'bot' }, 'source'],
    ['not an object', 'everything', ''],
  ])('forgetWhere refuses %s and deletes nothing', async (_name, filter, path) => {
    const t = await withRecords();
    await expectCode(t.memory.forgetWhere(ns, filter as never), 'INVALID_INPUT', path);
    expect(await t.memory.count(ns)).toBe(2);
    expect((await t.memory.audit(ns)).map((e) => e.op)).toEqual(['remember', 'remember']);
  });

  it('forgetWhere refuses bad options and namespaces, deleting nothing', async () => {
    const t = await withRecords();
    await expectCode(t.memory.forgetWhere(ns, { tags: { any: ['a'] } }, { actor: '' }), 'INVALID_INPUT', 'actor');
    await expectCode(t.memory.forgetWhere(ns, { tags: { any: ['a'] } }, { all: true } as never), 'INVALID_INPUT', 'all');
    await expectCode(t.memory.forgetWhere(undefined as never, { tags: { any: ['a'] } }), 'NAMESPACE_REQUIRED');
    expect(await t.memory.count(ns)).toBe(2);
  });

  it('forget, forgetNamespace and forgetUser refuse bad arguments, deleting nothing', async () => {
    const t = await withRecords();
    const [first] = (await t.memory.list(ns)).items;
    await expectCode(t.memory.forget(ns, ''), 'INVALID_INPUT', 'id');
    await expectCode(t.memory.forget(ns, 'a b'), 'INVALID_INPUT', 'id');
    await expectCode(t.memory.forget(undefined as never, first!.id), 'NAMESPACE_REQUIRED');
    await expectCode(t.memory.forget(ns, first!.id, { actor: 1 } as never), 'INVALID_INPUT', 'actor');
    await expectCode(t.memory.forgetNamespace(undefined as never), 'NAMESPACE_REQUIRED');
    await expectCode(t.memory.forgetNamespace({ userId: 'u1', agentId: '' }), 'INVALID_INPUT', 'namespace.agentId');
    await expectCode(t.memory.forgetNamespace(ns, { reason: 'x' } as never), 'INVALID_INPUT', 'reason');
    await expectCode(t.memory.forgetUser(''), 'INVALID_INPUT', 'userId');
    await expectCode(t.memory.forgetUser(ns as never), 'INVALID_INPUT', 'userId');
    await expectCode(t.memory.forgetUser(' '), 'INVALID_INPUT', 'userId');
    await expectCode(t.memory.forgetUser('u1', { actor: '' }), 'INVALID_INPUT', 'actor');
    expect(await t.memory.count(ns)).toBe(2);
    expect(await t.memory.audit(ns)).toHaveLength(2);
  });

  it('get refuses bad ids and namespaces', async () => {
    const { memory } = await openTestMemory();
    await expectCode(memory.get(ns, 'a;a=b'), 'INVALID_INPUT', 'id');
    await expectCode(memory.get(ns, 'x'.repeat(129)), 'INVALID_INPUT', 'id');
    await expectCode(memory.get(ns, undefined as never), 'INVALID_INPUT', 'id');
    await expectCode(memory.get(undefined as never, 'x'), 'NAMESPACE_REQUIRED');
    await expectCode(memory.stats({} as never), 'NAMESPACE_REQUIRED', 'namespace.userId');
  });
});

describe('audit() validation', () => {
  it.each<[string, unknown, string]>([
    ['after negative', { after: -1 }, 'after'],
    ['after fractional', { after: 1.5 }, 'after'],
    ['after a string', { after: '3' }, 'after'],
    ['limit 0', { limit: 0 }, 'limit'],
    ['limit 10001', { limit: 10_001 }, 'limit'],
    ['unknown option', { before: 3 }, 'before'],
    ['options not an object', 3, ''],
  ])('refuses %s', async (_name, options, path) => {
    const { memory } = await openTestMemory();
    await memory.remember({ namespace: ns, content: 'x' });
    await expectCode(memory.audit(ns, options as never), 'INVALID_INPUT', path);
  });

  it('needs a namespace', async () => {
    const { memory } = await openTestMemory();
    await expectCode(memory.audit(undefined as never), 'NAMESPACE_REQUIRED');
  });
});

describe('watch() validation (synchronous)', () => {
  it('throws before subscribing on a bad namespace, options or listener', async () => {
    const { memory } = await openTestMemory();
    const listener = () => undefined;
    await expectCode(() => memory.watch(undefined as never, undefined, listener), 'NAMESPACE_REQUIRED');
    await expectCode(() => memory.watch(ns, { limit: 0 }, listener), 'INVALID_INPUT', 'limit');
    await expectCode(() => memory.watch(ns, undefined, null as never), 'INVALID_INPUT', 'listener');
    await expectCode(() => memory.watch(ns, undefined, 5 as never), 'INVALID_INPUT', 'listener');
    await expectCode(() => memory.watch(ns, undefined, {} as never), 'INVALID_INPUT', 'listener.next');
    await expectCode(() => memory.watch(ns, undefined, { next: listener, error: 'x' } as never), 'INVALID_INPUT', 'listener.error');
  });
});

describe('rememberMany() validation', () => {
  it('refuses a non-array and bad options, writing nothing', async () => {
    const t = await openTestMemory();
    await expectCode(t.memory.rememberMany({ namespace: ns, content: 'x' } as never), 'INVALID_INPUT', '');
    await expectCode(t.memory.rememberMany([{ namespace: ns, content: 'x' }], { skipInvalid: 'yes' } as never), 'INVALID_INPUT', 'skipInvalid');
    await expectCode(t.memory.rememberMany([{ namespace: ns, content: 'x' }], { onProgress: 1 } as never), 'INVALID_INPUT', 'onProgress');
    await expectCode(t.memory.rememberMany([{ namespace: ns, content: 'x' }], { atomic: true } as never), 'INVALID_INPUT', 'atomic');
    await expectNothingWritten(t);
  });

  it('reports each bad item with its code and path, writing nothing', async () => {
    const t = await openTestMemory();
    const err = await expectCode(
      t.memory.rememberMany([
        { namespace: ns, content: 'fine' },
        { namespace: ns, content: 'x', metadata: JSON.parse('{"constructor":1}') },
        { namespace: { agentId: 'a' }, content: 'x' } as never,
        { namespace: ns, content: 'x', ttl: '-1d' },
      ]),
      'INVALID_INPUT',
    );
    expect(err.details.items?.map((i) => [i.index, i.code, i.issues[0]?.path])).toEqual([
      [1, 'INVALID_INPUT', 'metadata.constructor'],
      [2, 'NAMESPACE_REQUIRED', 'namespace.userId'],
      [3, 'INVALID_INPUT', 'ttl'],
    ]);
    await expectNothingWritten(t);
  });
});

describe('openMemory() option validation', () => {
  it.each<[string, unknown, string]>([
    ['null', null, ''],
    ['a string', 'zeromem', ''],
    ['an unknown option', { nmae: 'x' }, 'nmae'],
    ['an empty name', { name: '' }, 'name'],
    ['a non-string name', { name: 5 }, 'name'],
    ['a blank actor', { actor: ' ' }, 'actor'],
    ['limits not an object', { limits: 5 }, 'limits'],
    ['an unknown limit', { limits: { maxContentSize: 10 } }, 'limits.maxContentSize'],
    ['a zero limit', { limits: { maxContentBytes: 0 } }, 'limits.maxContentBytes'],
    ['a fractional limit', { limits: { maxTags: 2.5 } }, 'limits.maxTags'],
    ['a NaN limit', { limits: { maxIdLength: Number.NaN } }, 'limits.maxIdLength'],
    ['a string limit', { limits: { maxTagLength: '10' } }, 'limits.maxTagLength'],
    ['a clock without now()', { clock: {} }, 'clock'],
    ['a null clock', { clock: null }, 'clock'],
    ['sweepEveryMs too small', { sweepEveryMs: 5 }, 'sweepEveryMs'],
    ['sweepEveryMs NaN', { sweepEveryMs: Number.NaN }, 'sweepEveryMs'],
    ['sweepEveryMs Infinity', { sweepEveryMs: Number.POSITIVE_INFINITY }, 'sweepEveryMs'],
    ['an unknown durability', { durability: 'fast' }, 'durability'],
    ['onBackgroundError not a function', { onBackgroundError: 'log' }, 'onBackgroundError'],
  ])('refuses %s', async (_name, options, path) => {
    const db = freshIndexedDB();
    const opts = options !== null && typeof options === 'object' ? { ...db, ...options } : options;
    await expectCode(openMemory(opts as OpenMemoryOptions), 'INVALID_INPUT', path);
    // nothing was created either
    expect(await db.indexedDB.databases()).toEqual([]);
  });

  it('without any IndexedDB it fails with STORAGE_FAILED and says what to do', async () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB');
    expect(saved).toBeUndefined(); // this suite runs without fake-indexeddb/auto
    const err = await expectCode(openMemory({ name: 'x' }), 'STORAGE_FAILED');
    expect(err.message).toContain('fake-indexeddb');
  });

  it('accepts every option at once', async () => {
    const errors: unknown[] = [];
    const memory = await openMemory({
      ...freshIndexedDB(),
      name: 'all-options',
      clock: { now: () => 1000 },
      limits: { maxContentBytes: 64, maxRecordsPerNamespace: Number.POSITIVE_INFINITY },
      actor: 'agent-7',
      sweepEveryMs: 60_000,
      onBackgroundError: (err) => errors.push(err),
      durability: 'strict',
    });
    expect(memory.name).toBe('all-options');
    await memory.remember({ namespace: ns, content: 'x' });
    expect((await memory.audit(ns))[0]).toMatchObject({ actor: 'agent-7', at: 1000 });
    memory.close();
    expect(errors).toEqual([]);
  });
});

describe('limits are configurable', () => {
  it('a custom maxContentBytes applies to remember, rememberMany and update', async () => {
    const t = await openTestMemory({ limits: { maxContentBytes: 10 } });
    const { id } = await t.memory.remember({ namespace: ns, content: '€€€a' }); // 10 bytes
    await expectCode(t.memory.remember({ namespace: ns, content: '€€€ab' }), 'INVALID_INPUT', 'content'); // 11 bytes
    await expectCode(t.memory.remember({ namespace: ns, content: 'x'.repeat(11) }), 'INVALID_INPUT', 'content');
    const err = await expectCode(t.memory.rememberMany([{ namespace: ns, content: 'y'.repeat(11) }]), 'INVALID_INPUT');
    expect(err.details.items?.[0]?.issues[0]?.path).toBe('content');
    await expectCode(t.memory.update(ns, id, { content: 'z'.repeat(11) }), 'INVALID_INPUT', 'content');
    expect((await t.memory.update(ns, id, { content: 'z'.repeat(10) })).content).toBe('z'.repeat(10));
    expect(await t.memory.count(ns)).toBe(1);
  });

  it('other limits apply too, and the defaults stay for the rest', async () => {
    const { memory } = await openTestMemory({
      limits: { maxTags: 2, maxTagLength: 3, maxMetadataBytes: 20, maxMetadataDepth: 2, maxIdLength: 4, maxNameLength: 5 },
    });
    await expectCode(memory.remember({ namespace: ns, content: 'x', tags: ['a', 'b', 'c'] }), 'INVALID_INPUT', 'tags');
    await expectCode(memory.remember({ namespace: ns, content: 'x', tags: ['abcd'] }), 'INVALID_INPUT', 'tags.0');
    await expectCode(memory.remember({ namespace: ns, content: 'x', metadata: { k: 'x'.repeat(20) } }), 'INVALID_INPUT', 'metadata');
    await expectCode(memory.remember({ namespace: ns, content: 'x', metadata: { a: { b: {} } } }), 'INVALID_INPUT', 'metadata.a.b');
    await expectCode(memory.remember({ namespace: ns, content: 'x', id: 'abcde' }), 'INVALID_INPUT', 'id');
    await expectCode(memory.remember({ namespace: { userId: 'abcdef' }, content: 'x' }), 'INVALID_INPUT', 'namespace.userId');
    await expectCode(memory.list(ns, { tags: { any: ['abcd'] } }), 'INVALID_INPUT', 'tags.any.0');
    const { record } = await memory.remember({ namespace: ns, id: 'abcd', content: 'ok', tags: ['abc', 'xyz'], metadata: { a: { b: 1 } } });
    expect(record.tags).toEqual(['abc', 'xyz']);
    expect(DEFAULT_LIMITS.maxContentBytes).toBe(32 * KiB);
  });

  it('the limits of one memory do not change another', async () => {
    const small = await openTestMemory({ limits: { maxContentBytes: 4 } });
    const normal = await openTestMemory();
    await expectCode(small.memory.remember({ namespace: ns, content: 'abcde' }), 'INVALID_INPUT', 'content');
    expect((await normal.memory.remember({ namespace: ns, content: 'abcde' })).deduplicated).toBe(false);
  });
});
