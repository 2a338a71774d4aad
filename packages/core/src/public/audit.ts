// The audit log: its entries (which never hold content) and `audit`'s options.

import type { Namespace } from './memory-record.ts';

/** The kinds of change the audit log records. */
export type AuditOp = 'remember' | 'update' | 'forget' | 'expire' | 'merge' | 'retier';

/** An audit log entry. It never holds content. */
export interface AuditEntry {
  /** Increasing sequence number, for paging. */
  seq: number;
  op: AuditOp;
  id: string;
  namespace: Namespace;
  at: number;
  actor: string;
  /** True when the change came from another replica through sync (`replicaOf(memory).apply`). */
  replicated?: true;
  /** Values the write's redaction masked or hashed, per detector (counts, never values). */
  redacted?: Record<string, number>;
}

/** Options of `audit(namespace, options)`. */
export interface AuditOptions {
  /** Entries after this `seq` (paging). Default 0: from the start. */
  after?: number;
  /** At most this many entries, 1..10000. Default 1000. */
  limit?: number;
}
