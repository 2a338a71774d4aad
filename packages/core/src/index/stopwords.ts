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
