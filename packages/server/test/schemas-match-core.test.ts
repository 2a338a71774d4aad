/**
 * The service's schemas restate core's types (OpenAPI needs them as zod). This file keeps
 * them together: at compile time (the workspace type check) each schema must have exactly
 * the fields of core's type, and each value core returns must fit the response schema; at
 * run time real values of core must pass the strict response schemas.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { z } from '@hono/zod-openapi';
import {
  LAYERS,
  SOURCES,
  openMemory,
  type AuditEntry,
  type BuildContextOptions,
  type BuiltContext,
  type ImportResult,
  type ListOptions,
  type ListPage,
  type MemoryRecord,
  type NamespaceStats,
  type ProfileEntry,
  type RecallExplain,
  type RecallOptions,
  type RecallResult,
  type RecordFilter,
  type RecordVersion,
  type RememberInput,
  type RememberResult,
  type UpdatePatch,
} from '@zeromem/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  AuditEntrySchema,
  BuiltContextSchema,
  ContextBodySchema,
  ImportResultSchema,
  ListPageSchema,
  ListQuery,
  ProfileEntrySchema,
  RecallBodySchema,
  RecallResultSchema,
  RecordFilterSchema,
  RecordSchema,
  RecordVersionSchema,
  RememberInputSchema,
  RememberResultSchema,
  StatsSchema,
  UpdateBodySchema,
} from '../src/schemas.ts';

type Out<S extends z.ZodType> = z.output<S>;
type Explain = Out<typeof RecallResultSchema>['hits'][number]['explain'];

describe('the service schemas and core types', () => {
  it('have the same fields (compile time)', () => {
    expectTypeOf<keyof Out<typeof RecordSchema>>().toEqualTypeOf<keyof MemoryRecord>();
    expectTypeOf<keyof Out<typeof RememberInputSchema>>().toEqualTypeOf<keyof RememberInput>();
    expectTypeOf<keyof Out<typeof UpdateBodySchema>['patch']>().toEqualTypeOf<keyof UpdatePatch>();
    expectTypeOf<keyof Out<typeof RecordFilterSchema>>().toEqualTypeOf<keyof RecordFilter>();
    expectTypeOf<keyof Out<typeof RecallBodySchema>>().toEqualTypeOf<'namespace' | 'query' | keyof RecallOptions>();
    expectTypeOf<keyof Out<typeof ContextBodySchema>>().toEqualTypeOf<keyof BuildContextOptions>();
    expectTypeOf<keyof Out<typeof RecallResultSchema>>().toEqualTypeOf<keyof RecallResult>();
    expectTypeOf<keyof Explain>().toEqualTypeOf<keyof RecallExplain>();
    expectTypeOf<keyof Out<typeof BuiltContextSchema>['report']>().toEqualTypeOf<keyof BuiltContext['report']>();
    expectTypeOf<keyof Out<typeof StatsSchema>>().toEqualTypeOf<keyof NamespaceStats>();
    expectTypeOf<keyof Out<typeof AuditEntrySchema>>().toEqualTypeOf<keyof AuditEntry>();
    expectTypeOf<keyof Out<typeof RecordVersionSchema>>().toEqualTypeOf<keyof RecordVersion>();
    expectTypeOf<keyof Out<typeof ImportResultSchema>>().toEqualTypeOf<keyof ImportResult>();
    expectTypeOf<keyof Out<typeof ListPageSchema>>().toEqualTypeOf<keyof ListPage>();
    expectTypeOf<keyof Out<typeof RememberResultSchema>>().toEqualTypeOf<keyof RememberResult>();
    expectTypeOf<keyof Out<typeof ProfileEntrySchema>>().toEqualTypeOf<keyof ProfileEntry>();
    // The list query names core's list options (and the namespace, a tag and where as text).
    expectTypeOf<Exclude<keyof Out<typeof ListQuery>, 'userId' | 'agentId' | 'scope' | 'tag'>>().toExtend<keyof ListOptions>();
  });

  it("take core's values and enums (compile time)", () => {
    expectTypeOf<MemoryRecord>().toExtend<Out<typeof RecordSchema>>();
    expectTypeOf<NamespaceStats>().toExtend<Out<typeof StatsSchema>>();
    expectTypeOf<RecallExplain>().toExtend<Explain>();
    expectTypeOf<AuditEntry>().toExtend<Out<typeof AuditEntrySchema>>();
    expectTypeOf<RecordVersion>().toExtend<Out<typeof RecordVersionSchema>>();
    expectTypeOf<RememberResult>().toExtend<Out<typeof RememberResultSchema>>();
    expectTypeOf<ProfileEntry>().toExtend<Out<typeof ProfileEntrySchema>>();
    expectTypeOf<MemoryRecord['source']>().toEqualTypeOf<Out<typeof RecordSchema>['source']>();
    expectTypeOf<MemoryRecord['layer']>().toEqualTypeOf<Out<typeof RecordSchema>['layer']>();
    expectTypeOf<MemoryRecord['tier']>().toEqualTypeOf<Out<typeof RecordSchema>['tier']>();
  });

  it("accept what core returns, strictly (run time)", async () => {
    const directory = mkdtempSync(join(tmpdir(), 'zeromem-schemas-'));
    const memory = await openMemory({ name: 'schemas', directory });
    try {
      const namespace = { userId: 'wang', agentId: 'after-sales' };
      const { record } = await memory.remember({ namespace, content: 'Mr Wang prefers phone calls after six', tags: ['contact'], metadata: { city: 'Lyon' } });
      await memory.update(namespace, record.id, { importance: 0.9 });
      expect(RecordSchema.parse(await memory.get(namespace, record.id))).toBeDefined();
      expect(StatsSchema.parse(await memory.stats(namespace))).toMatchObject({ count: 1, byTag: { contact: 1 } });
      expect(RecallResultSchema.parse(JSON.parse(JSON.stringify(await memory.recall(namespace, 'phone calls'))))).toBeDefined();
      expect(BuiltContextSchema.parse(await memory.buildContext({ namespace, query: 'phone' }))).toBeDefined();
      expect(ListPageSchema.parse(await memory.list(namespace))).toBeDefined();
      expect((await memory.history(namespace, record.id)).map((version) => RecordVersionSchema.parse(version))).toHaveLength(1);
      expect((await memory.audit(namespace)).map((entry) => AuditEntrySchema.parse(entry))).toHaveLength(2);
      // Keyed facts: the write's result, the closed fact, the profile.
      const phone = await memory.remember({ namespace, key: 'contact.channel', content: 'Mr Wang prefers phone calls', validFrom: '2026-03-03' });
      const email = RememberResultSchema.parse(await memory.remember({ namespace, key: 'contact.channel', content: 'Mr Wang prefers e-mail' }));
      expect(email.closed).toEqual([phone.id]);
      expect(RecordSchema.parse(await memory.get(namespace, phone.id))).toMatchObject({ closedBy: email.id });
      expect((await memory.profile(namespace)).map((entry) => ProfileEntrySchema.parse(entry))).toHaveLength(1);
      expect(RecallResultSchema.parse(JSON.parse(JSON.stringify(await memory.recall(namespace, 'phone', { includeClosed: true }))))).toBeDefined();
      expect(BuiltContextSchema.parse(await memory.buildContext({ namespace, query: 'how to reach Mr Wang' })).report.included.map((item) => item.layer)).toContain('profile');
      expect(RecordSchema.shape.source.options).toEqual([...SOURCES]);
      expect(RecordSchema.shape.layer.options).toEqual([...LAYERS]);
    } finally {
      await memory.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
