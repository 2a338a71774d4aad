/**
 * Guards a vector from an embedder: right length, finite, non-zero; returns it scaled to
 * unit length, or `null` when it carries no direction (zero norm, NaN).
 */
export function toUnitVector(vector: ArrayLike<number> | null | undefined, dimension: number): Float32Array | null {
  if (!vector || vector.length !== dimension) return null;
  let norm = 0;
  for (let i = 0; i < dimension; i++) norm += vector[i]! * vector[i]!;
  if (!Number.isFinite(norm) || norm < 1e-12) return null;
  const scale = 1 / Math.sqrt(norm);
  const unit = new Float32Array(dimension);
  for (let i = 0; i < dimension; i++) unit[i] = vector[i]! * scale;
  return unit;
}
