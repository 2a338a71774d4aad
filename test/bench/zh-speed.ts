/**
 * Speed of the bundled embedder (`createBundledEmbedder`: zeromem-static-en + the lazily
 * loaded bge-small-zh-v1.5) on Chinese text, in one Node process:
 *
 *   npx tsx --conditions=development test/bench/zh-speed.ts [memories=10000] [--static-zh <folder>]
 *
 *  - creating the embedder (loads no model), the first English text (loads the English model),
 *    and the first Chinese text (loads the Chinese model);
 *  - one query's embedding, p50 over 50 after warm-up, for 20 and 500 Chinese characters:
 *    as shipped (windows of 256 characters), and the whole text (the model truncates at 512 tokens);
 *  - background embedding: `remember` of N Chinese memories (15-60 characters), then
 *    `whenEmbedded()`; memories per second;
 *  - `recall` p50 over 100 queries (8-20 characters) at N memories, k = 10.
 * Synthetic text from a fixed phrase list and a seeded PRNG. Prints one JSON line; the
 * machine is shared, so the load average before and after is in it.
 */
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { loadavg } from 'node:os';
import { openMemory } from '../../packages/core/src/index.ts';
import { createBundledEmbedder, createTransformersEmbedder } from '../../packages/embed-transformers/src/index.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';
import { summarize } from './stats.ts';

const N = Number(process.argv[2] ?? 10_000);
const staticZh = process.argv.includes('--static-zh') ? process.argv[process.argv.indexOf('--static-zh') + 1] : undefined;
const random = prng(0x2c4e);
const PARTS = [
  '用户', '今天', '明天', '上周', '喜欢', '不喜欢', '偏好', '住在', '上海', '北京', '杭州', '公司', '同事', '朋友', '妈妈', '孩子',
  '快递', '圆通', '顺丰', '咖啡', '奶茶', '无糖', '花生', '过敏', '健身房', '跑步', '游泳', '周三', '下午', '晚上', '会议', '项目',
  '电影', '音乐', '旅行', '机票', '酒店', '餐厅', '火锅', '生日', '礼物', '手机', '电脑', '医院', '预约', '体检', '小猫', '小狗',
  '的', '了', '在', '和', '去', '买', '看', '说', '想', '要', '给', '一个', '很多', '已经', '还是', '因为', '所以', '但是', '，', '。',
];
const sentence = (min: number, max: number) => {
  const length = min + Math.floor(random() * (max - min + 1));
  let text = '';
  while (text.length < length) text += PARTS[Math.floor(random() * PARTS.length)]!;
  return text.slice(0, length);
};
const p50 = async (samples: number, run: () => Promise<unknown>) => {
  for (let i = 0; i < 5; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return summarize(times).p50;
};

const load = [loadavg()[0]];
let started = performance.now();
const embedder = staticZh ? await createTransformersEmbedder({ modelPath: staticZh }) : await createBundledEmbedder();
const createMs = performance.now() - started;
started = performance.now();
await embedder.embed(['Prefers phone calls over e-mail'], 'document');
const firstEnglishMs = performance.now() - started;
started = performance.now();
await embedder.embed(['用户喜欢喝咖啡'], 'document');
const firstChineseMs = performance.now() - started;

const short = sentence(20, 20);
const long = sentence(500, 500);
const queryEmbedMs = {
  chars20: await p50(50, () => embedder.embed([short], 'query')),
  chars500: await p50(50, () => embedder.embed([long], 'query')),
  chars500WholeText: staticZh ? null : await p50(20, () => embedder.embed([long], 'document')),
};

const memory = await openMemory({ name: 'zh-speed', embedder, indexedDB: new IDBFactory(), IDBKeyRange });
const ns = { userId: 'bench' };
started = performance.now();
for (let i = 0; i < N; i += 500) {
  await memory.rememberMany(Array.from({ length: Math.min(500, N - i) }, () => ({ namespace: ns, content: sentence(15, 60) })));
}
const storeMs = performance.now() - started;
await memory.whenEmbedded();
const embedAllMs = performance.now() - started;
const queries = Array.from({ length: 120 }, () => sentence(8, 20));
let q = 0;
const recallMs = await p50(100, () => memory.recall(ns, queries[q++ % queries.length]!, { k: 10, trackAccess: false }));
await memory.close();
await embedder.dispose();
load.push(loadavg()[0]);

console.log(
  JSON.stringify({
    embedder: embedder.modelId,
    memories: N,
    createMs: Math.round(createMs),
    firstEnglishMs: Math.round(firstEnglishMs),
    firstChineseMs: Math.round(firstChineseMs),
    queryEmbedMs,
    storeMs: Math.round(storeMs),
    embedAllMs: Math.round(embedAllMs),
    memoriesPerSecond: Math.round(N / (embedAllMs / 1000)),
    recallP50Ms: recallMs,
    load,
    rssMB: Math.round(process.memoryUsage().rss / 1e6),
  }),
);
