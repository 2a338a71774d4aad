import type { ZeromemError } from '../public/errors.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import type { QuerySignals } from '../public/query-signals.ts';
import type { RelevanceEvidence } from '../public/relevance.ts';

