// @vitest-environment happy-dom
/**
 * The renderer's API client: results are read through the contract, errors come back as the typed
 * errors they were, pushed events that do not fit the contract are dropped, and in the desktop app
 * the preload's bridge is the transport (a malformed answer said plainly; a file sent as its text).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatonError, NotFoundError } from '../app/errors.js';
import type { PushEvent, ResponseBody } from '../app/ipc/index.js';
import { testSummary } from './store/testSummary.js';
import type { PreloadBridge, Transport } from './transport/Transport.js';

/** A transport whose answers a test gives, recording what was asked. */
function fakeTransport(answer: (method: string, params: unknown) => ResponseBody) {
  const asked: Array<{ method: string; params: unknown }> = [];
  let emit: (name: string, payload: unknown) => void = () => {};
  const transport: Transport = {
    request: (method, params) => {
      asked.push({ method, params });
      return Promise.resolve(answer(method, params));
    },
    requestWithFile: async (method, file) => {
      asked.push({ method, params: await file.text() });
      return answer(method, undefined);
    },
    onEvent: (listener) => {
      emit = listener;
      return () => {
        emit = () => {};
      };
    },
    onStatus: (listener) => {
      listener('open');
      return () => {};
    },
  };
  return { transport, asked, emit: (name: string, payload: unknown) => emit(name, payload) };
}

beforeEach(() => {
  // The module makes the window's client when imported: over a bridge that answers nothing here, not a socket.
  window.baton = { request: () => Promise.resolve({}), onEvent: () => () => {} };
});

afterEach(() => {
  delete window.baton;
  vi.resetModules();
});

describe('the API client', () => {
  it('reads a result through the contract, and an error as the typed error it was', async () => {
    const { createApi } = await import('./api.js');
    const summary = testSummary('c1');
    const { transport, asked } = fakeTransport((method) =>
      method === 'renameConversation'
        ? { ok: true, result: { conversation: summary, unexpected: 'dropped' } }
        : { ok: false, error: { code: 'NotFound', message: 'No conversation with id c9.', details: { what: 'conversation', id: 'c9' } } },
    );
    const api = createApi(transport);
    await expect(api.call('renameConversation', { conversationId: 'c1', title: 'New' })).resolves.toEqual({ conversation: summary });
    const failure = await api.call('setArchived', { conversationId: 'c9', archived: true }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NotFoundError);
    expect(failure).toBeInstanceOf(BatonError);
    expect(failure).toMatchObject({ code: 'NotFound', message: 'No conversation with id c9.' });
    expect(asked).toEqual([
      { method: 'renameConversation', params: { conversationId: 'c1', title: 'New' } },
      { method: 'setArchived', params: { conversationId: 'c9', archived: true } },
    ]);
  });

  it('refuses a result that does not fit the contract', async () => {
    const { createApi } = await import('./api.js');
    const api = createApi(fakeTransport(() => ({ ok: true, result: { conversation: { title: 42 } } })).transport);
    await expect(api.call('renameConversation', { conversationId: 'c1', title: 'New' })).rejects.toThrow();
  });

  it('passes on the pushed events the contract knows, and drops the rest', async () => {
    const { createApi } = await import('./api.js');
    const fake = fakeTransport(() => ({ ok: true, result: {} }));
    const api = createApi(fake.transport);
    const seen: PushEvent[] = [];
    const stop = api.onPush((event) => seen.push(event));
    fake.emit('conversationRemoved', { conversationId: 'c1' });
    fake.emit('conversationRemoved', { conversationId: 7 });
    fake.emit('noSuchEvent', {});
    fake.emit('toString', {});
    stop();
    fake.emit('conversationRemoved', { conversationId: 'c2' });
    expect(seen).toEqual([{ name: 'conversationRemoved', payload: { conversationId: 'c1' } }]);
  });

  it("in the desktop app, the preload's bridge carries it: a malformed answer is said plainly, a file goes as its text", async () => {
    const requests: Array<{ method: string; params: unknown }> = [];
    const bridge: PreloadBridge = {
      request: (method, params) => {
        requests.push({ method, params });
        return Promise.resolve(method === 'answerPermission' ? { ok: true, result: {} } : { nonsense: true });
      },
      onEvent: () => () => {},
      revealFolder: vi.fn(() => Promise.resolve()),
      pickFolder: vi.fn(() => Promise.resolve('/home/me/project')),
    };
    window.baton = bridge;
    const { api, pickFolder, revealFolder } = await import('./api.js');
    await expect(api.call('answerPermission', { conversationId: 'c', requestId: 'r', optionId: 'o' })).resolves.toEqual({});
    await expect(api.call('setArchived', { conversationId: 'c', archived: true })).rejects.toThrow(
      'The host answered with a malformed message.',
    );
    await api.callWithFile('importConversation', new Blob(['{"line":1}\n'])).catch(() => undefined);
    expect(requests.at(-1)).toEqual({ method: 'importConversation', params: { content: '{"line":1}\n' } });
    const statuses: string[] = [];
    api.onStatus((status) => statuses.push(status));
    expect(statuses).toEqual(['open']);
    await expect(pickFolder?.()).resolves.toBe('/home/me/project');
    await revealFolder?.('c');
    expect(bridge.revealFolder).toHaveBeenCalledWith('c');
  });
});
