/** UTF-8 length of a string in bytes, without allocating. Lone surrogates count as 3 (U+FFFD). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** True when the string has no unpaired UTF-16 surrogate (it round-trips through UTF-8). */
export function isWellFormedText(text: string): boolean {
  // In unicode mode a surrogate class matches only unpaired surrogates.
  return !/[\uD800-\uDFFF]/u.test(text);
}
