import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contentHash, contentHashes, normalizeContent } from '../src/model/content-hash.ts';
import { fcSeed } from './helpers.ts';

/** The reference: WebCrypto's SHA-256 of the normalized content's UTF-8 bytes, as in every browser. */
async function reference(content: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(normalizeContent(content))));
  return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The module as a runtime without `process.getBuiltinModule` (a browser, Node < 20.16) loads it. */
async function loadWithoutNodeCrypto(): Promise<typeof import('../src/model/content-hash.ts')> {
  vi.resetModules();
  vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
  try {
    return await import('../src/model/content-hash.ts');
  } finally {
    vi.unstubAllGlobals();
  }
}

// Any text, lone surrogates and all, plus the whitespace and compatibility forms normalization folds.
const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: fc.constantFrom(' ', '\t', '\n', 'ﬁ', 'Å', 'é', '\u0301', '😀', '\ud800', 'a'), maxLength: 40 }));

describe('content hash', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('is the known SHA-256 of the normalized text', async () => {
    // sha256("hello world"), the normalized form of "  hello \n world ".
    expect(await contentHash('  hello \n world ')).toBe('b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9');
  });

  it('is the same in Node (node:crypto), in a runtime with WebCrypto only, and one by one or in a batch (seeded)', async () => {
    const webOnly = await loadWithoutNodeCrypto();
    const seed = fcSeed('content hash');
    await fc.assert(
      fc.asyncProperty(fc.array(text, { maxLength: 8 }), async (contents) => {
        const expected = await Promise.all(contents.map(reference));
        expect(await Promise.all(contents.map(contentHash))).toEqual(expected);
        expect(await contentHashes(contents)).toEqual(expected);
        expect(await Promise.all(contents.map(webOnly.contentHash))).toEqual(expected);
        expect(await webOnly.contentHashes(contents)).toEqual(expected);
      }),
      { seed, numRuns: 200 },
    );
  });

  it('normalizes printable ASCII (which it leaves as it is when already normal) as NFKC and whitespace folding do (seeded)', () => {
    const folded = (content: string) => content.normalize('NFKC').replace(/\s+/gu, ' ').trim();
    const ascii = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u3000', 'a', 'Z', '~', '!', '\u007f', '\u001f'), maxLength: 30 });
    for (const edge of ['', ' ', 'a', ' a', 'a ', 'a  b', 'a b', 'a\tb', '~', '\u007f']) expect(normalizeContent(edge), JSON.stringify(edge)).toBe(folded(edge));
    fc.assert(
      fc.property(fc.oneof(ascii, text), (content) => {
        expect(normalizeContent(content)).toBe(folded(content));
      }),
      { seed: fcSeed('normalized ascii'), numRuns: 500 },
    );
  });
});
