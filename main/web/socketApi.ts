/**
 * The host API over a WebSocket at `/api`: an upgrade passes the token gate, comes from our own
 * origin and names our host; each frame is parsed against the contract (a malformed one gets an
 * error reply, never a crash) and answered by the host; the host's pushes go to every socket.
 */
import type http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { InvalidRequestError, toWireError } from '../../app/errors.js';
import { clientMessageSchema, type HostMessage } from '../../app/ipc/index.js';
import type { Host } from '../host/Host.js';
import { cookieToken, type TokenGate } from './tokenGate.js';

const MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** Serves the API on `server`'s upgrades; the returned function closes every socket. */
export function attachSocketApi(
  server: http.Server,
  options: { host: Host; gate: TokenGate; allowedHosts: () => readonly string[]; port: () => number; log: (message: string) => void },
): () => void {
  const { host, gate, allowedHosts, log } = options;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const origin = request.headers.origin ?? '';
    const reject = (status: number, text: string): void => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const address = request.socket.remoteAddress ?? '';
    const verdict = allowedHosts().includes(request.headers.host ?? '')
      ? gate.admit(url.searchParams.get('token'), cookieToken(request, options.port()), address)
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
      void answerFrame(host, ws, isBinary ? undefined : data.toString());
    });
  });

  return () => {
    unsubscribe();
    for (const client of sockets.clients) {
      client.terminate();
    }
    sockets.close();
  };
}

/** Answers one frame: the host's response, or an error reply for a frame that is not a request of the contract. */
async function answerFrame(host: Host, ws: WebSocket, text: string | undefined): Promise<void> {
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
