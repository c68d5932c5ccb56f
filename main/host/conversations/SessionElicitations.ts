/**
 * Elicitations for one session: an MCP server's request for input, forwarded by the agent
 * (`elicitation/create`), recorded and held until the person answers, declines or cancels; never
 * answered on their behalf. A form's values are checked against its schema and go to the agent
 * only: the transcript records which fields were filled in, not what was typed.
 */
import { checkElicitationAnswer, type ElicitationValue } from '../../../app/agents/elicitation.js';
import type { EventPayload } from '../../../app/events/index.js';
import { elicitationSchemaSchema } from '../../../app/events/schemas.js';
import { newId } from '../../../app/ids.js';
import { RequestError, type CreateElicitationRequest, type CreateElicitationResponse } from '../acp/AgentConnection.js';
import type { LiveSessionOwner } from './SessionOwner.js';

type Pending = {
  request: EventPayload<'elicitation.requested'>;
  elicitationId: string | undefined;
  resolve: (response: CreateElicitationResponse) => void;
};

/** What answering an elicitation came to. */
export type ElicitationAnswerResult = { kind: 'answered' } | { kind: 'unknown-request' } | { kind: 'invalid'; problems: string[] };

/** The open elicitations of one session. */
export class SessionElicitations {
  private readonly pending = new Map<string, Pending>();
  /** Link elicitations by the agent's id, so its `elicitation/complete` finds them. */
  private readonly linkRequests = new Map<string, string>();

  constructor(
    /** The session's id once bound. */
    private readonly sessionId: () => string | undefined,
  ) {}

  /** Answers a request with what the person chose; a form's values are checked first. */
  answer(
    requestId: string,
    action: 'accept' | 'decline' | 'cancel',
    content: Record<string, ElicitationValue> | undefined,
    owner: LiveSessionOwner,
  ): ElicitationAnswerResult {
    const pending = this.pending.get(requestId);
    if (!pending) {
      return { kind: 'unknown-request' };
    }
    const values = pending.request.mode === 'form' && action === 'accept' ? (content ?? {}) : undefined;
    if (values) {
      const problems = checkElicitationAnswer(pending.request.schema, values);
      if (problems.length > 0) {
        return { kind: 'invalid', problems };
      }
    }
    this.pending.delete(requestId);
    owner.commit([
      { type: 'elicitation.answered', payload: { requestId, action, by: 'person', ...(values ? { fields: Object.keys(values) } : {}) } },
    ]);
    pending.resolve(values ? { action: 'accept', content: values } : { action });
    return { kind: 'answered' };
  }

  /** An agent's `elicitation/create`: recorded, then waiting for the person. */
  request(request: CreateElicitationRequest, signal: AbortSignal, owner: LiveSessionOwner): Promise<CreateElicitationResponse> {
    const sessionId = this.sessionId();
    if ('sessionId' in request && sessionId !== undefined && request.sessionId !== sessionId) {
      throw new RequestError(-32602, `Unknown session ${String(request.sessionId)}.`);
    }
    const turnId = owner.activeTurnId();
    const requestId = newId();
    const toolCallId = 'toolCallId' in request && typeof request.toolCallId === 'string' ? request.toolCallId : undefined;
    const common = { ...(turnId ? { turnId } : {}), requestId, ...(toolCallId ? { toolCallId } : {}), message: request.message };
    let recorded: EventPayload<'elicitation.requested'>;
    let elicitationId: string | undefined;
    if (request.mode === 'form' && 'requestedSchema' in request) {
      const schema = elicitationSchemaSchema.safeParse(request.requestedSchema);
      if (!schema.success) {
        throw new RequestError(-32602, `Baton cannot show this form: ${schema.error.issues[0]?.message ?? 'its schema is not valid'}.`);
      }
      recorded = { ...common, mode: 'form', schema: schema.data };
    } else if (request.mode === 'url' && 'url' in request && typeof request.url === 'string') {
      if (!/^https?:\/\//i.test(request.url)) {
        throw new RequestError(-32602, `Baton opens only http and https links, not ${request.url}.`);
      }
      recorded = { ...common, mode: 'url', url: request.url };
      elicitationId = typeof request.elicitationId === 'string' ? request.elicitationId : undefined;
    } else {
      throw new RequestError(-32602, `Baton does not support elicitation mode "${request.mode}".`);
    }
    owner.commit([{ type: 'elicitation.requested', payload: recorded }]);
    return new Promise((resolve) => {
      this.pending.set(requestId, { request: recorded, elicitationId, resolve });
      if (elicitationId) {
        this.linkRequests.set(elicitationId, requestId);
      }
      signal.addEventListener('abort', () => this.withdraw(requestId, owner), { once: true });
    });
  }

  /** The agent's `elicitation/complete` for a link. */
  complete(elicitationId: string, owner: LiveSessionOwner): void {
    const requestId = this.linkRequests.get(elicitationId);
    if (requestId) {
      this.linkRequests.delete(elicitationId);
      owner.commit([{ type: 'elicitation.completed', payload: { requestId } }]);
    }
  }

  /** Withdraws every open request (the turn was cancelled or the agent ended). */
  withdrawAll(owner: LiveSessionOwner): void {
    for (const requestId of [...this.pending.keys()]) {
      this.withdraw(requestId, owner);
    }
  }

  private withdraw(requestId: string, owner: LiveSessionOwner): void {
    const pending = this.pending.get(requestId);
    if (!pending) {
      return;
    }
    this.pending.delete(requestId);
    owner.commit([{ type: 'elicitation.answered', payload: { requestId, action: 'cancel', by: 'turn-cancelled' } }]);
    pending.resolve({ action: 'cancel' });
  }
}
