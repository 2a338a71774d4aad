import type { Embedder, EmbedKind } from '@zeromem/core';
import { embedderUnavailable } from './errors.ts';

/** A model that is loaded the first time a text needs it. */
export interface LazyEmbedder {
  /** Its vectors' length, known before it loads (checked when it does). */
  readonly dimension: number;
  /** Its `modelId`, known before it loads. */
  readonly modelId: string;
  load(): Promise<Embedder & { dispose?(): Promise<void> }>;
}

/** An {@link Embedder} that sends each text to one of two models by its script. */
export interface ScriptRoutedEmbedder extends Embedder {
  readonly fusionWeight: number;
  /** True once the Chinese model has been loaded (it loads on the first Chinese text). */
  readonly hanLoaded: boolean;
  dispose(): Promise<void>;
}

/** Han ideographs (CJK Unified Ideographs and their extensions, compatibility ideographs). */
const HAN = /\p{Script=Han}/u;

/** True when a text holds a Chinese character: the Chinese model embeds it. */
export function hasHan(text: string): boolean {
  return HAN.test(text);
}

/**
 * One vector space made of two models' spaces side by side: a text with a Han character
 * is embedded by `han` into the last `han.dimension` coordinates, any other text by
 * `other` into the first `other.dimension`, the rest zero. A query and a memory of the
 * same script compare by their model's cosine; across scripts the cosine is 0, so each
 * model's scores stay among texts it embedded, and one vector index searches both.
 * The Han model loads on the first text that needs it.
 */
export function routeByScript(other: Embedder & { fusionWeight?: number; dispose?(): Promise<void> }, han: LazyEmbedder): ScriptRoutedEmbedder {
  const dimension = other.dimension + han.dimension;
  let hanModel: Promise<Embedder & { dispose?(): Promise<void> }> | undefined;
  let loaded = false;
  let disposed = false;

  const loadHan = () => {
    hanModel ??= han.load().then((model) => {
      if (model.dimension !== han.dimension) throw embedderUnavailable(`The Chinese model "${han.modelId}" gives ${model.dimension}-d vectors, expected ${han.dimension}.`);
      loaded = true;
      return model;
    });
    // A failed load is tried again on the next Chinese text, not remembered forever.
    hanModel.catch(() => (hanModel = undefined));
    return hanModel;
  };

  /** Embeds the texts at `indexes` with `model` and writes them at `offset` of full-width vectors. */
  const embedPart = async (model: Embedder, texts: readonly string[], indexes: number[], kind: EmbedKind, offset: number, out: Array<Float32Array | null>) => {
    if (!indexes.length) return;
    const vectors = await model.embed(indexes.map((i) => texts[i]!), kind);
    indexes.forEach((i, row) => {
      const vector = vectors[row];
      if (!vector) return;
      const full = new Float32Array(dimension);
      full.set(vector, offset);
      out[i] = full;
    });
  };

  return {
    modelId: `route:han=${han.modelId}|other=${other.modelId}`,
    dimension,
    fusionWeight: other.fusionWeight ?? 0.5,
    get hanLoaded() {
      return loaded;
    },
    async embed(texts, kind) {
      if (disposed) throw embedderUnavailable('This embedder was disposed; create a new one.');
      const out: Array<Float32Array | null> = new Array(texts.length).fill(null);
      const hanTexts: number[] = [];
      const otherTexts: number[] = [];
      texts.forEach((text, i) => {
        if (typeof text === 'string') (hasHan(text) ? hanTexts : otherTexts).push(i);
      });
      await embedPart(other, texts, otherTexts, kind, 0, out);
      if (hanTexts.length) await embedPart(await loadHan(), texts, hanTexts, kind, other.dimension, out);
      return out;
    },
    async dispose() {
      disposed = true;
      const pending = hanModel;
      await other.dispose?.();
      if (pending) await (await pending.catch(() => undefined))?.dispose?.();
    },
  };
}
