/** The web host's guards on a real socket: token, origin, host header, malformed frames; it keeps serving throughout. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { tempDir } from '../../e2e/fixtures/agentEnv.js';
import { Host } from '../host/Host.js';
import { MAX_TOKEN_FAILURES, startWebServer, type WebServer } from './WebServer.js';

let host: Host;
let server: WebServer;
let base: string;

beforeAll(async () => {
  const staticDir = tempDir('static');
  writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Baton</title>');
  mkdirSync(path.join(staticDir, 'assets'));
  writeFileSync(path.join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(path.join(path.dirname(staticDir), 'secret.txt'), 'outside');
  host = new Host({ dataDir: tempDir('web'), env: { PATH: '' } });
  server = await startWebServer({ host, staticDir });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server.close();
  await host.dispose();
});

type Frame = { kind: string; id?: number | null; ok?: boolean; result?: unknown; error?: { code: string } };

function connect(options: { token?: string; origin?: string } = {}): Promise<WebSocket> {
  const token = options.token ?? server.token;
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=${encodeURIComponent(token)}`, { origin: options.origin ?? base });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    ws.once('error', reject);
  });
}

function nextFrame(ws: WebSocket): Promise<Frame> {
  return new Promise((resolve) => ws.once('message', (data) => resolve(JSON.parse(data.toString()) as Frame)));
}

describe('web host', () => {
  it('prints a 127.0.0.1 URL carrying a long random token', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
  });

  it('answers 401 without the token or with a wrong one, and serves the page with it', async () => {
    expect((await fetch(`${base}/`)).status).toBe(401);
    expect((await fetch(`${base}/?token=wrong`)).status).toBe(401);
    expect((await fetch(`${base}/assets/app.js`)).status).toBe(401);
    // The token is exchanged for a cookie and taken out of the address.
    const exchange = await fetch(`${base}/?token=${server.token}&view=x`, { redirect: 'manual' });
    expect(exchange.status).toBe(303);
    expect(exchange.headers.get('location')).toBe('/?view=x');
    const cookie = exchange.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const page = await fetch(`${base}/?view=x`, { headers: { cookie: cookie.split(';')[0] ?? '' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    // The page's own assets ride on the cookie.
    const asset = await fetch(`${base}/assets/app.js`, { headers: { cookie: cookie.split(';')[0] ?? '' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
  });

  it('never serves files outside the renderer folder', async () => {
    const response = await fetch(`${base}/..%2Fsecret.txt`, { headers: { cookie: `baton_token=${server.token}` } });
    expect(await response.text()).not.toContain('outside');
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    const http = await import('node:http');
    const status = await new Promise<number>((resolve) => {
      http.get({ host: '127.0.0.1', port: server.port, path: `/?token=${server.token}`, headers: { host: 'evil.example:80' } }, (response) => resolve(response.statusCode ?? 0));
    });
    expect(status).toBe(421);
  });

  it('rejects WebSocket upgrades with a wrong token or a foreign Origin', async () => {
    await expect(connect({ token: 'nope' })).rejects.toThrow('HTTP 401');
    await expect(connect({ origin: 'http://evil.example' })).rejects.toThrow('HTTP 403');
    await expect(connect({ origin: `http://127.0.0.1:${server.port + 1}` })).rejects.toThrow('HTTP 403');
  });

  it('answers malformed frames with an error and keeps serving the same socket', async () => {
    const ws = await connect();
    ws.send('this is not json');
    expect(await nextFrame(ws)).toMatchObject({ kind: 'response', id: null, ok: false, error: { code: 'InvalidRequest' } });
    ws.send(JSON.stringify({ kind: 'request', id: 5, method: 42 }));
    expect(await nextFrame(ws)).toMatchObject({ kind: 'response', id: 5, ok: false, error: { code: 'InvalidRequest' } });
    ws.send(JSON.stringify({ kind: 'request', id: 6, method: 'noSuchMethod', params: {} }));
    expect(await nextFrame(ws)).toMatchObject({ id: 6, ok: false, error: { code: 'InvalidRequest' } });
    ws.send(JSON.stringify({ kind: 'request', id: 7, method: 'listConversations', params: {} }));
    expect(await nextFrame(ws)).toMatchObject({ id: 7, ok: true, result: { conversations: [] } });
    ws.close();
  });

  it('pushes committed events to connected windows', async () => {
    const ws = await connect();
    const frames: Frame[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as Frame));
    const cwd = tempDir('cwd');
    ws.send(JSON.stringify({ kind: 'request', id: 1, method: 'newConversation', params: { agentId: 'claude', cwd } }));
    await expect.poll(() => frames.map((frame) => frame.kind)).toEqual(expect.arrayContaining(['event', 'response']));
    expect(frames.some((frame) => frame.kind === 'event' && (frame as { name?: string }).name === 'transcript')).toBe(true);
    ws.close();
  });
});

describe('web host limits', () => {
  it('turns an address away after repeated wrong tokens, even with the right one, and keeps serving others', async () => {
    const staticDir = tempDir('static-limit');
    writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Baton</title>');
    const limited = await startWebServer({ host, staticDir });
    try {
      const limitedBase = `http://127.0.0.1:${limited.port}`;
      for (let attempt = 0; attempt < MAX_TOKEN_FAILURES; attempt += 1) {
        expect((await fetch(`${limitedBase}/?token=guess-${attempt}`)).status).toBe(401);
      }
      const afterwards = await fetch(`${limitedBase}/?token=${limited.token}`, { redirect: 'manual' });
      expect(afterwards.status).toBe(429);
      expect(afterwards.headers.get('retry-after')).toBe('60');
      await expect(
        new Promise((resolve, reject) => {
          const ws = new WebSocket(`ws://127.0.0.1:${limited.port}/api?token=${limited.token}`, { origin: limitedBase });
          ws.once('open', () => resolve('open'));
          ws.once('error', reject);
        }),
      ).rejects.toThrow('429');
      // Another server's guard is its own.
      expect((await fetch(`${base}/`, { headers: { cookie: `baton_token=${server.token}` } })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('refuses to listen beyond this machine unless asked to (--host)', async () => {
    await expect(startWebServer({ host, staticDir: tempDir('static-exposed'), bindAddress: '0.0.0.0' })).rejects.toThrow('serving on 0.0.0.0 needs --host 0.0.0.0');
  });
});
