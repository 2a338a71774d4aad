// Linear algebra of the static-model builds (small, dependency-free).

/** Weighted covariance-free PCA: top-k eigenvectors of X^T X / n (X centred) by Jacobi. */
export function pca(x: Float32Array, n: number, d: number, k: number): { components: Float64Array; mean: Float64Array } {
  const mean = new Float64Array(d);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) mean[j]! += x[i * d + j]!;
  for (let j = 0; j < d; j++) mean[j]! /= n;
  const cov = new Float64Array(d * d);
  const row = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) row[j] = x[i * d + j]! - mean[j]!;
    for (let a = 0; a < d; a++) {
      const ra = row[a]!;
      const off = a * d;
      for (let b = a; b < d; b++) cov[off + b]! += ra * row[b]!;
    }
  }
  for (let a = 0; a < d; a++) for (let b = a; b < d; b++) cov[b * d + a] = cov[a * d + b]! /= n;
  const { values, vectors } = jacobiEigen(cov, d);
  const order = Array.from(values.keys()).sort((p, q) => values[q]! - values[p]!);
  const components = new Float64Array(k * d);
  for (let c = 0; c < k; c++) {
    const col = order[c]!;
    for (let j = 0; j < d; j++) components[c * d + j] = vectors[j * d + col]!;
  }
  return { components, mean };
}

/** Cyclic Jacobi eigen-decomposition of a symmetric d x d matrix (row-major, destroyed). */
function jacobiEigen(a: Float64Array, d: number): { values: Float64Array; vectors: Float64Array } {
  const v = new Float64Array(d * d);
  for (let i = 0; i < d; i++) v[i * d + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < d; p++) for (let q = p + 1; q < d; q++) off += a[p * d + q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < d; p++) {
      for (let q = p + 1; q < d; q++) {
        const apq = a[p * d + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const app = a[p * d + p]!;
        const aqq = a[q * d + q]!;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < d; k++) {
          const akp = a[k * d + p]!;
          const akq = a[k * d + q]!;
          a[k * d + p] = c * akp - s * akq;
          a[k * d + q] = s * akp + c * akq;
        }
        for (let k = 0; k < d; k++) {
          const apk = a[p * d + k]!;
          const aqk = a[q * d + k]!;
          a[p * d + k] = c * apk - s * aqk;
          a[q * d + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < d; k++) {
          const vkp = v[k * d + p]!;
          const vkq = v[k * d + q]!;
          v[k * d + p] = c * vkp - s * vkq;
          v[k * d + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const values = new Float64Array(d);
  for (let i = 0; i < d; i++) values[i] = a[i * d + i]!;
  return { values, vectors: v };
}

export function normalizeRows(x: Float32Array, n: number, d: number): void {
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < d; j++) s += x[i * d + j]! ** 2;
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let j = 0; j < d; j++) x[i * d + j]! *= inv;
  }
}

/**
 * Removes the first k principal directions of the expected sentence vector distribution
 * (rows weighted by word probability), SIF's "common component removal". It is linear, so
 * removing it from every row equals removing it from every pooled sentence vector.
 */
export function removeCommonDirections(x: Float32Array, n: number, d: number, prob: Float64Array, k: number): void {
  for (let c = 0; c < k; c++) {
    // power iteration on M = sum_i p_i x_i x_i^T
    let u = new Float64Array(d).fill(1 / Math.sqrt(d));
    for (let it = 0; it < 100; it++) {
      const next = new Float64Array(d);
      for (let i = 0; i < n; i++) {
        let dot = 0;
        for (let j = 0; j < d; j++) dot += x[i * d + j]! * u[j]!;
        const w = prob[i]! * dot;
        for (let j = 0; j < d; j++) next[j]! += w * x[i * d + j]!;
      }
      let norm = 0;
      for (let j = 0; j < d; j++) norm += next[j]! ** 2;
      norm = Math.sqrt(norm);
      for (let j = 0; j < d; j++) next[j]! /= norm;
      let delta = 0;
      for (let j = 0; j < d; j++) delta += Math.abs(next[j]! - u[j]!);
      u = next;
      if (delta < 1e-9) break;
    }
    for (let i = 0; i < n; i++) {
      let dot = 0;
      for (let j = 0; j < d; j++) dot += x[i * d + j]! * u[j]!;
      for (let j = 0; j < d; j++) x[i * d + j]! -= dot * u[j]!;
    }
  }
}
