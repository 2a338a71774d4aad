// Queries over a record's `metadata` (`RecordFilter.metadata`).

import type { JsonValue } from './memory-record.ts';

/**
 * A condition on metadata, for the `where` filter of `list`, `count`, `forgetWhere` and
 * `recall`: one {@link MetadataCondition}, or `and` / `or` / `not` of conditions.
 *
 * @example
 * import { openMemory } from '@zeromem/core';
 *
 * const memory = await openMemory({ name: 'tickets' });
 * const namespace = { userId: 'wang' };
 * await memory.remember({ namespace, content: 'Charging port loose', metadata: { status: 'open', priority: 4 } });
 * await memory.remember({ namespace, content: 'Invoice resent', metadata: { status: 'open', priority: 1 } });
 * const where = { and: [{ key: 'status', in: ['open', 'waiting'] }, { not: { key: 'priority', lt: 3 } }] };
 * console.log((await memory.list(namespace, { where })).items.map((r) => r.content)); // [ 'Charging port loose' ]
 * await memory.close();
 */
export type MetadataQuery = { and: MetadataQuery[] } | { or: MetadataQuery[] } | { not: MetadataQuery } | MetadataCondition;

/**
 * Operators on one metadata value; every operator given must hold. The value is
 * `metadata[key]`, or with a path `["order", "total"]` `metadata.order.total`.
 * - `eq` / `ne`: deep equality (a missing value is never equal, so `ne` matches it).
 * - `gt` `gte` `lt` `lte`: a number compared with a number, a string with a string (code
 *   unit order, so ISO dates compare as times); any other pair does not match.
 * - `in` / `nin`: equals one / none of the listed values (`nin` matches a missing value).
 * - `contains`: a string value containing the given string, or an array value holding an
 *   element equal to the given value.
 * - `exists`: the value is present (`true`) or absent (`false`).
 */
export interface MetadataCondition {
  key: string | string[];
  eq?: JsonValue;
  ne?: JsonValue;
  gt?: number | string;
  gte?: number | string;
  lt?: number | string;
  lte?: number | string;
  in?: JsonValue[];
  nin?: JsonValue[];
  contains?: JsonValue;
  exists?: boolean;
}
