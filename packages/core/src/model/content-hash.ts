const encoder = new TextEncoder();

/**
 * The form of content that duplicate detection compares: Unicode NFKC, whitespace runs
 * folded to one space, trimmed. Case is kept: "US" and "us" are different memories.
 */
export function normalizeContent(content: string): string {
  return content.normalize('NFKC').replace(/\s+/gu, ' ').trim();
}

/** SHA-256 (lower-case hex) of the normalized content. */
export async function contentHash(content: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(normalizeContent(content))));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
