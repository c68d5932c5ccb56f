/**
 * The web host: serves the built renderer and carries host-API messages over a WebSocket, bound
 * to 127.0.0.1 (another address only when asked for explicitly). Every HTTP request and
 * WebSocket upgrade must carry the per-run token: in the URL once, which is then exchanged for an
 * HttpOnly, SameSite=Strict cookie (named per port, so another local server or a second Baton never
 * receives or overwrites it) and taken out of the address bar. Repeated wrong tokens or cookies are
 * turned away for a while; a request that presents neither is refused without counting (any local
 * page can send those, and they must not lock the person out), and the right token always passes.
 * Upgrades must come from our own origin; frames are parsed against the contract and a malformed
 * one gets an error reply, never a crash.
 */
import { isUtf8 } from 'node:buffer';
import { timingSafeEqual, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { toWireError, InvalidRequestError } from '../../app/errors.js';
import {
  clientMessageSchema,
  fileParams,
  isFileMethod,
  MAX_IMPORT_CHARS,
  UPLOAD_PATH,
  type HostMessage,
  type ResponseBody,
} from '../../app/ipc/index.js';
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

/** The cookie's name on this port: cookies are shared by every port of a host, names are not. */
export function cookieName(port: number): string {
  return `baton_token_${port}`;
}
/** Wrong tokens (or cookies) allowed from one address within {@link FAILURE_WINDOW_MS} before it is turned away. */
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
    throw new Error(
      `Baton serves only this machine (127.0.0.1); serving on ${bindAddress} needs --host ${bindAddress}, which lets anyone who can reach it and has the token use your agents.`,
    );
  }
  let port = 0;
  const hostNames = servedHostNames(bindAddress, os.networkInterfaces());
  const allowedHosts = (): string[] => hostNames.map((name) => `${name}:${port}`);
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

  /**
   * Whether a request may in: the right token or cookie always may; a wrong one counts against its
   * address, and an address with too many is turned away; a request that presents neither is
   * refused without counting.
   */
  const admit = (fromQuery: string | null, fromCookie: string | undefined, address: string): 'ok' | 'refused' | 'turned-away' => {
    if (tokenMatches(fromQuery, token) || tokenMatches(fromCookie, token)) {
      return 'ok';
    }
    if (turnedAway(address)) {
      return 'turned-away';
    }
    if (fromQuery || fromCookie) {
      failed(address);
    }
    return 'refused';
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
    const verdict = admit(fromQuery, cookieToken(request, port), address);
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
      await serveUpload(request, response, url.pathname.slice(UPLOAD_PATH.length));
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
        .writeHead(303, {
          ...headers,
          'set-cookie': `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`,
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

  /**
   * A request of the contract whose text parameter is a file (an import), sent as the file itself:
   * `POST /api/upload/<method>`, the body the file's bytes (UTF-8). Only from our own origin (the
   * cookie is SameSite=Strict as well); the answer is the response body a WebSocket reply carries.
   */
  async function serveUpload(request: http.IncomingMessage, response: http.ServerResponse, method: string): Promise<void> {
    const answer = (status: number, body: ResponseBody): void => {
      response
        .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' })
        .end(JSON.stringify(body));
    };
    const refuse = (status: number, message: string): void =>
      answer(status, { ok: false, error: toWireError(new InvalidRequestError(message)) });
    const tooLarge = (): void => refuse(413, `The file is larger than ${MAX_IMPORT_CHARS / (1024 * 1024)} MB.`);
    if (!isFileMethod(method)) {
      refuse(404, `There is no upload for "${method}".`);
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    if (!allowedHosts().some((allowed) => request.headers.origin === `http://${allowed}`)) {
      refuse(403, "An upload must come from Baton's own page.");
      return;
    }
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > MAX_IMPORT_CHARS) {
      tooLarge();
      request.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_IMPORT_CHARS) {
        tooLarge();
        request.destroy();
        return;
      }
      chunks.push(chunk);
    }
    const bytes = Buffer.concat(chunks, size);
    if (!isUtf8(bytes)) {
      refuse(400, 'The file is not UTF-8 text.');
      return;
    }
    // A byte-order mark is not part of the text.
    const text = bytes.toString('utf8', bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);
    answer(200, await host.handle(method, fileParams(method, text)));
  }

  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const origin = request.headers.origin ?? '';
    const reject = (status: number, text: string): void => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const address = request.socket.remoteAddress ?? '';
    const verdict = allowedHosts().includes(request.headers.host ?? '')
      ? admit(url.searchParams.get('token'), cookieToken(request, port), address)
      : 'misdirected';
    if (verdict === 'misdirected') {
      reject(421, 'Misdirected Request');
    } else if (verdict === 'turned-away') {
      reject(429, 'Too Many Requests');
    } else if (verdict === 'refused') {
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
      reply({
        kind: 'response',
        id,
        ok: false,
        error: toWireError(
          new InvalidRequestError('Malformed message: expected {"kind":"request","id":number,"method":string,"params":object}.'),
        ),
      });
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
    url: `http://${printedHost(bindAddress)}:${port}/?token=${token}`,
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

/** Where the token exchange sends the page: always a path on this server (one leading slash). */
export function sameSiteLocation(url: URL): string {
  return `/${url.pathname.replace(/^[/\\]+/, '')}${url.search}`;
}

/** The address to print: the one bound (IPv6 in brackets), 127.0.0.1 for `localhost`. */
export function printedHost(bindAddress: string): string {
  if (bindAddress === 'localhost') {
    return '127.0.0.1';
  }
  return bindAddress.includes(':') ? `[${bindAddress}]` : bindAddress;
}

/**
 * The Host header names this server answers to: the loopback names, the bound address, and, for
 * a wildcard bind (0.0.0.0 or ::), every address of this machine's interfaces.
 */
export function servedHostNames(bindAddress: string, interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]>): string[] {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]']);
  const wildcard = bindAddress === '0.0.0.0' || bindAddress === '::';
  if (!wildcard && bindAddress !== 'localhost') {
    names.add(printedHost(bindAddress));
  }
  if (wildcard) {
    for (const entries of Object.values(interfaces)) {
      for (const entry of entries ?? []) {
        if (bindAddress === '0.0.0.0' && entry.family !== 'IPv4') {
          continue;
        }
        names.add(entry.family === 'IPv6' ? `[${entry.address.split('%')[0]}]` : entry.address);
      }
    }
  }
  return [...names];
}

function cookieToken(request: http.IncomingMessage, port: number): string | undefined {
  const wanted = cookieName(port);
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === wanted) {
      return value.join('=');
    }
  }
  return undefined;
}
