/**
 * LangGraph's store filter: `{ field: value }` means equal (strictly), and a value of
 * operators (`$eq $ne $gt $gte $lt $lte $in $nin`) must satisfy each of them. The same
 * rules as LangGraph's InMemoryStore, so a graph behaves the same on either store.
 */
export function matchesFilter(value: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([field, expected]) => compare(value[field], expected));
}

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin']);

function compare(actual: unknown, expected: unknown): boolean {
  if (typeof expected !== 'object' || expected === null || !Object.keys(expected).every((key) => OPERATORS.has(key))) return actual === expected;
  return Object.entries(expected).every(([op, operand]) => {
    switch (op) {
      case '$eq':
        return actual === operand;
      case '$ne':
        return actual !== operand;
      case '$gt':
        return Number(actual) > Number(operand);
      case '$gte':
        return Number(actual) >= Number(operand);
      case '$lt':
        return Number(actual) < Number(operand);
      case '$lte':
        return Number(actual) <= Number(operand);
      case '$in':
        return Array.isArray(operand) && operand.includes(actual);
      default: // $nin
        return !Array.isArray(operand) || !operand.includes(actual);
    }
  });
}
