import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { type Awareness, encodeAwarenessUpdate } from 'y-protocols/awareness';
import * as sync from 'y-protocols/sync';
import type * as Y from 'yjs';

// Top-level message types of the y-websocket protocol (the first varuint of a message).
// Type 2 (auth) is not used: the relay authenticates at the HTTP upgrade.

/** A y-protocols sync message follows: step 1, step 2 or update. */
export const MESSAGE_SYNC = 0;
/** An awareness update follows (client ids, clocks and JSON states). */
export const MESSAGE_AWARENESS = 1;
/** Nothing follows: the sender asks for every current awareness state. */
export const MESSAGE_QUERY_AWARENESS = 3;

/** A sync step 1 message: the relay's state vector, asking the peer for what it lacks. */
export function syncStep1Message(doc: Y.Doc): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  sync.writeSyncStep1(encoder, doc);
  return encoding.toUint8Array(encoder);
}

/** A sync step 2 message: what `doc` has beyond the peer's state vector. */
export function syncStep2Message(doc: Y.Doc, stateVector: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  sync.writeSyncStep2(encoder, doc, stateVector);
  return encoding.toUint8Array(encoder);
}

/** A sync update message carrying one document update. */
export function updateMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  sync.writeUpdate(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** An awareness message with the states of `clients`. */
export function awarenessMessage(awareness: Awareness, clients: number[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
  encoding.writeVarUint8Array(encoder, encodeAwarenessUpdate(awareness, clients));
  return encoding.toUint8Array(encoder);
}

/**
 * Deepest nesting of arrays and objects an awareness state may have. Presence states are
 * shallow (a user, a cursor); a deep one would overflow the stack of `JSON.stringify` when
 * the relay encodes the room's awareness for the next peer.
 */
export const MAX_AWARENESS_DEPTH = 64;

/** One client's entry in an awareness update: its id, and its state's size or its removal. */
export interface AwarenessEntry {
  clientId: number;
  clock: number;
  /** The state's JSON text. */
  state: string;
  /** Length of the state's JSON text (UTF-8 bytes); 0 for a removal. */
  bytes: number;
  /** The state is `null`: the client is gone. */
  removed: boolean;
}

/**
 * The entries of an awareness update (the client ids it speaks for). Throws on a malformed
 * update, including a state that is not JSON (y-protocols would throw on it halfway through
 * applying the update) or is nested deeper than {@link MAX_AWARENESS_DEPTH}.
 */
export function awarenessEntries(update: Uint8Array): AwarenessEntry[] {
  const decoder = decoding.createDecoder(update);
  const count = decoding.readVarUint(decoder);
  const entries: AwarenessEntry[] = [];
  for (let i = 0; i < count; i++) {
    const clientId = decoding.readVarUint(decoder);
    const clock = decoding.readVarUint(decoder);
    const start = decoder.pos;
    const state = decoding.readVarString(decoder);
    if (jsonDepth(state) > MAX_AWARENESS_DEPTH) throw new Error(`awareness state nested too deep (over ${MAX_AWARENESS_DEPTH} levels)`);
    const removed = JSON.parse(state) === null;
    entries.push({ clientId, clock, state, bytes: removed ? 0 : decoder.pos - start, removed });
  }
  if (decoding.hasContent(decoder)) throw new Error('trailing bytes after the awareness update');
  return entries;
}

/** An awareness update of these entries (the format y-protocols' `applyAwarenessUpdate` reads). */
export function encodeAwarenessEntries(entries: readonly AwarenessEntry[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, entries.length);
  for (const { clientId, clock, state } of entries) {
    encoding.writeVarUint(encoder, clientId);
    encoding.writeVarUint(encoder, clock);
    encoding.writeVarString(encoder, state);
  }
  return encoding.toUint8Array(encoder);
}

/** How deep arrays and objects nest in a JSON text (brackets inside strings do not count); checked before parsing it. */
function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c /* \\ */) i++;
      else if (char === 0x22 /* " */) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b /* [ */ || char === 0x7b /* { */) deepest = Math.max(deepest, ++depth);
    else if (char === 0x5d /* ] */ || char === 0x7d /* } */) depth--;
  }
  return deepest;
}

/**
 * Checks that `stateVector` is one: pairs of client id and clock, nothing after them.
 * Yjs reads an unchecked one while encoding the answer and throws there.
 */
function checkStateVector(stateVector: Uint8Array): void {
  const decoder = decoding.createDecoder(stateVector);
  const count = decoding.readVarUint(decoder);
  for (let i = 0; i < count; i++) {
    decoding.readVarUint(decoder); // client
    decoding.readVarUint(decoder); // clock
  }
  if (decoding.hasContent(decoder)) throw new Error('trailing bytes after the state vector');
}

/** A decoded incoming message, or why it cannot be used. */
export type IncomingMessage =
  | { kind: 'sync-step-1'; stateVector: Uint8Array }
  | { kind: 'update'; update: Uint8Array }
  | { kind: 'awareness'; update: Uint8Array; entries: AwarenessEntry[] }
  | { kind: 'query-awareness' };

/** Decodes and checks one client message; throws on anything malformed or unknown. */
export function decodeMessage(data: Uint8Array): IncomingMessage {
  const decoder = decoding.createDecoder(data);
  const type = decoding.readVarUint(decoder);
  let message: IncomingMessage;
  if (type === MESSAGE_SYNC) {
    const step = decoding.readVarUint(decoder);
    const payload = decoding.readVarUint8Array(decoder);
    if (step === sync.messageYjsSyncStep1) {
      checkStateVector(payload);
      message = { kind: 'sync-step-1', stateVector: payload };
    }
    else if (step === sync.messageYjsSyncStep2 || step === sync.messageYjsUpdate) message = { kind: 'update', update: payload };
    else throw new Error(`unknown sync message type ${step}`);
  } else if (type === MESSAGE_AWARENESS) {
    const update = decoding.readVarUint8Array(decoder);
    message = { kind: 'awareness', update, entries: awarenessEntries(update) };
  } else if (type === MESSAGE_QUERY_AWARENESS) {
    message = { kind: 'query-awareness' };
  } else {
    throw new Error(`unknown message type ${type}`);
  }
  if (decoding.hasContent(decoder)) throw new Error('trailing bytes after the message');
  return message;
}
