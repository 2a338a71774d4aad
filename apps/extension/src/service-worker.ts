// A thin router: the memory lives in the side panel and the options page, where the
// tokenizer can load lazily and a worker shutdown cannot interrupt a write.
chrome.runtime.onInstalled.addListener(() => {
  void chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true });
});
