/**
 * How a LangGraph item lives in one zeromem namespace: its record id and its tags are
 * hashes of its namespace tuple and key (ids and tags have a small alphabet and length),
 * one tag per prefix of the tuple, so `search(prefix)` is one tag filter.
 */

/** Tag on every item of a store: the empty prefix. */
export const ROOT_TAG = 'lg:*';
/** Longest namespace tuple: a record holds 32 tags, one per prefix and the root. */
export const MAX_DEPTH = 31;

async function hash(parts: unknown): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(parts))));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The record id of (namespace, key). */
export async function itemId(namespace: string[], key: string): Promise<string> {
  return `lg-${await hash([namespace, key])}`;
}

/** The tag every item under `prefix` carries. */
export async function prefixTag(prefix: string[]): Promise<string> {
  return prefix.length === 0 ? ROOT_TAG : `lg:${await hash(prefix)}`;
}

/** The tags of an item in `namespace`: the root and one per non-empty prefix. */
export async function itemTags(namespace: string[]): Promise<string[]> {
  return Promise.all(namespace.map((_label, i) => prefixTag(namespace.slice(0, i + 1)))).then((tags) => [ROOT_TAG, ...tags]);
}
