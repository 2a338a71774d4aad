import { nextMacrotask } from './next-macrotask.ts';

const encoder = new TextEncoder();

/**
 * The form of content that duplicate detection compares: Unicode NFKC, whitespace runs
 * folded to one space, trimmed. Case is kept: "US" and "us" are different memories.
 */
export function normalizeContent(content: string): string {
  // Printable ASCII with single inner spaces is its own normal form: NFKC and the folding
  // would copy it unchanged (most of a bulk import's time in this function).
  if (!NOT_NORMAL_ASCII.test(content)) return content;
  return content.normalize('NFKC').replace(/\s+/gu, ' ').trim();
}

/** Matches what may change in {@link normalizeContent}: a character outside printable ASCII, two spaces in a row, a space at either end. */
const NOT_NORMAL_ASCII = /[^ -~]| {2}|^ | $/;

/** The part of `node:crypto` used here. */
interface NodeCrypto {
  createHash(algorithm: 'sha256'): { update(data: Uint8Array): { digest(encoding: 'hex'): string } };
  /** One-shot hash of a string's UTF-8 bytes (Node >= 20.12): about half the time of `createHash` for a short text, and no byte copy. */
  hash?(algorithm: 'sha256', data: string, encoding: 'hex'): string;
}

/**
 * Node's own SHA-256, where the runtime offers it without an import (Node >= 20.16 and
 * runtimes with its `process.getBuiltinModule`): ~2 µs a hash against 30-100 µs for
 * WebCrypto's asynchronous digest, which made the hash a large part of a bulk import. Browsers, and Node before 20.16, use WebCrypto.
 * There is no `import 'node:crypto'`, so bundlers for the browser see nothing to resolve.
 */
const nodeCrypto = ((globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:crypto') ?? undefined) as
  | NodeCrypto
  | undefined;

/**
 * SHA-256 (lower-case hex) of the normalized content's UTF-8 bytes. Every runtime gives
 * the same hash for the same content: dedup across devices depends on it.
 */
export async function contentHash(content: string): Promise<string> {
  if (!nodeCrypto) return webDigest(content);
  const hash = nodeDigest(nodeCrypto, content);
  await nextMacrotask();
  return hash;
}

/**
 * {@link contentHash} at once, where the runtime has Node's SHA-256 (`undefined` elsewhere):
 * for checks on a synchronous path, such as a record read back from a file.
 */
export function contentHashNow(content: string): string | undefined {
  return nodeCrypto && nodeDigest(nodeCrypto, content);
}

/** {@link contentHash} of each content, in order (one synchronous pass where the runtime allows it). */
export async function contentHashes(contents: readonly string[]): Promise<string[]> {
  if (!nodeCrypto) return Promise.all(contents.map(webDigest));
  const hashes = contents.map((content) => nodeDigest(nodeCrypto, content));
  await nextMacrotask();
  return hashes;
}

// Writers start a Dexie transaction right after hashing. WebCrypto's digest resolves on a
// later macrotask; with node:crypto resolving at once, dozens of concurrent writes started
// their transactions in one burst of microtasks, and Dexie then let one commit before its
// async scope had finished ("Transaction committed too early", concurrency.test.ts with
// FC_SEED=2064469622). Resolving on the next macrotask (nextMacrotask) keeps WebCrypto's timing.

function nodeDigest(node: NodeCrypto, content: string): string {
  // Both encode lone surrogates as U+FFFD, as TextEncoder does: the same hash either way.
  return node.hash ? node.hash('sha256', normalizeContent(content), 'hex') : node.createHash('sha256').update(encoder.encode(normalizeContent(content))).digest('hex');
}

async function webDigest(content: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(normalizeContent(content))));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
