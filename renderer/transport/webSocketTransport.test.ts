/**
 * The browser's transport to the web host: requests wait for the socket and are answered by id,
 * events reach every listener, a malformed frame is dropped, requests in flight when the socket
 * drops get a readable error, it reconnects with backoff, and it stops once the host no longer
 * lets the window in. Uploads carry a file as it is and read the host's answer.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONNECTION_LOST_MESSAGE, type ConnectionStatus } from './Transport.js';
import { webSocketTransport } from './webSocketTransport.js';

/** A socket the test drives: opens, answers and closes when told. */
class FakeSocket {
  static readonly OPEN = 1;
  static made: FakeSocket[] = [];
  readyState = 0;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((message: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;

  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }

  send(frame: string): void {
    this.sent.push(frame);
  }

  open(): void {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }

  receive(frame: unknown): void {
    this.onmessage?.({ data: typeof frame === 'string' ? frame : JSON.stringify(frame) });
  }

  drop(): void {
    this.readyState = 3;
    this.onclose?.();
  }
}

const location = (search = '?token=secret%20token'): Location =>
  ({ protocol: 'http:', host: '127.0.0.1:4100', pathname: '/', search }) as Location;

const fetchAnswers: Array<() => Promise<Response>> = [];
const fetched: Array<{ url: string; init: RequestInit | undefined }> = [];

beforeEach(() => {
  FakeSocket.made = [];
  fetchAnswers.length = 0;
  fetched.length = 0;
  vi.stubGlobal('WebSocket', FakeSocket);
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) => {
    fetched.push({ url, init });
    const answer = fetchAnswers.shift();
    return answer ? answer() : Promise.reject(new Error('no answer'));
  });
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('webSocketTransport', () => {
  it('connects with the page token, holds requests until open, and answers each by its id', async () => {
    const transport = webSocketTransport(location());
    const socket = FakeSocket.made[0]!;
    expect(socket.url).toBe('ws://127.0.0.1:4100/api?token=secret%20token');
    const first = transport.request('listAgents', {});
    const second = transport.request('renameConversation', { conversationId: 'c', title: 'T' });
    expect(socket.sent).toEqual([]);
    socket.open();
    expect(socket.sent.map((frame) => JSON.parse(frame) as unknown)).toEqual([
      { kind: 'request', id: 1, method: 'listAgents', params: {} },
      { kind: 'request', id: 2, method: 'renameConversation', params: { conversationId: 'c', title: 'T' } },
    ]);
    socket.receive({ kind: 'response', id: 2, ok: false, error: { code: 'NotFound', message: 'No conversation with id c.' } });
    socket.receive({ kind: 'response', id: 1, ok: true, result: { agents: [] } });
    await expect(second).resolves.toEqual({ ok: false, error: { code: 'NotFound', message: 'No conversation with id c.' } });
    await expect(first).resolves.toEqual({ ok: true, result: { agents: [] } });
    // Once open, a request goes at once.
    void transport.request('listAgents', {});
    expect(socket.sent).toHaveLength(3);
  });

  it('hands events to every listener until it stops listening, and drops frames it cannot read', () => {
    const transport = webSocketTransport(location(''));
    const socket = FakeSocket.made[0]!;
    expect(socket.url).toBe('ws://127.0.0.1:4100/api');
    const seen: Array<[string, unknown]> = [];
    const stop = transport.onEvent((name, payload) => seen.push([name, payload]));
    socket.open();
    socket.receive({ kind: 'event', name: 'conversationRemoved', payload: { conversationId: 'c' } });
    socket.receive('not json at all');
    socket.receive({ kind: 'mystery' });
    socket.receive({ kind: 'response', id: 99, ok: true, result: {} });
    stop();
    socket.receive({ kind: 'event', name: 'conversationRemoved', payload: { conversationId: 'd' } });
    expect(seen).toEqual([['conversationRemoved', { conversationId: 'c' }]]);
  });

  it('fails the requests in flight when the socket drops, then reconnects with growing waits', async () => {
    vi.useFakeTimers();
    const transport = webSocketTransport(location());
    const statuses: ConnectionStatus[] = [];
    transport.onStatus((status) => statuses.push(status));
    const socket = FakeSocket.made[0]!;
    socket.open();
    const inFlight = transport.request('listAgents', {});
    fetchAnswers.push(() => Promise.resolve(new Response(null, { status: 200 })));
    socket.drop();
    await expect(inFlight).resolves.toEqual({ ok: false, error: { code: 'Internal', message: CONNECTION_LOST_MESSAGE } });
    expect(fetched[0]).toMatchObject({ url: '/?token=secret%20token', init: { method: 'HEAD' } });
    await vi.advanceTimersByTimeAsync(249);
    expect(FakeSocket.made).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeSocket.made).toHaveLength(2);
    // Down again before it opened: the wait doubles.
    fetchAnswers.push(() => Promise.resolve(new Response(null, { status: 200 })));
    FakeSocket.made[1]!.drop();
    await vi.advanceTimersByTimeAsync(499);
    expect(FakeSocket.made).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeSocket.made).toHaveLength(3);
    FakeSocket.made[2]!.open();
    expect(statuses).toEqual(['connecting', 'open', 'closed', 'connecting', 'closed', 'connecting', 'open']);
  });

  it('stops trying once the host says the window is no longer let in', async () => {
    vi.useFakeTimers();
    const transport = webSocketTransport(location());
    const statuses: ConnectionStatus[] = [];
    transport.onStatus((status) => statuses.push(status));
    fetchAnswers.push(() => Promise.resolve(new Response(null, { status: 401 })));
    FakeSocket.made[0]!.drop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(FakeSocket.made).toHaveLength(1);
    expect(statuses.at(-1)).toBe('unauthorized');
  });

  it('uploads a file as it is, and reads the answer, a refusal or an unreadable one', async () => {
    const transport = webSocketTransport(location());
    const file = new Blob(['{"a":1}\n']);
    fetchAnswers.push(() => Promise.resolve(Response.json({ ok: true, result: { conversationId: 'new' } })));
    await expect(transport.requestWithFile('importConversation', file)).resolves.toEqual({ ok: true, result: { conversationId: 'new' } });
    expect(fetched[0]?.url).toBe('/api/upload/importConversation?token=secret%20token');
    expect(fetched[0]?.init).toMatchObject({ method: 'POST', body: file, headers: { 'content-type': 'application/octet-stream' } });

    fetchAnswers.push(() => Promise.resolve(new Response('nope', { status: 401 })));
    expect(await transport.requestWithFile('importConversation', file)).toEqual({
      ok: false,
      error: { code: 'Internal', message: 'Baton no longer lets this window in. Open the address Baton printed when it started.' },
    });
    fetchAnswers.push(() => Promise.resolve(new Response('<html>', { status: 502 })));
    expect(await transport.requestWithFile('importConversation', file)).toEqual({
      ok: false,
      error: { code: 'Internal', message: 'Baton answered the upload with 502 and no readable message.' },
    });
    // Nothing answers at all.
    expect(await transport.requestWithFile('importConversation', file)).toEqual({
      ok: false,
      error: { code: 'Internal', message: CONNECTION_LOST_MESSAGE },
    });
  });
});
