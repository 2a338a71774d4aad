/**
 * English function words left out of the text index and of queries: conversational
 * queries are full of them, and they match everything (see RETRIEVAL_NOTES: removing them
 * lifted BM25 recall markedly on conversational data).
 */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself yourselves also got get gets let lets may might must shall us ok okay yes yeah ' +
    'oh hi hello thanks thank please im ive id ill youre youve dont doesnt didnt cant wont isnt arent wasnt werent'
  ).split(' '),
);

/** Chinese function words and particles, dropped from the index and from queries. */
export const CHINESE_STOPWORDS: ReadonlySet<string> = new Set(
  '的 了 是 我 你 他 她 它 们 我们 你们 他们 吗 呢 吧 啊 呀 哦 嗯 在 有 和 就 都 也 很 这 那 这个 那个 一个 不 没 没有 会 要 能 可以 说 去 来 到 给 对 把 被 让 还 又 就是 但是 因为 所以 如果 什么 怎么 为什么 哈 哈哈 嘛 啦 吗 着 过 得 地'.split(' '),
);
