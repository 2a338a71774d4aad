import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** The lines of a text file as they stream in; `.gz` files are gunzipped on the fly. */
export async function* fileLines(file: string): AsyncGenerator<string> {
  let input: Readable = createReadStream(file);
  if (file.endsWith('.gz')) {
    const gunzip = createGunzip();
    input.on('error', (err) => gunzip.destroy(err));
    input = input.pipe(gunzip);
  }
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    yield* lines;
  } finally {
    lines.close();
    input.destroy();
  }
}
