/** The `--embedder` parser every door shares, and what each choice creates. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isZeromemError } from '@zeromem/core';
import { createEmbedderFromChoice, describeEmbedderChoice, parseEmbedderChoice } from '@zeromem/embed-transformers';

const scratch = mkdtempSync(join(tmpdir(), 'zeromem-choice-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('parseEmbedderChoice', () => {
  it('reads bundled, minilm, none, folders and model ids', () => {
    expect(parseEmbedderChoice('bundled')).toEqual({ kind: 'bundled' });
    expect(parseEmbedderChoice('minilm')).toEqual({ kind: 'minilm' });
    expect(parseEmbedderChoice('light')).toEqual({ kind: 'model', model: 'light' });
    expect(parseEmbedderChoice('none')).toEqual({ kind: 'none' });
    expect(parseEmbedderChoice(scratch)).toEqual({ kind: 'path', path: scratch });
    expect(parseEmbedderChoice('./models/x')).toEqual({ kind: 'path', path: resolve('./models/x') });
    expect(parseEmbedderChoice('zeromem-static-en')).toEqual({ kind: 'model', model: 'zeromem-static-en' });
    expect(describeEmbedderChoice(parseEmbedderChoice('none'))).toBe('none (BM25 only)');
  });

  it('an empty value is INVALID_INPUT', () => {
    for (const value of ['', '  ']) {
      let error: unknown;
      try {
        parseEmbedderChoice(value);
      } catch (err) {
        error = err;
      }
      expect(isZeromemError(error, 'INVALID_INPUT')).toBe(true);
    }
  });
});

describe('createEmbedderFromChoice', () => {
  it('none is no embedder; a bundled model by name; a folder that is not a model is EMBEDDER_UNAVAILABLE', async () => {
    expect(await createEmbedderFromChoice({ kind: 'none' })).toBeUndefined();
    const english = await createEmbedderFromChoice({ kind: 'model', model: 'zeromem-static-en' });
    expect(english?.modelId).toBe('transformers.js:zeromem-static-en');
    await english?.dispose();
    await expect(createEmbedderFromChoice({ kind: 'path', path: scratch })).rejects.toMatchObject({ code: 'EMBEDDER_UNAVAILABLE' });
  }, 60_000);

  it('bundled routes other text than Chinese to the static English model (128 + 512 coordinates, as on main); minilm to all-MiniLM-L6-v2 (384 + 512)', async () => {
    const bundled = await createEmbedderFromChoice({ kind: 'bundled' });
    expect(bundled?.modelId).toMatch(/^route:han=transformers\.js:bge-small-zh-v1\.5;.*\|other=transformers\.js:zeromem-static-en$/);
    expect(bundled?.dimension).toBe(640);
    await bundled?.dispose();
    const minilm = await createEmbedderFromChoice(parseEmbedderChoice('minilm'));
    expect(minilm?.modelId).toMatch(/^route:han=transformers\.js:bge-small-zh-v1\.5;.*\|other=transformers\.js:all-MiniLM-L6-v2;dtype=q8$/);
    expect(minilm?.dimension).toBe(896);
    expect(describeEmbedderChoice({ kind: 'minilm' })).toBe('minilm (bundled, English by all-MiniLM-L6-v2)');
    await minilm?.dispose();
  }, 60_000);
});
