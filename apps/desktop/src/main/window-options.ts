/**
 * The main window's options. Everything the renderer could use to reach Node or the OS is
 * off: it is a sandboxed web page whose only way out is the preload's narrow API.
 */
import type { BrowserWindowConstructorOptions, WebPreferences } from 'electron';

/** The renderer's web preferences, given the built preload script. */
export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
  };
}

/** The main window: 1280x800 by default, usable down to 400 px wide. */
export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 800,
    minWidth: 400,
    minHeight: 480,
    title: 'zeromem',
    backgroundColor: '#f7f7f5',
    show: false,
    autoHideMenuBar: true,
    webPreferences: secureWebPreferences(preloadPath),
  };
}
