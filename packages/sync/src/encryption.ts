import { ZeromemError } from '@zeromem/core';

/** A namespace key: a WebCrypto AES-GCM `CryptoKey`, 32 raw bytes, or those bytes in base64. */
export type NamespaceKeyInput = CryptoKey | Uint8Array | string;

/** An encrypted payload as it sits in the shared document. */
export interface Sealed {
  /** 12-byte random nonce. */
  n: Uint8Array;
  /** AES-GCM ciphertext with its 16-byte tag. */
  x: Uint8Array;
}

/** A fresh random 256-bit namespace key, base64, to share out of band (e.g. a QR code). */
export function generateNamespaceKey(): string {
  return toBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/** Imports a namespace key for AES-GCM; INVALID_INPUT when it is not 32 bytes. */
export async function importNamespaceKey(input: NamespaceKeyInput): Promise<CryptoKey> {
  if (typeof CryptoKey !== 'undefined' && input instanceof CryptoKey) {
    if (input.algorithm.name !== 'AES-GCM') throw badKey('a CryptoKey for AES-GCM');
    return input;
  }
  const bytes = typeof input === 'string' ? fromBase64(input) : input instanceof Uint8Array ? input : undefined;
  if (!bytes || bytes.length !== 32) throw badKey('32 bytes (a Uint8Array, or base64 as generateNamespaceKey() returns)');
  return crypto.subtle.importKey('raw', new Uint8Array(bytes), 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/** Encrypts `plain`, bound to `context` (room and record id) so a relay cannot move ciphertexts between records. */
export async function seal(key: CryptoKey, context: string, plain: Uint8Array): Promise<Sealed> {
  const n = crypto.getRandomValues(new Uint8Array(12));
  const x = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: n, additionalData: encoder.encode(context) }, key, new Uint8Array(plain)));
  return { n, x };
}

/** Decrypts a {@link Sealed}; DECRYPTION_FAILED on a wrong key, another context or tampering. */
export async function open(key: CryptoKey, context: string, sealed: unknown): Promise<Uint8Array> {
  const { n, x } = (sealed ?? {}) as Partial<Sealed>;
  if (!(n instanceof Uint8Array) || n.length !== 12 || !(x instanceof Uint8Array)) {
    throw new ZeromemError('DECRYPTION_FAILED', 'A shared value is not an encrypted payload: this namespace was shared without encryption, or the value is corrupt.');
  }
  try {
    return new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: new Uint8Array(n), additionalData: encoder.encode(context) }, key, new Uint8Array(x)));
  } catch (cause) {
    throw new ZeromemError('DECRYPTION_FAILED', 'A shared value does not decrypt with this namespace key: the key is wrong, or the value was tampered with.', { cause });
  }
}

const encoder = new TextEncoder();

function badKey(what: string): ZeromemError {
  return new ZeromemError('INVALID_INPUT', `encryptionKey must be ${what}.`, { issues: [{ path: 'encryptionKey', message: `must be ${what}` }] });
}

function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

function fromBase64(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined; // not base64: the caller reports the key as invalid
  }
}
