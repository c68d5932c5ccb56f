/**
 * The web host: serves the built renderer and carries host-API messages over a WebSocket, bound
 * to 127.0.0.1 (another address only when asked for explicitly). Every HTTP request and
 * WebSocket upgrade must carry the per-run token: in the URL once, which is then exchanged for an
 * HttpOnly, SameSite=Strict cookie and taken out of the address bar; repeated wrong tokens are
 * turned away for a while. Upgrades must come from our own origin; frames are parsed against the
 * contract and a malformed one gets an error reply, never a crash.
 */
import { timingSafeEqual, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { toWireError, InvalidRequestError } from '../../app/errors.js';
import { clientMessageSchema, type HostMessage } from '../../app/ipc/index.js';
import type { Host } from '../host/Host.js';
import { CONTENT_SECURITY_POLICY, CONTENT_TYPES, resolveStatic } from './staticFiles.js';

/** Options for {@link startWebServer}. */
export type WebServerOptions = {
  host: Host;
  /** Folder with the built renderer (index.html). */
  staticDir: string;
  /** 0 picks a free port. */
  port?: number;
  token?: string;
  log?: (message: string) => void;
  /** The address to listen on; anything but loopback also needs `exposed` (the CLI's --host). */
  bindAddress?: string;
  /** The person asked to serve beyond this machine (--host). */
  exposed?: boolean;
};

/** A running web host. */
export type WebServer = { url: string; port: number; token: string; close(): Promise<void> };

const COOKIE = 'baton_token';
/** Wrong tokens allowed from one address within {@link FAILURE_WINDOW_MS} before it is turned away. */
export const MAX_TOKEN_FAILURES = 10;
const FAILURE_WINDOW_MS = 60_000;
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** Starts serving on 127.0.0.1. */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const { host, staticDir } = options;
  const log = options.log ?? (() => {});
  const token = options.token ?? randomBytes(24).toString('base64url');
  const bindAddress = options.bindAddress ?? '127.0.0.1';
  if (!LOOPBACK.has(bindAddress) && !options.exposed) {
    throw new Error(`Baton serves only this machine (127.0.0.1); serving on ${bindAddress} needs --host ${bindAddress}, which lets anyone who can reach it and has the token use your agents.`);
  }
  let port = 0;
  const allowedHosts = (): string[] => [`127.0.0.1:${port}`, `localhost:${port}`, ...(LOOPBACK.has(bindAddress) ? [] : [`${bindAddress}:${port}`])];
  /** Wrong tokens by remote address: how many, since when. */
  const failures = new Map<string, { count: number; since: number }>();
  const turnedAway = (address: string): boolean => {
    const entry = failures.get(address);
    if (entry && Date.now() - entry.since > FAILURE_WINDOW_MS) {
      failures.delete(address);
      return false;
    }
    return (entry?.count ?? 0) >= MAX_TOKEN_FAILURES;
  };
  const failed = (address: string): void => {
    const entry = failures.get(address) ?? { count: 0, since: Date.now() };
    failures.set(address, { ...entry, count: entry.count + 1 });
  };

  const server = http.createServer((request, response) => {
    void serveHttp(request, response).catch((error: unknown) => {
      log(`http error: ${String(error)}`);
      if (!response.headersSent) {
        response.writeHead(500).end('Internal error');
      }
    });
  });

  async function serveHttp(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    if (!allowedHosts().includes(request.headers.host ?? '')) {
      response.writeHead(421, { 'content-type': 'text/plain' }).end('Misdirected request');
      return;
    }
    const url = new URL(request.url ?? '/', `http://${request.headers.host}`);
    const fromQuery = url.searchParams.get('token');
    const address = request.socket.remoteAddress ?? '';
    if (turnedAway(address)) {
      response.writeHead(429, { 'content-type': 'text/plain', 'retry-after': String(FAILURE_WINDOW_MS / 1000) }).end('Baton: too many wrong tokens; wait a minute, then open the address Baton printed.');
      return;
    }
    if (!tokenMatches(fromQuery, token) && !tokenMatches(cookieToken(request), token)) {
      failed(address);
      response.writeHead(401, { 'content-type': 'text/plain' }).end('Baton: missing or wrong token. Open the address Baton printed when it started.');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const headers: Record<string, string> = {
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    };
    if (tokenMatches(fromQuery, token)) {
      // The token is exchanged for the cookie and leaves the address bar (and the history).
      url.searchParams.delete('token');
      response
        .writeHead(303, { ...headers, 'set-cookie': `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`, location: `${url.pathname}${url.search}` })
        .end();
      return;
    }
    const file = await resolveStatic(staticDir, url.pathname);
    const body = await readFile(file);
    headers['content-type'] = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
    response.writeHead(200, headers).end(request.method === 'HEAD' ? undefined : body);
  }

  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const origin = request.headers.origin ?? '';
    const reject = (status: number, text: string): void => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const address = request.socket.remoteAddress ?? '';
    if (!allowedHosts().includes(request.headers.host ?? '')) {
      reject(421, 'Misdirected Request');
    } else if (turnedAway(address)) {
      reject(429, 'Too Many Requests');
    } else if (!tokenMatches(url.searchParams.get('token'), token) && !tokenMatches(cookieToken(request), token)) {
      failed(address);
      reject(401, 'Unauthorized');
    } else if (!allowedHosts().some((allowed) => origin === `http://${allowed}`)) {
      reject(403, 'Forbidden');
    } else if (url.pathname !== '/api') {
      reject(404, 'Not Found');
    } else {
      sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
    }
  });

  const unsubscribe = host.subscribe((event) => {
    const frame = JSON.stringify({ kind: 'event', name: event.name, payload: event.payload } satisfies HostMessage);
    for (const client of sockets.clients) {
      if (client.readyState === client.OPEN) {
        client.send(frame);
      }
    }
  });

  sockets.on('connection', (ws: WebSocket) => {
    ws.on('error', (error) => log(`websocket error: ${error.message}`));
    ws.on('message', (data, isBinary) => {
      void answerFrame(ws, isBinary ? undefined : data.toString());
    });
  });

  async function answerFrame(ws: WebSocket, text: string | undefined): Promise<void> {
    const reply = (message: HostMessage): void => {
      if (ws.readyState === ws.OPEN) {
        ws.send(JSON.stringify(message));
      }
    };
    let json: unknown;
    try {
      json = text === undefined ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    const frame = clientMessageSchema.safeParse(json);
    if (!frame.success) {
      const id = typeof (json as { id?: unknown } | undefined)?.id === 'number' ? (json as { id: number }).id : null;
      reply({ kind: 'response', id, ok: false, error: toWireError(new InvalidRequestError('Malformed message: expected {"kind":"request","id":number,"method":string,"params":object}.')) });
      return;
    }
    const body = await host.handle(frame.data.method, frame.data.params);
    reply({ kind: 'response', id: frame.data.id, ...body });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://${LOOPBACK.has(bindAddress) ? '127.0.0.1' : bindAddress}:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      unsubscribe();
      for (const client of sockets.clients) {
        client.terminate();
      }
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function tokenMatches(candidate: string | null | undefined, token: string): boolean {
  if (!candidate) {
    return false;
  }
  const a = Buffer.from(candidate);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieToken(request: http.IncomingMessage): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) {
      return value.join('=');
    }
  }
  return undefined;
}
