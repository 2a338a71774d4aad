/** The few extension APIs this example calls (no @types/chrome dependency). */
declare const chrome: {
  sidePanel: { setPanelBehavior(behavior: { openPanelOnActionClick: boolean }): Promise<void> };
  runtime: { onInstalled: { addListener(listener: () => void): void } };
};
