import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { denyPermissions, hardenContents } from '../../src/main/harden-contents.ts';

/** A web contents as far as hardenContents uses it: events and the window-open handler. */
class Contents extends EventEmitter {
  openHandler: ((details: { url: string }) => { action: string }) | undefined;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
    this.openHandler = handler;
  }
}

function navigate(contents: Contents, url: string): boolean {
  let prevented = false;
  contents.emit('will-navigate', { preventDefault: () => (prevented = true) }, url);
  return prevented;
}

describe('hardened web contents', () => {
  it('stays inside the app, opens no window, sends http(s) links to the system browser', () => {
    const contents = new Contents();
    const opened: string[] = [];
    hardenContents(contents as never, { openExternal: async (url) => void opened.push(url) });
    expect(navigate(contents, 'app://zeromem/index.html#/sync')).toBe(false);
    expect(navigate(contents, 'https://example.com/')).toBe(true);
    expect(navigate(contents, 'file:///etc/passwd')).toBe(true);
    expect(contents.openHandler!({ url: 'https://ollama.com/' })).toEqual({ action: 'deny' });
    expect(contents.openHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://ollama.com/']);
    let webviewPrevented = false;
    contents.emit('will-attach-webview', { preventDefault: () => (webviewPrevented = true) });
    expect(webviewPrevented).toBe(true);
  });

  it('grants no permission', () => {
    let request: ((c: unknown, p: string, cb: (granted: boolean) => void) => void) | undefined;
    let check: (() => boolean) | undefined;
    denyPermissions({ setPermissionRequestHandler: (h: never) => void (request = h), setPermissionCheckHandler: (h: never) => void (check = h) } as never);
    const answers: boolean[] = [];
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read']) request!(null, permission, (granted) => answers.push(granted));
    expect(answers).toEqual([false, false, false, false]);
    expect(check!()).toBe(false);
  });
});
