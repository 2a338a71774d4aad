// A thin router: the memory lives in the side panel and the options page, where the
// tokenizer can load lazily and a worker shutdown cannot interrupt a write. The worker
// opens the side panel and reads the current page for it.
import { PAGE_TEXT_LIMIT, READ_PAGE, type PageSnapshot } from './page.ts';

chrome.runtime.onInstalled.addListener(() => {
  void chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true });
});

/**
 * The web page the user is on: the active web tab, else the web tab used last (the side
 * panel opened as a tab of its own is active itself). Tabs the extension has no host access
 * to have no `url` here (no `tabs` permission), so they are never read.
 */
async function readCurrentPage(): Promise<PageSnapshot | null> {
  const tabs = (await chrome.tabs.query({})).filter((tab) => tab.id !== undefined && /^(https?|file):/.test(tab.url ?? ''));
  tabs.sort((a, b) => Number(b.active) - Number(a.active) || (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0));
  const tab = tabs[0];
  if (!tab) return null;
  const [injection] = await chrome.scripting.executeScript({
    target: { tabId: tab.id! },
    func: () => ({ title: document.title, text: document.body?.innerText ?? '' }),
  });
  const seen = injection?.result;
  return { title: seen?.title ?? tab.title ?? '', url: tab.url!, text: (seen?.text ?? '').replace(/\s+/g, ' ').trim().slice(0, PAGE_TEXT_LIMIT) };
}

chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if ((message as { type?: unknown } | null)?.type !== READ_PAGE) return;
  readCurrentPage().then(sendResponse, () => sendResponse(null));
  return true; // answered asynchronously
});
