/**
 * The browser transport: host-API frames over a WebSocket to the web host. Reconnects with
 * backoff; requests in flight when the socket drops fail with a readable error (the store then
 * reloads what it shows once the socket is back).
 */
import { hostMessageSchema, responseBodySchema, UPLOAD_PATH, type ResponseBody } from '../../app/ipc/index.js';
import { CONNECTION_LOST_MESSAGE, type ConnectionStatus, type Transport } from './Transport.js';

const MAX_BACKOFF_MS = 5_000;
/** What a request gets when the connection went before its answer came. */
const LOST: ResponseBody = { ok: false, error: { code: 'Internal', message: CONNECTION_LOST_MESSAGE } };

/** Connects to `ws(s)://<host>/api`, passing the page's token along. */
export function webSocketTransport(location: Location): Transport {
  const token = new URLSearchParams(location.search).get('token');
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api${token ? `?token=${encodeURIComponent(token)}` : ''}`;
  const eventListeners = new Set<(name: string, payload: unknown) => void>();
  const statusListeners = new Set<(status: ConnectionStatus) => void>();
  const pending = new Map<number, (body: ResponseBody) => void>();
  const queue: string[] = [];
  let socket: WebSocket | undefined;
  let status: ConnectionStatus = 'connecting';
  let nextId = 1;
  let backoff = 250;

  const setStatus = (next: ConnectionStatus): void => {
    status = next;
    statusListeners.forEach((listener) => listener(next));
  };

  /** False only when the web host answers that this window is not (or no longer) let in. */
  const stillLetIn = async (): Promise<boolean> => {
    try {
      const response = await fetch(`${location.pathname}${location.search}`, {
        method: 'HEAD',
        cache: 'no-store',
        credentials: 'same-origin',
        redirect: 'manual',
      });
      return response.status !== 401 && response.status !== 429;
    } catch {
      // Baton is not answering at all (stopped or restarting): keep trying.
      return true;
    }
  };

  const connect = (): void => {
    setStatus('connecting');
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => {
      backoff = 250;
      setStatus('open');
      queue.splice(0).forEach((frame) => ws.send(frame));
    };
    ws.onmessage = (message) => {
      let json: unknown;
      try {
        json = JSON.parse(String(message.data));
      } catch {
        return;
      }
      const parsed = hostMessageSchema.safeParse(json);
      if (!parsed.success) {
        return;
      }
      const frame = parsed.data;
      if (frame.kind === 'event') {
        eventListeners.forEach((listener) => listener(frame.name, frame.payload));
        return;
      }
      const resolve = frame.id === null ? undefined : pending.get(frame.id);
      if (frame.id !== null && resolve) {
        pending.delete(frame.id);
        resolve(frame.ok ? { ok: true, result: frame.result } : { ok: false, error: frame.error });
      }
    };
    ws.onclose = () => {
      setStatus('closed');
      for (const resolve of pending.values()) {
        resolve(LOST);
      }
      pending.clear();
      const wait = backoff;
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      void stillLetIn().then((letIn) => {
        if (letIn) {
          setTimeout(connect, wait);
        } else {
          setStatus('unauthorized');
        }
      });
    };
  };
  connect();

  return {
    request(method, params) {
      const id = nextId++;
      const frame = JSON.stringify({ kind: 'request', id, method, params });
      return new Promise((resolve) => {
        pending.set(id, resolve);
        if (socket && socket.readyState === WebSocket.OPEN) {
          socket.send(frame);
        } else {
          queue.push(frame);
        }
      });
    },
    // A file goes as an upload: the browser sends its bytes as they are, where a WebSocket frame
    // would need it read into a string, escaped into JSON and sent in one piece.
    async requestWithFile(method, file) {
      let response: Response;
      try {
        response = await fetch(`${UPLOAD_PATH}${method}${token ? `?token=${encodeURIComponent(token)}` : ''}`, {
          method: 'POST',
          body: file,
          credentials: 'same-origin',
          headers: { 'content-type': 'application/octet-stream' },
        });
      } catch {
        return LOST;
      }
      const parsed = responseBodySchema.safeParse(await response.json().catch(() => undefined));
      if (parsed.success) {
        return parsed.data;
      }
      const refused = response.status === 401 || response.status === 429;
      return {
        ok: false,
        error: {
          code: 'Internal',
          message: refused
            ? 'Baton no longer lets this window in. Open the address Baton printed when it started.'
            : `Baton answered the upload with ${response.status} and no readable message.`,
        },
      };
    },
    onEvent(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    onStatus(listener) {
      statusListeners.add(listener);
      listener(status);
      return () => statusListeners.delete(listener);
    },
  };
}
