import { ZeromemError, type MemoryRecord } from '@zeromem/core';
import { replicatedState, type ReplicatedRecord } from '@zeromem/core/internal';
import { open, seal, type Sealed } from './encryption.ts';

/** A record's value in the shared Y.Map: its replicated state without the id (the map key), or that sealed. */
export type SharedValue = Omit<ReplicatedRecord, 'id'> | Sealed;

/**
 * Turns records into shared values and back. With a key, the whole state is encrypted and
 * only the id (the map key) stays in clear; the context binds each ciphertext to its kind
 * (record, tombstone, key check), room and id, so no ciphertext passes for one of another kind.
 */
export class RecordCodec {
  readonly #room: string;
  readonly #key: CryptoKey | undefined;

  constructor(room: string, key: CryptoKey | undefined) {
    this.#room = room;
    this.#key = key;
  }

  get encrypted(): boolean {
    return this.#key !== undefined;
  }

  async encode(record: MemoryRecord): Promise<SharedValue> {
    const { id: _id, ...state } = replicatedState(record);
    if (!this.#key) return state;
    return seal(this.#key, context('rec', this.#room, record.id), encoder.encode(JSON.stringify(state)));
  }

  /** The replicated state of a shared value; DECRYPTION_FAILED when it cannot be read with this codec. */
  async decode(id: string, value: unknown): Promise<unknown> {
    if (!this.#key) {
      if (value instanceof Object && 'x' in value && 'n' in value) {
        throw new ZeromemError('DECRYPTION_FAILED', 'This namespace is shared encrypted: pass its encryptionKey to shareNamespace().');
      }
      return { ...(value as object), id };
    }
    const plain = await open(this.#key, context('rec', this.#room, id), value);
    return { ...(JSON.parse(decoder.decode(plain)) as object), id };
  }

  /**
   * A tombstone: which incarnation of a record (its `createdAt`) was forgotten. Sealed in
   * encrypted rooms, so it tells the relay no more than the deletion itself.
   */
  async encodeTombstone(id: string, createdAt: number): Promise<unknown> {
    if (!this.#key) return createdAt;
    return seal(this.#key, context('tomb', this.#room, id), encoder.encode(String(createdAt)));
  }

  /** The forgotten incarnation, or undefined when there is no readable tombstone. */
  async decodeTombstone(id: string, value: unknown): Promise<number | undefined> {
    if (value === undefined) return undefined;
    if (!this.#key) return typeof value === 'number' ? value : undefined;
    const plain = Number(decoder.decode(await open(this.#key, context('tomb', this.#room, id), value)));
    return Number.isFinite(plain) ? plain : undefined;
  }

  /** The marker an encrypted room carries so a wrong key is found before anything is written. */
  async keyCheck(): Promise<SharedValue> {
    return seal(this.#key!, context('check', this.#room), encoder.encode(KEY_CHECK));
  }

  /** Throws DECRYPTION_FAILED unless `value` is this key's check marker. */
  async verify(value: unknown): Promise<void> {
    const plain = decoder.decode(await open(this.#key!, context('check', this.#room), value));
    if (plain !== KEY_CHECK) throw new ZeromemError('DECRYPTION_FAILED', 'The namespace key check does not match.');
  }
}

/** The AES-GCM additional data of a ciphertext: its kind first, then room and id. */
function context(kind: 'rec' | 'tomb' | 'check', room: string, id = ''): string {
  return `${kind}\u0000${room}\u0000${id}`;
}

const KEY_CHECK = 'zeromem-namespace-key';
const encoder = new TextEncoder();
const decoder = new TextDecoder();
