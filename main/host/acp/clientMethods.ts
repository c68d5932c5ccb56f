/**
 * The client side of ACP that Baton answers for the sessions a connection carries: updates,
 * permission questions, elicitations, files and terminals, each routed to its session by id and
 * refused with a JSON-RPC error where Baton has no such session or offers no such method. Part of
 * the ACP client wrapper (`acp/`), the only place that imports `@agentclientprotocol/sdk`.
 */
import * as acp from '@agentclientprotocol/sdk/unstable';

/** What one session of the connection asks of its owner (every process may carry several sessions). */
export type SessionHandlers = {
  /** Called synchronously, in arrival order, for every `session/update` of this session. */
  onUpdate(update: acp.SessionUpdate): void;
  /** Called for every `session/update` of a subagent session this session runs (ACP subagents). */
  onSubagentUpdate?(subagentId: string, update: acp.SessionUpdate): void;
  /** Asks the person; must never answer on their behalf. */
  requestPermission(request: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  /** Asks the person for input an MCP server wants (form or link). */
  elicit?(request: acp.CreateElicitationRequest, signal: AbortSignal): Promise<acp.CreateElicitationResponse>;
  /** The agent says an elicitation opened as a link is done (ignored by sessions that did not open it). */
  onElicitationComplete?(elicitationId: string): void;
  /** Client terminals for the agent, confined to this session. */
  terminals?: {
    create(request: acp.CreateTerminalRequest): Promise<string>;
    output(terminalId: string): { output: string; truncated: boolean; exitStatus: acp.TerminalExitStatus | null };
    waitForExit(terminalId: string): Promise<acp.TerminalExitStatus>;
    kill(terminalId: string): Promise<void>;
    release(terminalId: string): Promise<void>;
  };
  /** File access for the agent, confined to this session's folders. */
  files?: {
    read(path: string, line?: number | null, limit?: number | null): Promise<string>;
    write(path: string, content: string): Promise<void>;
  };
};

/** What the connection asks of its owner: the sessions it carries, routed by session id. */
export type AgentConnectionHandlers = {
  /**
   * The handlers of one session; undefined when the connection carries no such session (its
   * request is refused). A request scoped to no session (an elicitation about the connection) asks
   * with undefined.
   */
  session(sessionId: string | undefined): SessionHandlers | undefined;
  /** An update for a session that has no handlers yet (it arrives while `session/new` is answered). */
  onUnrouted?(sessionId: string, update: acp.SessionUpdate): void;
  /** The agent says an elicitation opened as a link is done; the connection does not say for which session. */
  onElicitationComplete?(elicitationId: string): void;
  /** What Baton offers the agent's sessions (advertised at `initialize`). */
  offers?: { files?: boolean; terminals?: boolean; elicitation?: boolean };
  /** True when Baton can run the agent's terminal log-in methods (advertised as `auth.terminal`). */
  terminalLogin?: boolean;
  /** The process ended (expectedly after dispose, or not). */
  onExit?(description: string): void;
};

/** Maps a refusal from the file or terminal handlers to the JSON-RPC error the agent gets. */
function handlerError(error: unknown): acp.RequestError {
  const kind = (error as { kind?: string }).kind;
  const message = error instanceof Error ? error.message : String(error);
  return new acp.RequestError(kind === 'not-found' ? -32002 : kind && kind !== 'failed' ? -32602 : -32603, message);
}

/**
 * Registers Baton's answers to the client methods on `client`; `updates.lastAt` is set at every
 * `session/update` (for the settle after a load). Returns the same client.
 */
export function answerClientMethods(client: acp.ClientApp, handlers: AgentConnectionHandlers, updates: { lastAt: number }): acp.ClientApp {
  const offers = handlers.offers ?? {};
  /** The session a request is for, or the JSON-RPC error the agent gets. */
  const route = (sessionId: string | undefined): SessionHandlers => {
    const session = handlers.session(sessionId);
    if (!session) {
      throw new acp.RequestError(
        -32602,
        sessionId ? `Baton has no session ${sessionId} on this connection.` : 'Baton cannot tell which session this request is for.',
      );
    }
    return session;
  };
  client
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.lastAt = Date.now();
      const session = handlers.session(params.sessionId);
      if (session) {
        session.onUpdate(params.update);
      } else {
        handlers.onUnrouted?.(params.sessionId, params.update);
      }
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
      const session = handlers.session(params.sessionId);
      // Nothing Baton runs here can ask the person: the question is answered "cancelled", never allowed.
      return session ? session.requestPermission(params, signal) : Promise.resolve({ outcome: { outcome: 'cancelled' as const } });
    });
  // Each handler turns a refusal into the JSON-RPC error the agent gets.
  const guarded =
    <P extends { sessionId: string }, R>(run: (session: SessionHandlers, params: P) => R | Promise<R>) =>
    async ({ params }: { params: P }): Promise<R> => {
      try {
        return await run(route(params.sessionId), params);
      } catch (error) {
        throw error instanceof acp.RequestError ? error : handlerError(error);
      }
    };
  const filesOf = (session: SessionHandlers): NonNullable<SessionHandlers['files']> => {
    if (!session.files) {
      throw new acp.RequestError(-32601, 'This session has no file access.');
    }
    return session.files;
  };
  const terminalsOf = (session: SessionHandlers): NonNullable<SessionHandlers['terminals']> => {
    if (!session.terminals) {
      throw new acp.RequestError(-32601, 'This session has no terminals.');
    }
    return session.terminals;
  };
  if (offers.files) {
    client
      .onRequest(
        acp.methods.client.fs.readTextFile,
        guarded(async (session, params: acp.ReadTextFileRequest) => ({
          content: await filesOf(session).read(params.path, params.line, params.limit),
        })),
      )
      .onRequest(
        acp.methods.client.fs.writeTextFile,
        guarded(async (session, params: acp.WriteTextFileRequest) => {
          await filesOf(session).write(params.path, params.content);
          return {};
        }),
      );
  }
  if (offers.elicitation) {
    client.onRequest(acp.methods.client.elicitation.create, async ({ params, signal }) => {
      const session = handlers.session('sessionId' in params && typeof params.sessionId === 'string' ? params.sessionId : undefined);
      try {
        return session?.elicit ? await session.elicit(params, signal) : { action: 'cancel' as const };
      } catch (error) {
        throw error instanceof acp.RequestError ? error : handlerError(error);
      }
    });
    client.onNotification(acp.methods.client.elicitation.complete, ({ params }) => {
      // A link's completion names no session: the session that opened it knows it.
      handlers.onElicitationComplete?.(params.elicitationId);
    });
  }
  if (offers.terminals) {
    client
      .onRequest(
        acp.methods.client.terminal.create,
        guarded(async (session, params: acp.CreateTerminalRequest) => ({ terminalId: await terminalsOf(session).create(params) })),
      )
      .onRequest(
        acp.methods.client.terminal.output,
        guarded((session, params: acp.TerminalOutputRequest) => terminalsOf(session).output(params.terminalId)),
      )
      .onRequest(
        acp.methods.client.terminal.waitForExit,
        guarded((session, params: acp.WaitForTerminalExitRequest) => terminalsOf(session).waitForExit(params.terminalId)),
      )
      .onRequest(
        acp.methods.client.terminal.kill,
        guarded(async (session, params: acp.KillTerminalRequest) => {
          await terminalsOf(session).kill(params.terminalId);
          return {};
        }),
      )
      .onRequest(
        acp.methods.client.terminal.release,
        guarded(async (session, params: acp.ReleaseTerminalRequest) => {
          await terminalsOf(session).release(params.terminalId);
          return {};
        }),
      );
  }
  return client;
}
