/**
 * The Electron main process: thin. It serves the built renderer on app://, holds the LLM
 * settings and API key (OS keychain), calls the LLM for the renderer, and opens the device
 * store (`~/.zeromem/zeromem.sqlite`, shared with zeromem-mcp and the CLI) whose verbs the
 * renderer calls through the preload. The web twin keeps its memory in IndexedDB.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, ipcMain, protocol, safeStorage, session, shell } from 'electron';
import { APP_SCHEME, APP_SCHEME_DEFINITION, APP_START_URL, createAppProtocolHandler } from './app-protocol.ts';
import { DeviceStore } from './device-store.ts';
import { denyPermissions, hardenContents } from './harden-contents.ts';
import { createIpcHandlers } from './ipc-handlers.ts';
import { LlmSettingsStore } from './llm-settings-store.ts';
import { mainWindowOptions } from './window-options.ts';

const here = dirname(fileURLToPath(import.meta.url));
const rendererRoot = join(here, '..', 'dist');
const preloadPath = join(here, 'preload.cjs');

protocol.registerSchemesAsPrivileged([APP_SCHEME_DEFINITION]);
app.enableSandbox();

app.on('web-contents-created', (_event, contents) => hardenContents(contents, shell));

async function start(): Promise<void> {
  await app.whenReady();
  protocol.handle(APP_SCHEME, createAppProtocolHandler(rendererRoot));
  denyPermissions(session.defaultSession);
  // The device store, shared with zeromem-mcp and the CLI; if another process holds it, the app still opens and says why.
  const deviceStore = await DeviceStore.open().catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
  if (deviceStore instanceof DeviceStore) app.on('will-quit', () => void deviceStore.close());
  else console.error('zeromem desktop: the device store could not be opened:', deviceStore.message);
  const handlers = createIpcHandlers({ store: new LlmSettingsStore(app.getPath('userData'), safeStorage), deviceStore });
  for (const [channel, handler] of Object.entries(handlers)) {
    ipcMain.handle(channel, (event, ...args: unknown[]) =>
      handler({ frameUrl: event.senderFrame?.url, send: (name, payload) => event.sender.send(name, payload) }, args),
    );
  }
  const open = () => {
    const window = new BrowserWindow(mainWindowOptions(preloadPath));
    window.once('ready-to-show', () => window.show());
    void window.loadURL(APP_START_URL);
  };
  open();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) open();
  });
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

start().catch((err: unknown) => {
  console.error('zeromem desktop failed to start:', err);
  app.exit(1);
});
