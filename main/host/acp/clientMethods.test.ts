/**
 * Baton's answers to the client methods of ACP, routed to each session by id: updates in order,
 * a permission question for no session answered "cancelled" (never allowed), files and terminals
 * only where offered, and each refusal turned into the JSON-RPC error the agent gets.
 */
import * as acp from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it, vi } from 'vitest';
import { answerClientMethods, type AgentConnectionHandlers, type SessionHandlers } from './clientMethods.js';

type Handler = (request: { params: unknown; signal?: AbortSignal }) => unknown;

/** A client that keeps the handlers registered on it, by method. */
function recordingClient() {
  const handlers = new Map<string, Handler>();
  const client = {
    onRequest(method: string, handler: Handler) {
      handlers.set(method, handler);
      return client;
    },
    onNotification(method: string, handler: Handler) {
      handlers.set(method, handler);
      return client;
    },
  };
  const call = (method: string, params: unknown): Promise<unknown> => {
    const handler = handlers.get(method);
    return handler
      ? Promise.resolve().then(() => handler({ params, signal: new AbortController().signal }))
      : Promise.reject(new Error(`no handler for ${method}`));
  };
  return { client: client as unknown as acp.ClientApp, handlers, call };
}

/** What a refused request rejects with: the JSON-RPC code and message. */
async function refusal(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(acp.RequestError);
  return { code: (error as acp.RequestError).code, message: (error as Error).message };
}

function session(overrides: Partial<SessionHandlers> = {}): SessionHandlers {
  return {
    onUpdate: vi.fn(),
    requestPermission: vi.fn(() => Promise.resolve({ outcome: { outcome: 'selected' as const, optionId: 'allow' } })),
    ...overrides,
  };
}

describe('answerClientMethods', () => {
  it('routes updates to their session in order, keeps the time of the last, and hands on the ones for no session yet', async () => {
    const known = session();
    const onUnrouted = vi.fn();
    const updates = { lastAt: 0 };
    const recorder = recordingClient();
    answerClientMethods(recorder.client, { session: (id) => (id === 's1' ? known : undefined), onUnrouted }, updates);
    const first = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } };
    const second = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'b' } };
    await recorder.call(acp.methods.client.session.update, { sessionId: 's1', update: first });
    await recorder.call(acp.methods.client.session.update, { sessionId: 's1', update: second });
    await recorder.call(acp.methods.client.session.update, { sessionId: 's2', update: first });
    expect(vi.mocked(known.onUpdate).mock.calls).toEqual([[first], [second]]);
    expect(onUnrouted).toHaveBeenCalledWith('s2', first);
    expect(updates.lastAt).toBeGreaterThan(0);
    await expect(recorder.call(acp.methods.client.fs.readTextFile, { sessionId: 's1', path: '/a' })).rejects.toThrow('no handler');
  });

  it('asks the session about a permission; a question for no session is answered "cancelled", never allowed', async () => {
    const known = session();
    const recorder = recordingClient();
    answerClientMethods(recorder.client, { session: (id) => (id === 's1' ? known : undefined) }, { lastAt: 0 });
    const question = { sessionId: 's1', toolCall: { toolCallId: 't' }, options: [] };
    await expect(recorder.call(acp.methods.client.session.requestPermission, question)).resolves.toEqual({
      outcome: { outcome: 'selected', optionId: 'allow' },
    });
    await expect(recorder.call(acp.methods.client.session.requestPermission, { ...question, sessionId: 'gone' })).resolves.toEqual({
      outcome: { outcome: 'cancelled' },
    });
  });

  it('offers files and terminals only when told to', () => {
    const bare = recordingClient();
    answerClientMethods(bare.client, { session: () => session() }, { lastAt: 0 });
    expect([...bare.handlers.keys()].sort()).toEqual(
      [acp.methods.client.session.requestPermission, acp.methods.client.session.update].sort(),
    );
    const full = recordingClient();
    answerClientMethods(
      full.client,
      { session: () => session(), offers: { files: true, terminals: true, elicitation: true } },
      { lastAt: 0 },
    );
    expect(full.handlers.has(acp.methods.client.fs.readTextFile)).toBe(true);
    expect(full.handlers.has(acp.methods.client.terminal.create)).toBe(true);
    expect(full.handlers.has(acp.methods.client.elicitation.create)).toBe(true);
  });

  it("turns each refusal into the agent's JSON-RPC error: no session, no files here, not found, refused, failed", async () => {
    const failing = (error: unknown) => () => Promise.reject(error);
    const sessions: Record<string, SessionHandlers> = {
      plain: session(),
      missing: session({
        files: { read: failing(Object.assign(new Error('No such file: a.txt'), { kind: 'not-found' })), write: failing(new Error('x')) },
      }),
      outside: session({
        files: {
          read: failing(Object.assign(new Error('/etc/passwd is outside the folders'), { kind: 'outside' })),
          write: failing(new Error('x')),
        },
      }),
      broken: session({ files: { read: failing(new Error('disk on fire')), write: () => Promise.resolve() } }),
    };
    const handlers: AgentConnectionHandlers = { session: (id) => (id ? sessions[id] : undefined), offers: { files: true } };
    const recorder = recordingClient();
    answerClientMethods(recorder.client, handlers, { lastAt: 0 });
    const read = (sessionId: string) => recorder.call(acp.methods.client.fs.readTextFile, { sessionId, path: '/w/a.txt' });
    expect(await refusal(read('nobody'))).toEqual({ code: -32602, message: 'Baton has no session nobody on this connection.' });
    expect(await refusal(read('plain'))).toEqual({ code: -32601, message: 'This session has no file access.' });
    expect(await refusal(read('missing'))).toEqual({ code: -32002, message: 'No such file: a.txt' });
    expect(await refusal(read('outside'))).toEqual({ code: -32602, message: '/etc/passwd is outside the folders' });
    expect(await refusal(read('broken'))).toEqual({ code: -32603, message: 'disk on fire' });
    await expect(
      recorder.call(acp.methods.client.fs.writeTextFile, { sessionId: 'broken', path: '/w/a.txt', content: 'x' }),
    ).resolves.toEqual({});
  });

  it('runs terminals through the session that asked, and answers elicitations it cannot ask about with "cancel"', async () => {
    const terminals = {
      create: vi.fn(() => Promise.resolve('term-1')),
      output: vi.fn(() => ({ output: 'ok\n', truncated: false, exitStatus: { exitCode: 0 } })),
      waitForExit: vi.fn(() => Promise.resolve({ exitCode: 0 })),
      kill: vi.fn(() => Promise.resolve()),
      release: vi.fn(() => Promise.resolve()),
    };
    const known = session({ terminals });
    const onElicitationComplete = vi.fn();
    const recorder = recordingClient();
    answerClientMethods(
      recorder.client,
      { session: (id) => (id === 's1' ? known : undefined), offers: { terminals: true, elicitation: true }, onElicitationComplete },
      { lastAt: 0 },
    );
    await expect(recorder.call(acp.methods.client.terminal.create, { sessionId: 's1', command: 'npm', args: ['test'] })).resolves.toEqual({
      terminalId: 'term-1',
    });
    await expect(recorder.call(acp.methods.client.terminal.output, { sessionId: 's1', terminalId: 'term-1' })).resolves.toMatchObject({
      output: 'ok\n',
    });
    await expect(recorder.call(acp.methods.client.terminal.kill, { sessionId: 's1', terminalId: 'term-1' })).resolves.toEqual({});
    await expect(recorder.call(acp.methods.client.terminal.release, { sessionId: 's1', terminalId: 'term-1' })).resolves.toEqual({});
    expect(terminals.kill).toHaveBeenCalledWith('term-1');
    // A session that cannot ask the person (no elicit handler), or no session at all: "cancel".
    await expect(
      recorder.call(acp.methods.client.elicitation.create, { sessionId: 's1', mode: 'form', message: 'Token?' }),
    ).resolves.toEqual({
      action: 'cancel',
    });
    await expect(recorder.call(acp.methods.client.elicitation.create, { mode: 'form', message: 'Token?' })).resolves.toEqual({
      action: 'cancel',
    });
    await recorder.call(acp.methods.client.elicitation.complete, { elicitationId: 'e1' });
    expect(onElicitationComplete).toHaveBeenCalledWith('e1');
  });
});
