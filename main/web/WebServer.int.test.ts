/** The web host's guards on a real socket: token, origin, host header, malformed frames; it keeps serving throughout. */
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { tempDir } from '../../e2e/fixtures/agentEnv.js';
import { Host } from '../host/Host.js';
import { MAX_IMPORT_CHARS, UPLOAD_PATH } from '../../app/ipc/index.js';
import { cookieName, MAX_TOKEN_FAILURES, servedHostNames, startWebServer, type WebServer } from './WebServer.js';

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

/** A second web host of the same host, serving a one-line page: for guards kept per server. */
async function pageServer(name: string): Promise<WebServer> {
  const staticDir = tempDir(name);
  writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Baton</title>');
  return startWebServer({ host, staticDir });
}

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
    // Named for this port: a second Baton (or any server on another port) neither gets nor overwrites it.
    expect(cookie.startsWith(`${cookieName(server.port)}=`)).toBe(true);
    const page = await fetch(`${base}/?view=x`, { headers: { cookie: cookie.split(';')[0] ?? '' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    // The page's own assets ride on the cookie.
    const asset = await fetch(`${base}/assets/app.js`, { headers: { cookie: cookie.split(';')[0] ?? '' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
  });

  it('sends the token exchange only to a path of this server (no //host redirect)', async () => {
    for (const target of ['/.//evil.example/x', '//evil.example/x', '/%2F/evil.example']) {
      const exchange = await fetch(`${base}${target}${target.includes('?') ? '&' : '?'}token=${server.token}`, { redirect: 'manual' });
      expect(exchange.status).toBe(303);
      const location = exchange.headers.get('location') ?? '';
      expect(location.startsWith('/')).toBe(true);
      expect(location.startsWith('//')).toBe(false);
      expect(location.startsWith('/\\')).toBe(false);
      expect(new URL(location, base).host).toBe(`127.0.0.1:${server.port}`);
    }
  });

  it('does not honour the cookie of another port', async () => {
    expect(
      (await fetch(`${base}/`, { headers: { cookie: `baton_token=${server.token}; ${cookieName(server.port + 1)}=${server.token}` } }))
        .status,
    ).toBe(401);
  });

  it('never serves files outside the renderer folder', async () => {
    const response = await fetch(`${base}/..%2Fsecret.txt`, { headers: { cookie: `${cookieName(server.port)}=${server.token}` } });
    expect(await response.text()).not.toContain('outside');
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    const http = await import('node:http');
    const status = await new Promise<number>((resolve) => {
      http.get(
        { host: '127.0.0.1', port: server.port, path: `/?token=${server.token}`, headers: { host: 'evil.example:80' } },
        (response) => resolve(response.statusCode ?? 0),
      );
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

describe('uploads', () => {
  const cookie = (): string => `${cookieName(server.port)}=${server.token}`;
  const upload = (body: string | Blob, headers: Record<string, string> = {}, method = 'importConversation') =>
    fetch(`${base}${UPLOAD_PATH}${method}`, { method: 'POST', body, headers: { cookie: cookie(), origin: base, ...headers } });
  const transcript = (title: string): string =>
    [
      {
        conversationId: 'elsewhere',
        seq: 1,
        at: '2026-12-02T10:00:00Z',
        v: 1,
        type: 'conversation.created',
        payload: { title, agentId: 'claude', agentName: 'Claude', cwd: '/tmp' },
      },
      {
        conversationId: 'elsewhere',
        seq: 2,
        at: '2026-12-02T10:00:01Z',
        v: 1,
        type: 'turn.started',
        payload: { turnId: 't1', agentId: 'claude', agentName: 'Claude', text: 'Grüße, a question' },
      },
    ]
      .map((envelope) => JSON.stringify(envelope))
      .join('\n');

  it('takes a file request from its own page as an upload, byte-order mark and all, and answers like a reply frame', async () => {
    const answer = await upload(`\uFEFF${transcript('Uploaded')}\n`);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { ok: boolean; result: { conversation: { conversationId: string; title: string } } };
    expect(body).toMatchObject({ ok: true, result: { conversation: { title: 'Uploaded (imported)' } } });
    const { events } = host.store.readEvents(body.result.conversation.conversationId);
    expect(events.find((event) => event.type === 'turn.started')?.payload).toMatchObject({ text: 'Grüße, a question' });
    // A file the host refuses is the same typed error a frame would carry, with the line it is on.
    const broken = await upload(`${transcript('Broken')}\n{"seq": 3}\n`);
    expect(await broken.json()).toMatchObject({ ok: false, error: { code: 'InvalidRequest', message: expect.stringContaining('Line 3') } });
  });

  it('refuses an upload from another origin, without the cookie, of another method, or that is not UTF-8', async () => {
    const before = host.store.listSummaries({}).conversations.length;
    expect((await upload(transcript('Foreign'), { origin: 'http://127.0.0.1:1' })).status).toBe(403);
    expect(
      (await fetch(`${base}${UPLOAD_PATH}importConversation`, { method: 'POST', body: transcript('No cookie'), headers: { origin: base } }))
        .status,
    ).toBe(401);
    expect((await upload(transcript('Other'), {}, 'renameConversation')).status).toBe(404);
    expect((await fetch(`${base}${UPLOAD_PATH}importConversation`, { headers: { cookie: cookie() } })).status).toBe(405);
    const latin1 = await upload(new Blob([new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x7d])]));
    expect(latin1.status).toBe(400);
    expect(await latin1.json()).toMatchObject({ ok: false, error: { message: 'The file is not UTF-8 text.' } });
    expect(host.store.listSummaries({}).conversations.length).toBe(before);
  });

  it('refuses a file over the import limit before reading it', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = http.request(
        `${base}${UPLOAD_PATH}importConversation`,
        { method: 'POST', headers: { cookie: cookie(), origin: base, 'content-length': String(MAX_IMPORT_CHARS + 1) } },
        (response) => {
          response.resume();
          request.destroy();
          resolve(response.statusCode);
        },
      );
      request.on('error', reject);
      request.write('{');
    });
    expect(status).toBe(413);
  });
});

describe('web host limits', () => {
  it('turns an address away after repeated wrong tokens, and keeps serving others', async () => {
    const limited = await pageServer('static-limit');
    try {
      const limitedBase = `http://127.0.0.1:${limited.port}`;
      for (let attempt = 0; attempt < MAX_TOKEN_FAILURES; attempt += 1) {
        expect((await fetch(`${limitedBase}/?token=guess-${attempt}`)).status).toBe(401);
      }
      const afterwards = await fetch(`${limitedBase}/?token=one-more-guess`, { redirect: 'manual' });
      expect(afterwards.status).toBe(429);
      expect(afterwards.headers.get('retry-after')).toBe('60');
      await expect(
        new Promise((resolve, reject) => {
          const ws = new WebSocket(`ws://127.0.0.1:${limited.port}/api?token=still-guessing`, { origin: limitedBase });
          ws.once('open', () => resolve('open'));
          ws.once('error', reject);
        }),
      ).rejects.toThrow('429');
      // Another server's guard is its own.
      expect((await fetch(`${base}/`, { headers: { cookie: `${cookieName(server.port)}=${server.token}` } })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('does not count requests that present no token or cookie, and the right token always passes', async () => {
    const guarded = await pageServer('static-anon');
    try {
      const guardedBase = `http://127.0.0.1:${guarded.port}`;
      // Any local page can fire these at a guessed port: they must not lock the person out.
      for (let attempt = 0; attempt < MAX_TOKEN_FAILURES * 2; attempt += 1) {
        expect((await fetch(`${guardedBase}/favicon.ico`)).status).toBe(401);
      }
      expect((await fetch(`${guardedBase}/?token=${guarded.token}`, { redirect: 'manual' })).status).toBe(303);
      // Wrong guesses do count, but even then the right token and cookie are let in.
      for (let attempt = 0; attempt < MAX_TOKEN_FAILURES; attempt += 1) {
        await fetch(`${guardedBase}/?token=guess-${attempt}`);
      }
      expect((await fetch(`${guardedBase}/?token=another-guess`)).status).toBe(429);
      expect((await fetch(`${guardedBase}/`, { headers: { cookie: `${cookieName(guarded.port)}=stale` } })).status).toBe(429);
      expect((await fetch(`${guardedBase}/?token=${guarded.token}`, { redirect: 'manual' })).status).toBe(303);
      expect((await fetch(`${guardedBase}/`, { headers: { cookie: `${cookieName(guarded.port)}=${guarded.token}` } })).status).toBe(200);
      const ws = new WebSocket(`ws://127.0.0.1:${guarded.port}/api?token=${guarded.token}`, { origin: guardedBase });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      ws.close();
    } finally {
      await guarded.close();
    }
  });

  it('prints the address it bound, and answers to the addresses of the real interfaces on a wildcard bind', async () => {
    const ipv6 = await startWebServer({ host, staticDir: tempDir('static-v6'), bindAddress: '::1' }).catch(() => undefined);
    if (ipv6) {
      try {
        expect(ipv6.url).toMatch(/^http:\/\/\[::1\]:\d+\/\?token=/);
        expect((await fetch(`http://[::1]:${ipv6.port}/?token=${ipv6.token}`, { redirect: 'manual' })).status).toBe(303);
      } finally {
        await ipv6.close();
      }
    } else {
      console.log('skipped the ::1 bind: this machine has no IPv6 loopback');
    }
    const interfaces = {
      eth0: [
        { address: '192.0.2.7', family: 'IPv4', internal: false, netmask: '255.255.255.0', mac: '00:00:00:00:00:00', cidr: '192.0.2.7/24' },
        {
          address: 'fe80::1%eth0',
          family: 'IPv6',
          internal: false,
          netmask: 'ffff:ffff:ffff:ffff::',
          mac: '00:00:00:00:00:00',
          cidr: 'fe80::1/64',
          scopeid: 2,
        },
      ],
    } as const;
    const v4 = servedHostNames('0.0.0.0', interfaces as unknown as Parameters<typeof servedHostNames>[1]);
    expect(v4).toContain('192.0.2.7');
    expect(v4).not.toContain('0.0.0.0');
    expect(v4).not.toContain('[fe80::1]');
    expect(servedHostNames('::', interfaces as unknown as Parameters<typeof servedHostNames>[1])).toEqual(
      expect.arrayContaining(['192.0.2.7', '[fe80::1]']),
    );
    // A wildcard bind on this machine answers to its own interface addresses, not with 421.
    const wide = await startWebServer({ host, staticDir: tempDir('static-wide'), bindAddress: '0.0.0.0', exposed: true });
    try {
      const http = await import('node:http');
      const os = await import('node:os');
      const own =
        Object.values(os.networkInterfaces())
          .flat()
          .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address ?? '127.0.0.1';
      const status = await new Promise<number>((resolve) => {
        http.get({ host: '127.0.0.1', port: wide.port, path: '/', headers: { host: `${own}:${wide.port}` } }, (response) =>
          resolve(response.statusCode ?? 0),
        );
      });
      expect(status).toBe(401);
    } finally {
      await wide.close();
    }
  });

  it('refuses to listen beyond this machine unless asked to (--host)', async () => {
    await expect(startWebServer({ host, staticDir: tempDir('static-exposed'), bindAddress: '0.0.0.0' })).rejects.toThrow(
      'serving on 0.0.0.0 needs --host 0.0.0.0',
    );
  });
});
