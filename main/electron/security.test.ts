import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../web/staticFiles.js';
import { allowPermission, APP_PAGE, checkIpcRequest, externalLink, isOwnPage, secureWebPreferences } from './security.js';

describe('the desktop window', () => {
  it('is isolated, sandboxed, with no Node and no webviews', () => {
    expect(secureWebPreferences('/p/preload.cjs')).toMatchObject({
      preload: '/p/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });

  it('has the same strict Content-Security-Policy as the web host', () => {
    for (const directive of ["default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]) {
      expect(CONTENT_SECURITY_POLICY).toContain(directive);
    }
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe/);
  });

  it('takes requests only from its own app:// page', () => {
    expect(isOwnPage(APP_PAGE)).toBe(true);
    expect(isOwnPage('app://baton/index.html#x')).toBe(true);
    for (const other of ['file:///app/index.html', 'https://evil.example/', 'app://other/index.html', undefined, 'not a url']) {
      expect(isOwnPage(other)).toBe(false);
    }
  });

  it('refuses and logs a forged or malformed IPC message, and passes a good one parsed', () => {
    const log: string[] = [];
    expect(checkIpcRequest('https://evil.example/', 'listAgents', {}, (line) => log.push(line))).toMatchObject({
      ok: false,
      error: { code: 'InvalidRequest' },
    });
    expect(checkIpcRequest(APP_PAGE, 'rm -rf', {}, (line) => log.push(line))).toMatchObject({
      ok: false,
      error: { code: 'InvalidRequest', message: 'Unknown method.' },
    });
    expect(checkIpcRequest(APP_PAGE, 'sendMessage', { conversationId: 'c', text: 42 }, (line) => log.push(line))).toMatchObject({
      ok: false,
      error: { code: 'InvalidRequest', message: expect.stringContaining('text') },
    });
    expect(log).toEqual([
      'refused an IPC request: it came from https://evil.example/',
      'refused an IPC request: unknown method "rm -rf"',
      'refused an IPC request: malformed params for sendMessage',
    ]);
    expect(checkIpcRequest(APP_PAGE, 'sendMessage', { conversationId: 'c', text: 'hi' }, (line) => log.push(line))).toEqual({
      ok: true,
      method: 'sendMessage',
      params: { conversationId: 'c', text: 'hi' },
    });
  });

  it('opens only http(s) links outside, and grants no permission but notifications to its own page', () => {
    expect(externalLink('https://example.com/x')?.host).toBe('example.com');
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'app://baton/index.html', 'smb://host/share']) {
      expect(externalLink(bad)).toBeUndefined();
    }
    // Electron asks with the page's URL (a request) or its origin (a check).
    expect(allowPermission('notifications', APP_PAGE)).toBe(true);
    expect(allowPermission('notifications', 'app://baton')).toBe(true);
    for (const other of ['media', 'clipboard-read', 'geolocation', 'openExternal', 'fullscreen']) {
      expect(allowPermission(other, APP_PAGE)).toBe(false);
    }
    for (const frame of ['https://example.com/', 'app://other/index.html', 'file:///index.html', undefined]) {
      expect(allowPermission('notifications', frame)).toBe(false);
    }
  });
});
