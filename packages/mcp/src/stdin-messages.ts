import { Transform, type TransformCallback } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The longest message zeromem-mcp reads over stdio, in bytes: the MCP SDK's read buffer limit (10 MiB). */
export const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** JSON-RPC's code for a request that is not a valid one. */
const INVALID_REQUEST = -32600;
/** Bytes kept of each end of a refused message, to find its id. */
const ENDS = 512;

/** A message (one line) longer than {@link MAX_MESSAGE_BYTES}, dropped unread. */
export interface OversizedMessage {
  /** Its length in bytes, without the newline. */
  bytes: number;
  /** The request's id when it could be seen at either end of the line (`"id"` first or last), else `undefined`. */
  id: string | number | undefined;
}

/**
 * stdin as the SDK's stdio transport should read it: whole lines (messages) of at most
 * {@link MAX_MESSAGE_BYTES}. The SDK's transport throws when its buffer passes that size
 * and closes itself, which made zeromem-mcp exit 0 without a word on one large message.
 * This stream holds back a line until its newline arrives and drops a longer one as it
 * streams by (keeping its first and last bytes), then calls `onOversized`; every other
 * line passes through unchanged, so the transport never sees more than one line at a time.
 */
export class BoundedMessages extends Transform {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** The line being dropped: its first and last bytes and its length so far. */
  #dropping: { head: Buffer; tail: Buffer; bytes: number } | undefined;

  constructor(private readonly onOversized: (message: OversizedMessage) => void) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      this.#take(chunk.subarray(start, end));
      if (newline === -1) break;
      this.#endLine();
      start = newline + 1;
    }
    done();
  }

  /** Part of the current line (no newline in it). */
  #take(part: Buffer): void {
    if (part.length === 0) return;
    const dropping = this.#dropping;
    if (dropping) {
      dropping.bytes += part.length;
      dropping.tail = lastBytes(Buffer.concat([dropping.tail, part]));
      return;
    }
    if (this.#pendingBytes + part.length <= MAX_MESSAGE_BYTES) {
      this.#pending.push(part);
      this.#pendingBytes += part.length;
      return;
    }
    const held = Buffer.concat([...this.#pending, part]);
    this.#dropping = { head: Buffer.from(held.subarray(0, ENDS)), tail: lastBytes(held), bytes: held.length };
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  /** The current line ended: pass it on, or report the one dropped. */
  #endLine(): void {
    const dropped = this.#dropping;
    if (dropped) {
      this.#dropping = undefined;
      this.onOversized({ bytes: dropped.bytes, id: requestId(dropped.head.toString('utf8'), dropped.tail.toString('utf8')) });
      return;
    }
    this.#pending.push(Buffer.from('\n'));
    this.push(Buffer.concat(this.#pending));
    this.#pending = [];
    this.#pendingBytes = 0;
  }
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length > ENDS ? Buffer.from(buffer.subarray(buffer.length - ENDS)) : buffer;
}

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"jsonrpc":"2.0","id":…` or `{"id":…` at the start of the line. */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}`);
/** `…,"id":…}` or `…,"id":…,"jsonrpc":"2.0"}` at its end (the SDK's own clients put the id last). */
const ID_LAST = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID_VALUE}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`);

/** The id of a request from the two ends of its line, when a top-level `"id"` is first or last there. */
function requestId(head: string, tail: string): string | number | undefined {
  const match = ID_FIRST.exec(head) ?? ID_LAST.exec(tail);
  if (!match) return undefined;
  try {
    return JSON.parse(match[1]!) as string | number;
  } catch {
    return undefined;
  }
}

/** The JSON-RPC error answering an oversized message (without an id when none could be seen: JSON-RPC's "could not be determined"). */
export function oversizedError(message: OversizedMessage): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    ...(message.id === undefined ? {} : { id: message.id }),
    error: {
      code: INVALID_REQUEST,
      message: `INVALID_INPUT: the message is ${message.bytes} bytes; zeromem-mcp reads messages of at most ${MAX_MESSAGE_BYTES} bytes over stdio (send less content per call)`,
    },
  } as JSONRPCMessage;
}
