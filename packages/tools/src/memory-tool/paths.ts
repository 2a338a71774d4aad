import { MAX_FACT_KEY_BYTES } from '@zeromem/core';
import { ToolFailure } from './tool-failure.ts';

/** The directory every path of the memory tool lives in, as Anthropic's tool names it. */
export const MEMORY_ROOT = '/memories';

/** The fact key of {@link MEMORY_ROOT}: every file's key starts with it and a dot. */
const ROOT_KEY = 'memories';

/**
 * A checked memory path: `/memories` or `/memories/<segment>/...`, without a trailing
 * slash. Refused (nothing runs): anything outside `/memories`, `..` and `.` segments
 * (also percent-encoded), empty segments (`//`), backslashes and control characters.
 * One trailing slash is allowed and dropped (`/memories/notes/` is `/memories/notes`).
 */
export function checkPath(path: string): string {
  const trimmed = path.length > MEMORY_ROOT.length + 1 && path.endsWith('/') ? path.slice(0, -1) : path === `${MEMORY_ROOT}/` ? MEMORY_ROOT : path;
  if (trimmed !== MEMORY_ROOT && !trimmed.startsWith(`${MEMORY_ROOT}/`)) {
    throw new ToolFailure(`Error: The path ${path} is outside ${MEMORY_ROOT}: every memory path starts with ${MEMORY_ROOT}/ (e.g. ${MEMORY_ROOT}/notes.md).`);
  }
  const segments = trimmed.slice(MEMORY_ROOT.length + 1).split('/');
  if (trimmed === MEMORY_ROOT) return trimmed;
  for (const segment of segments) {
    if (segment === '' || /[\\\u0000-\u001f\u007f]/.test(segment) || isDots(segment) || isDots(decodePercent(segment))) {
      throw new ToolFailure(
        `Error: The path ${path} is not allowed: a memory path has no '..' or '.' segments, no empty segments ('//'), no backslashes and no control characters. Use a plain path such as ${MEMORY_ROOT}/notes/project.md.`,
      );
    }
  }
  if (keyOf(trimmed).length > MAX_FACT_KEY_BYTES) {
    throw new ToolFailure(
      `Error: The path ${path} is too long for the memory store: it keeps paths whose key is at most ${MAX_FACT_KEY_BYTES} bytes (a lower-case letter, digit or _ is one byte, '/' one, any other character three or more). Use a shorter path.`,
    );
  }
  return trimmed;
}

function isDots(segment: string): boolean {
  return segment === '.' || segment === '..';
}

/** The segment with `%xx` escapes decoded, so `%2e%2e` is seen as `..`; the segment itself when it does not decode. */
function decodePercent(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The fact key a checked path is stored under: the path's segments, joined by `.`, under
 * `memories`, each character other than `a-z`, `0-9` and `_` written as `-` and the hex of
 * its UTF-8 bytes (`notes.md` is `notes-2emd`, `A` is `-41`). One path has one key and one
 * key one path, so every process and device that writes a path writes the same key.
 */
export function keyOf(path: string): string {
  if (path === MEMORY_ROOT) return ROOT_KEY;
  const encoder = new TextEncoder();
  const segments = path.slice(MEMORY_ROOT.length + 1).split('/');
  return [ROOT_KEY, ...segments.map((segment) => [...segment].map((char) => (/[a-z0-9_]/.test(char) ? char : [...encoder.encode(char)].map((byte) => `-${byte.toString(16).padStart(2, '0')}`).join(''))).join(''))].join('.');
}

/** The path a memory file's key stands for, or `undefined` when the key is not one {@link keyOf} writes. */
export function pathOfKey(key: string): string | undefined {
  if (!key.startsWith(`${ROOT_KEY}.`)) return undefined;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const segments: string[] = [];
  for (const segment of key.slice(ROOT_KEY.length + 1).split('.')) {
    const bytes: number[] = [];
    for (let i = 0; i < segment.length; ) {
      if (segment[i] === '-') {
        const hex = segment.slice(i + 1, i + 3);
        if (!/^[0-9a-f]{2}$/.test(hex)) return undefined;
        bytes.push(Number.parseInt(hex, 16));
        i += 3;
      } else {
        bytes.push(segment.charCodeAt(i));
        i += 1;
      }
    }
    try {
      segments.push(decoder.decode(new Uint8Array(bytes)));
    } catch {
      return undefined;
    }
  }
  const path = `${MEMORY_ROOT}/${segments.join('/')}`;
  return keyOf(path) === key ? path : undefined;
}

/** The directories a path is in, nearest last, without `/memories` (`/memories/a/b/c.md` gives `/memories/a`, `/memories/a/b`). */
export function ancestorsOf(path: string): string[] {
  const segments = path.slice(MEMORY_ROOT.length + 1).split('/');
  return segments.slice(0, -1).map((_, i) => `${MEMORY_ROOT}/${segments.slice(0, i + 1).join('/')}`);
}

/** True when `path` is `dir` or inside it. */
export function isWithin(path: string, dir: string): boolean {
  return dir === MEMORY_ROOT ? true : path === dir || path.startsWith(`${dir}/`);
}
