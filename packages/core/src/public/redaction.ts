// Redaction of personal data on write: its options, detectors and what one write's redaction did.

/** The built-in detectors of personal data, by name. */
export type DetectorName = 'email' | 'phone' | 'card' | 'iban' | 'cn_id';

/**
 * What happens to a detected value on write: `mask` stores `[email]`; `hash` stores
 * `[email:<12 hex>]`, a keyed hash (HMAC-SHA-256 with `hashKey`) of the normalized value, so
 * equal values still match each other; `reject` refuses the write (INVALID_INPUT);
 * `maskInContext` stores the value as given and masks it only in built contexts.
 */
export type RedactAction = 'mask' | 'hash' | 'reject' | 'maskInContext';

/** The `redaction` option of `openMemory`: on-device detection of personal data on every write, no LLM. */
export interface RedactionOptions {
  /**
   * Per built-in detector (`email`, `phone` (international with +, Chinese mobile), `card`
   * (Luhn-checked), `iban` (mod-97-checked), `cn_id` (Chinese resident ID, checksum and
   * birth date checked)) what to do. Default: every one `mask`. A detector left out of a
   * given object is off.
   */
  detectors?: Partial<Record<DetectorName, RedactAction>>;
  /** Your own patterns (e.g. order or employee numbers), each with a name (`[a-z][a-z0-9_-]*`) and an action. */
  patterns?: Array<{ name: string; pattern: RegExp | string; action: RedactAction }>;
  /** Key of the `hash` action (16 characters or more); required when a detector hashes. Keep it secret and stable. */
  hashKey?: string;
}

/** What one write's redaction did: per detector and action, how many values (never the values). */
export interface RedactionCount {
  detector: string;
  action: 'mask' | 'hash';
  count: number;
}
