/**
 * The page the user is on, as the side panel asks the service worker for it: the worker is
 * the one place that touches tabs, and it keeps no state, so Chrome may stop it at any time
 * (the next message starts it again).
 */

/** The message the side panel sends to the service worker. */
export const READ_PAGE = 'zeromem:read-page';

/** Longest page text put into a prompt (characters). */
export const PAGE_TEXT_LIMIT = 4000;

/** What the agent knows about the current page. `text` is empty when it may not read the page. */
export interface PageSnapshot {
  title: string;
  url: string;
  text: string;
}

const ask = () => chrome.runtime.sendMessage<PageSnapshot | null>({ type: READ_PAGE });

/**
 * The current web page, or undefined when there is none the extension may see. A worker
 * stopped while it answers closes the message channel: asking again starts a new one.
 */
export async function currentPage(): Promise<PageSnapshot | undefined> {
  const page = await ask().catch(() => ask().catch(() => null));
  return page ?? undefined;
}
