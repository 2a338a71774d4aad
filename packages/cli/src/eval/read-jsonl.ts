import { fileLines } from '../file-lines.ts';

/** One parsed line of a JSONL file, with its 1-based line number for error messages. */
export interface JsonlLine {
  line: number;
  value: unknown;
}

/** A malformed line: says which file and line, and why. */
export class JsonlError extends Error {
  override readonly name = 'JsonlError';
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
  }
}

/**
 * Streams a JSONL file one parsed line at a time; `.gz` files are gunzipped on the fly.
 * Blank lines are skipped (they still count for line numbers). A line that is not JSON
 * throws a {@link JsonlError} naming the file and line.
 */
export async function* readJsonl(file: string): AsyncGenerator<JsonlLine> {
  let line = 0;
  try {
    for await (const text of fileLines(file)) {
      line++;
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        throw new JsonlError(file, line, `not valid JSON (${(err as Error).message})`);
      }
      yield { line, value };
    }
  } catch (err) {
    if (err instanceof JsonlError) throw err;
    throw new JsonlError(file, line + 1, `cannot read: ${(err as Error).message}`);
  }
}
