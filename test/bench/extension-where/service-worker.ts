/** The SDK in the service worker: one bundle (dynamic imports inlined, so the tokenizer too). */
import { firstRecall } from './first-recall.ts';

const evaluatedAt = performance.now(); // ms from the worker's start to the end of this script's evaluation

chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if ((message as { type?: string }).type !== 'sw-recall') return;
  firstRecall().then((result) => sendResponse({ ...result, evaluatedAt }), (err: unknown) => sendResponse({ error: String(err) }));
  return true;
});
