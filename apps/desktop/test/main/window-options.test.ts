import { describe, expect, it } from 'vitest';
import { mainWindowOptions, secureWebPreferences } from '../../src/main/window-options.ts';

describe('the main window options', () => {
  it('isolate and sandbox the renderer, with no Node anywhere', () => {
    const prefs = secureWebPreferences('/app/dist-electron/preload.cjs');
    expect(prefs).toMatchObject({
      preload: '/app/dist-electron/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
    });
  });

  it('open at 1280x800, usable down to 400 px wide, with those preferences', () => {
    const options = mainWindowOptions('/p.cjs');
    expect([options.width, options.height, options.minWidth]).toEqual([1280, 800, 400]);
    expect(options.webPreferences).toEqual(secureWebPreferences('/p.cjs'));
  });
});
