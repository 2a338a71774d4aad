import { ZeromemError, type Embedder, type EmbedKind } from '@zeromem/core';
import { embedderUnavailable, messageOf } from './errors.ts';

/** A model that is loaded the first time a text needs it. */
export interface LazyEmbedder {
  /** Its vectors' length, known before it loads (checked when it does). */
  readonly dimension: number;
  /** Its `modelId`, known before it loads. */
  readonly modelId: string;
  /** Recall's default share of the vector side, known before it loads (for the model that embeds non-Han text). */
  readonly fusionWeight?: number;
  load(): Promise<Embedder & { dispose?(): Promise<void> }>;
}

/** An {@link Embedder} that sends each text to one of two models by its script. */
export interface ScriptRoutedEmbedder extends Embedder {
  readonly fusionWeight: number;
  /** True once the Chinese model has been loaded (it loads on the first Chinese text). */
  readonly hanLoaded: boolean;
  /** True once the model for other text has been loaded (it loads on the first such text). */
  readonly otherLoaded: boolean;
  dispose(): Promise<void>;
}

type LoadedModel = Embedder & { dispose?(): Promise<void> };

/**
 * A {@link LazyEmbedder}'s model, loaded once by the first caller that needs it; a load
 * that fails is EMBEDDER_UNAVAILABLE and is tried again by the next caller.
 */
class OnFirstUse {
  #model: Promise<LoadedModel> | undefined;
  #loaded = false;

  constructor(readonly spec: LazyEmbedder) {}

  get loaded(): boolean {
    return this.#loaded;
  }

  get(): Promise<LoadedModel> {
    if (this.#model) return this.#model;
    const { spec } = this;
    const model = spec.load().then(
      (loaded) => {
        if (loaded.dimension !== spec.dimension) {
          void loaded.dispose?.();
          throw embedderUnavailable(`The model "${spec.modelId}" gives ${loaded.dimension}-d vectors, expected ${spec.dimension}.`);
        }
        this.#loaded = true;
        return loaded;
      },
      (err: unknown) => {
        throw err instanceof ZeromemError ? err : embedderUnavailable(`Could not load the model "${spec.modelId}": ${messageOf(err)}`, err);
      },
    );
    // A failed load is tried again on the next text, not remembered forever.
    model.catch(() => (this.#model = undefined));
    return (this.#model = model);
  }

  /** Frees the model if it was loaded (or is loading). */
  async dispose(): Promise<void> {
    const pending = this.#model;
    if (pending) await (await pending.catch(() => undefined))?.dispose?.();
  }
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
 * Neither model is loaded here: each loads on the first text that needs it, so a door
 * that opens a memory with this embedder is ready before any ONNX session exists.
 */
export function routeByScript(other: LazyEmbedder, han: LazyEmbedder): ScriptRoutedEmbedder {
  const dimension = other.dimension + han.dimension;
  const otherModel = new OnFirstUse(other);
  const hanModel = new OnFirstUse(han);
  let disposed = false;

  /** Embeds the texts at `indexes` with `model` and writes them at `offset` of full-width vectors. */
  const embedPart = async (model: OnFirstUse, texts: readonly string[], indexes: number[], kind: EmbedKind, offset: number, out: Array<Float32Array | null>) => {
    if (!indexes.length) return;
    const vectors = await (await model.get()).embed(indexes.map((i) => texts[i]!), kind);
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
      return hanModel.loaded;
    },
    get otherLoaded() {
      return otherModel.loaded;
    },
    async embed(texts, kind) {
      if (disposed) throw embedderUnavailable('This embedder was disposed; create a new one.');
      const out: Array<Float32Array | null> = new Array(texts.length).fill(null);
      const hanTexts: number[] = [];
      const otherTexts: number[] = [];
      texts.forEach((text, i) => {
        if (typeof text === 'string') (hasHan(text) ? hanTexts : otherTexts).push(i);
      });
      await embedPart(otherModel, texts, otherTexts, kind, 0, out);
      await embedPart(hanModel, texts, hanTexts, kind, other.dimension, out);
      return out;
    },
    async dispose() {
      disposed = true;
      await otherModel.dispose();
      await hanModel.dispose();
    },
  };
}
