import type { JsonValue, MetadataCondition, MetadataQuery } from '@zeromem/core';

/** Where a stored item keeps its value for core's metadata filters: `metadata.value`. */
export const VALUE_KEY = 'value';

const OPERATORS: Record<string, keyof Omit<MetadataCondition, 'key'>> = { $eq: 'eq', $ne: 'ne', $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte', $in: 'in', $nin: 'nin' };

/**
 * LangGraph's store filter as core's metadata query on the item's value: `{ field: value }`
 * means equal, and a value of operators (`$eq $ne $gt $gte $lt $lte $in $nin`) must
 * satisfy each of them. Core validates it (an operand of the wrong type is INVALID_INPUT)
 * and applies it inside `list` and `recall`, before `k` and pages are counted.
 */
export function storeFilterWhere(filter: Record<string, unknown>): MetadataQuery {
  const conditions: MetadataQuery[] = [];
  for (const [field, expected] of Object.entries(filter)) {
    const key = [VALUE_KEY, field];
    const operators = typeof expected === 'object' && expected !== null && !Array.isArray(expected) ? Object.entries(expected) : [];
    if (operators.length > 0 && operators.every(([op]) => op in OPERATORS)) {
      for (const [op, operand] of operators) conditions.push({ key, [OPERATORS[op]!]: operand } as MetadataCondition);
    } else {
      conditions.push({ key, eq: expected as JsonValue });
    }
  }
  return { and: conditions };
}
