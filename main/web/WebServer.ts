/**
 * The web host: serves the built renderer and carries host-API messages over a WebSocket, bound
 * to 127.0.0.1 (another address only when asked for explicitly). Its rooms: who may in
 * (`tokenGate.ts`: the per-run token, exchanged here for a cookie and taken out of the address
 * bar), which names it answers to (`hostNames.ts`), file uploads (`upload.ts`), the API socket
 * (`socketApi.ts`) and the static files (`staticFiles.ts`); this file ties them to one server.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { UPLOAD_PATH } from '../../app/ipc/index.js';
import type { Host } from '../host/Host.js';
import { printedHost, servedHostNames } from './hostNames.js';
import { attachSocketApi } from './socketApi.js';
import { CONTENT_SECURITY_POLICY, CONTENT_TYPES, resolveStatic } from './staticFiles.js';
import { cookieName, cookieToken, FAILURE_WINDOW_MS, TokenGate, tokenMatches } from './tokenGate.js';
import { serveUpload } from './upload.js';

export { cookieName, MAX_TOKEN_FAILURES } from './tokenGate.js';
export { printedHost, servedHostNames } from './hostNames.js';

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

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Starts serving on 127.0.0.1. */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const { host, staticDir } = options;
  const log = options.log ?? (() => {});
  const gate = new TokenGate(options.token ?? randomBytes(24).toString('base64url'));
  const bindAddress = options.bindAddress ?? '127.0.0.1';
  if (!LOOPBACK.has(bindAddress) && !options.exposed) {
    throw new Error(
      `Baton serves only this machine (127.0.0.1); serving on ${bindAddress} needs --host ${bindAddress}, which lets anyone who can reach it and has the token use your agents.`,
    );
  }
  let port = 0;
  const hostNames = servedHostNames(bindAddress, os.networkInterfaces());
  const allowedHosts = (): string[] => hostNames.map((name) => `${name}:${port}`);

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
    const verdict = gate.admit(fromQuery, cookieToken(request, port), request.socket.remoteAddress ?? '');
    if (verdict === 'turned-away') {
      response
        .writeHead(429, { 'content-type': 'text/plain', 'retry-after': String(FAILURE_WINDOW_MS / 1000) })
        .end('Baton: too many wrong tokens; wait a minute, then open the address Baton printed.');
      return;
    }
    if (verdict === 'refused') {
      response
        .writeHead(401, { 'content-type': 'text/plain' })
        .end('Baton: missing or wrong token. Open the address Baton printed when it started.');
      return;
    }
    if (url.pathname.startsWith(UPLOAD_PATH)) {
      await serveUpload(request, response, url.pathname.slice(UPLOAD_PATH.length), { host, allowedHosts: allowedHosts() });
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
    if (tokenMatches(fromQuery, gate.token)) {
      // The token is exchanged for the cookie and leaves the address bar (and the history).
      url.searchParams.delete('token');
      response
        .writeHead(303, {
          ...headers,
          'set-cookie': `${cookieName(port)}=${gate.token}; HttpOnly; SameSite=Strict; Path=/`,
          location: sameSiteLocation(url),
        })
        .end();
      return;
    }
    const file = await resolveStatic(staticDir, url.pathname);
    const body = await readFile(file);
    headers['content-type'] = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
    response.writeHead(200, headers).end(request.method === 'HEAD' ? undefined : body);
  }

  const closeSockets = attachSocketApi(server, { host, gate, allowedHosts, port: () => port, log });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://${printedHost(bindAddress)}:${port}/?token=${gate.token}`,
    port,
    token: gate.token,
    close: async () => {
      closeSockets();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Where the token exchange sends the page: always a path on this server (one leading slash). */
export function sameSiteLocation(url: URL): string {
  return `/${url.pathname.replace(/^[/\\]+/, '')}${url.search}`;
}
