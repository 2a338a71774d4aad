import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_START_URL, createAppProtocolHandler, isAppUrl, resolveAppFile } from '../../src/main/app-protocol.ts';
import { ELECTRON_CSP } from '../../src/shared/csp.ts';

const root = mkdtempSync(join(tmpdir(), 'zeromem-app-protocol-'));
mkdirSync(join(root, 'assets'));
writeFileSync(join(root, 'index.html'), '<!doctype html><title>app</title>');
writeFileSync(join(root, 'assets', 'main.js'), 'console.log(1)');
// A file next to the renderer folder, that no app:// URL may reach.
writeFileSync(join(root, '..', 'zeromem-outside-secret.txt'), 'secret');

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(join(root, '..', 'zeromem-outside-secret.txt'), { force: true });
});

describe('the app:// protocol', () => {
  it('maps app URLs to files under the renderer folder, / to index.html', () => {
    expect(resolveAppFile(root, APP_START_URL)).toBe(join(root, 'index.html'));
    expect(resolveAppFile(root, 'app://zeromem/')).toBe(join(root, 'index.html'));
    expect(resolveAppFile(root, 'app://zeromem/assets/main.js?v=1')).toBe(join(root, 'assets', 'main.js'));
  });

  it('refuses other hosts, schemes and every way out of the folder', () => {
    for (const url of [
      'app://other/index.html',
      'file:///etc/passwd',
      'https://zeromem/index.html',
      'app://zeromem/%2e%2e/zeromem-outside-secret.txt',
      'app://zeromem/..%2f..%2fzeromem-outside-secret.txt',
      'app://zeromem/assets/%2e%2e%2f%2e%2e%2fzeromem-outside-secret.txt',
      'app://zeromem/%00index.html',
      'app://zeromem/%E0%A4%A',
      'not a url',
    ]) {
      const file = resolveAppFile(root, url);
      expect(file === undefined || file.startsWith(root + '/'), url).toBe(true);
    }
    expect(isAppUrl('app://zeromem.evil/index.html')).toBe(false);
  });

  it('serves files with the strict CSP header and answers 404 outside', async () => {
    const handle = createAppProtocolHandler(root);
    const ok = await handle(new Request('app://zeromem/index.html'));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-security-policy')).toBe(ELECTRON_CSP);
    expect(ok.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await ok.text()).toContain('<title>app</title>');
    expect((await handle(new Request('app://zeromem/%2e%2e/zeromem-outside-secret.txt'))).status).toBe(404);
    expect((await handle(new Request('app://zeromem/missing.js'))).status).toBe(404);
    expect((await handle(new Request('app://elsewhere/index.html'))).status).toBe(404);
  });

  it('the Electron CSP allows no inline or remote script and no http(s) connections', () => {
    const directives = Object.fromEntries(ELECTRON_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives['script-src']).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(directives['connect-src']).toEqual(["'self'", 'ws:', 'wss:']);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(ELECTRON_CSP).not.toContain('unsafe-inline');
  });
});
