/**
 * The Electron main process: thin. It serves the built renderer on app://, holds the LLM
 * settings and API key (OS keychain), answers the preload's four IPC channels and calls the
 * LLM for the renderer. The memory itself (IndexedDB, the embedder worker, sync) lives
 * in the renderer, exactly as in the web twin.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, ipcMain, protocol, safeStorage, session, shell } from 'electron';
import { APP_SCHEME, APP_SCHEME_DEFINITION, APP_START_URL, createAppProtocolHandler } from './app-protocol.ts';
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
  const handlers = createIpcHandlers({ store: new LlmSettingsStore(app.getPath('userData'), safeStorage) });
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
