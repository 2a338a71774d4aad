import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Embedder } from '@zeromem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDataTime } from '../src/eval/data-time.ts';
import { toRememberInput } from '../src/eval/dataset-memory.ts';
import { EmbedderUnavailableError, chooseEmbedder } from '../src/eval/embedder-choice.ts';
import { IdMap } from '../src/eval/id-map.ts';
import { JsonlError, readJsonl } from '../src/eval/read-jsonl.ts';
import { writeFixture } from './fixture.ts';

const fixture = writeFixture();
afterAll(() => fixture.cleanup());

describe('parseDataTime', () => {
  it('reads ISO times without a zone as UTC, whatever the machine zone', () => {
    expect(parseDataTime('2023-05-21T19:50:00')).toBe(Date.UTC(2023, 4, 21, 19, 50));
    expect(parseDataTime('2023-05-21 19:50')).toBe(Date.UTC(2023, 4, 21, 19, 50));
    expect(parseDataTime('2023-05-21T19:50:00.250')).toBe(Date.UTC(2023, 4, 21, 19, 50, 0, 250));
    expect(parseDataTime('2023-05-21')).toBe(Date.UTC(2023, 4, 21));
    expect(parseDataTime('2023-05-21T19:50:00+02:00')).toBe(Date.UTC(2023, 4, 21, 17, 50));
    expect(parseDataTime(null)).toBeUndefined();
    expect(parseDataTime(undefined)).toBeUndefined();
    expect(parseDataTime('yesterday')).toBeNaN();
  });
});

describe('IdMap', () => {
  it('keeps valid ids, encodes the others reversibly, and never collides with a data id', () => {
    const ids = new IdMap();
    expect(ids.toStored('n', 'answer_530960c1_5')).toBe('answer_530960c1_5');
    const spaced = ids.toStored('n', 'b 3');
    expect(spaced).toMatch(/^x:[A-Za-z0-9_-]+$/);
    expect(ids.toData('n', spaced)).toBe('b 3');
    // A data id that looks like an encoded one is encoded too.
    const lookalike = ids.toStored('n', spaced);
    expect(lookalike).not.toBe(spaced);
    expect(ids.toData('n', lookalike)).toBe(spaced);
    const long = 'é'.repeat(100);
    const hashed = ids.toStored('n', long);
    expect(hashed).toMatch(/^h:[0-9a-f]{64}$/);
    expect(ids.toData('n', hashed)).toBe(long);
    expect(ids.toData('other', hashed)).toBe(hashed); // per namespace
    expect(ids.encodedCount).toBe(3);
  });

  it('lists duplicate aliases right after their stored record, once', () => {
    const ids = new IdMap();
    const stored = ids.toStored('n', 'the id');
    ids.addAlias('n', 'a1', 'a4');
    ids.addAlias('n', 'a1', 'the id');
    expect(ids.toDataRanking('n', ['a2', 'a1', stored])).toEqual(['a2', 'a1', 'a4', 'the id']);
    expect(ids.toDataRanking('m', ['a1'])).toEqual(['a1']);
  });
});

describe('toRememberInput', () => {
  it('maps a memory line onto the public remember input', () => {
    const ids = new IdMap();
    const line = { ns: 'u1', id: 'm 1', text: 'hi there', speaker: 'narrator', ts: '2023-01-02T03:04:05', session: 's', seq: 3, scene: 'Activity', __proto__x: 1 };
    const result = toRememberInput(line, ids);
    expect(result).toEqual({
      ok: true,
      ns: 'u1',
      dataId: 'm 1',
      input: {
        namespace: { userId: 'u1' },
        id: ids.toStored('u1', 'm 1'),
        content: 'hi there',
        source: 'user',
        metadata: { speaker: 'narrator', session: 's', seq: 3, scene: 'Activity', __proto__x: 1 },
        createdAt: Date.UTC(2023, 0, 2, 3, 4, 5),
      },
      notes: [],
    });
    const assistant = toRememberInput({ ns: 'u1', id: 'a', text: 'x', speaker: 'assistant', ts: '2023-01-02' }, ids);
    expect(assistant.ok && assistant.input.source).toBe('assistant');
  });

  it('drops keys core refuses and reports lines that are not memories', () => {
    const ids = new IdMap();
    const polluted = toRememberInput(JSON.parse('{"ns":"u","id":"a","text":"x","ts":"2023-01-01","__proto__":{"x":1}}'), ids);
    expect(polluted.ok && polluted.input.metadata).toEqual({});
    expect(polluted.ok && polluted.notes[0]).toContain('__proto__');
    expect(toRememberInput([1], ids)).toMatchObject({ ok: false, message: 'a memory line must be a JSON object' });
    expect(toRememberInput({ id: 'a', text: 'x' }, ids)).toMatchObject({ ok: false, message: '"ns" must be a string, got nothing' });
    expect(toRememberInput({ ns: 'u', text: 'x' }, ids)).toMatchObject({ ok: false, message: '"id" must be a string, got nothing' });
  });
});

describe('chooseEmbedder', () => {
  const fake: Embedder = { modelId: 'fake', dimension: 2, embed: async (texts) => texts.map(() => new Float32Array([1, 0])) };

  it('none never loads @zeromem/embed-transformers', async () => {
    let loaded = false;
    await expect(chooseEmbedder({ kind: 'none' }, async () => ((loaded = true), {}))).resolves.toBeUndefined();
    expect(loaded).toBe(false);
  });

  it('bundled, a path or a model id go to createEmbedderFromChoice', async () => {
    const calls: unknown[] = [];
    const load = async () => ({ createEmbedderFromChoice: async (choice?: unknown) => (calls.push(choice), fake) });
    expect(await chooseEmbedder({ kind: 'bundled' }, load)).toBe(fake);
    await chooseEmbedder({ kind: 'path', path: '/models/m' }, load);
    await chooseEmbedder({ kind: 'model', model: 'Xenova/bge-small-zh-v1.5' }, load);
    expect(calls).toEqual([{ kind: 'bundled' }, { kind: 'path', path: '/models/m' }, { kind: 'model', model: 'Xenova/bge-small-zh-v1.5' }]);
  });

  it('a package that cannot be loaded or does not work fails with a hint to use --embedder none', async () => {
    const missing = chooseEmbedder({ kind: 'bundled' }, async () => {
      throw new Error("Cannot find package '@zeromem/embed-transformers'");
    });
    await expect(missing).rejects.toBeInstanceOf(EmbedderUnavailableError);
    await expect(missing).rejects.toThrow(/Cannot find package[\s\S]*--embedder none/);
    await expect(chooseEmbedder({ kind: 'bundled' }, async () => ({}))).rejects.toThrow('does not export createEmbedderFromChoice(); evaluate BM25 only with --embedder none');
    const failing = async () => ({ createEmbedderFromChoice: async () => Promise.reject(new Error('model file missing')) });
    await expect(chooseEmbedder({ kind: 'model', model: 'x/y' }, failing)).rejects.toThrow(/model x\/y\) could not be created: model file missing[\s\S]*--embedder none/);
  });
});

describe('readJsonl', () => {
  it('streams gzip and plain files alike, skipping blank lines but counting them', async () => {
    const plain = [];
    for await (const line of readJsonl(fixture.memories)) plain.push(line);
    const gz = [];
    for await (const line of readJsonl(fixture.memoriesGz)) gz.push(line);
    expect(gz).toEqual(plain);
    const file = join(fixture.dir, 'gaps.jsonl.gz');
    writeFileSync(file, gzipSync('{"a":1}\n\n{"a":2}\n'));
    const lines = [];
    for await (const line of readJsonl(file)) lines.push(line);
    expect(lines).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 3, value: { a: 2 } },
    ]);
  });

  it('names the file and line of malformed JSON', async () => {
    const file = join(fixture.dir, 'bad.jsonl');
    writeFileSync(file, '{"a":1}\n{"a":\n');
    const read = async () => {
      for await (const _ of readJsonl(file)) void _;
    };
    await expect(read()).rejects.toBeInstanceOf(JsonlError);
    await expect(read()).rejects.toThrow(`${file}:2: not valid JSON`);
  });
});
