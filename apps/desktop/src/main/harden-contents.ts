/**
 * Rules for every web contents the app creates: no navigation away from the app, no new
 * windows (http(s) links open in the system browser), no permission prompts granted.
 */
import type { Session, WebContents } from 'electron';
import { isAppUrl } from './app-protocol.ts';

/** The part of `shell` used here. */
export interface ExternalOpener {
  openExternal(url: string): Promise<void>;
}

/** True for a link that may be handed to the system browser. */
export function isExternalLink(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

export function hardenContents(contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>, shell: ExternalOpener): void {
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalLink(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
}

/** Denies every permission request (camera, notifications, geolocation, ...): the app needs none. */
export function denyPermissions(session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}
