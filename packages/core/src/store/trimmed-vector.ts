/**
 * A vector as the engines store it: without the zeros before its first non-zero value and
 * after its last. An embedder of side-by-side model spaces (the bundled one: 128 English
 * columns beside 512 Chinese ones) leaves the other model's columns zero, so a vector costs
 * its own model's dimensions on disk, not the whole space's (issue 32).
 */
export interface TrimmedVector {
  /** The whole vector's length. */
  dimension: number;
  /** The column of `values[0]`. */
  first: number;
  /** The values from the first non-zero one to the last (empty for a zero vector). */
  values: Float32Array;
}

/** The trimmed form of `vector`; `values` is a view of it, not a copy. */
export function trimVector(vector: Float32Array): TrimmedVector {
  let first = 0;
  while (first < vector.length && vector[first] === 0) first++;
  let end = vector.length;
  while (end > first && vector[end - 1] === 0) end--;
  return { dimension: vector.length, first, values: vector.subarray(first, end) };
}

/**
 * The whole vector of a trimmed one.
 * @throws RangeError when the parts do not fit together (damaged data)
 */
export function untrimVector({ dimension, first, values }: TrimmedVector): Float32Array {
  if (!(Number.isInteger(dimension) && Number.isInteger(first) && first >= 0 && first + values.length <= dimension)) {
    throw new RangeError(`a stored vector of ${values.length} values from column ${first} does not fit ${dimension} dimensions`);
  }
  const vector = new Float32Array(dimension);
  vector.set(values, first);
  return vector;
}
