/**
 * Permission questions of one session: recorded, held until the person answers, and withdrawn
 * (answered "cancelled", never allowed) when the turn is cancelled or the agent ends. Baton never
 * answers on the person's behalf.
 */
import { keptInput, toolContent } from '../acp/mapUpdate.js';
import type { EventPayload } from '../../../app/events/index.js';
import { newId } from '../../../app/ids.js';
import type { RequestPermissionRequest, RequestPermissionResponse } from '../acp/AgentConnection.js';
import type { LiveSessionOwner } from './SessionOwner.js';

type PendingPermission = {
  turnId: string;
  title: string;
  toolKind: string | undefined;
  options: EventPayload<'permission.requested'>['options'];
  resolve: (response: RequestPermissionResponse) => void;
};

/** A permission question the person answered: what was asked and the option chosen. */
export type AnsweredPermission = Omit<PendingPermission, 'options' | 'resolve'> & { option: PendingPermission['options'][number] };

/** The open permission questions of one session. */
export class SessionPermissions {
  private readonly pending = new Map<string, PendingPermission>();

  constructor(
    private readonly owner: LiveSessionOwner,
    /** Tool calls the session has announced (a question about another one announces it). */
    private readonly toolCalls: Set<string>,
  ) {}

  /** The agent's `session/request_permission`: recorded, then waiting for the person. */
  request(request: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    const { owner } = this;
    const turnId = owner.activeTurnId();
    if (!turnId) {
      return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    }
    const requestId = newId();
    const options = request.options.map(({ optionId, name, kind }) => ({ optionId, name, kind }));
    const title = request.toolCall.title ?? 'The agent asks for permission';
    const { toolCallId } = request.toolCall;
    // What the question carries (Gemini sends its edit's diff only here) is shown before the answer, as for a tool call.
    const content = request.toolCall.content?.length ? { content: request.toolCall.content.map(toolContent) } : {};
    // A question about a tool call not announced yet announces it, so the answer has something to attach to.
    if (!this.toolCalls.has(toolCallId)) {
      this.toolCalls.add(toolCallId);
      owner.commit([
        {
          type: 'tool.call',
          payload: {
            turnId,
            toolCallId,
            title,
            ...(request.toolCall.kind ? { kind: request.toolCall.kind } : {}),
            status: 'pending',
            ...content,
            ...keptInput(request.toolCall.rawInput),
          },
        },
      ]);
    } else if (content.content) {
      owner.commit([{ type: 'tool.updated', payload: { turnId, toolCallId, ...content } }]);
    }
    owner.commit([
      { type: 'permission.requested', payload: { turnId, requestId, toolCallId, title, options, ...keptInput(request.toolCall.rawInput) } },
    ]);
    return new Promise((resolve) => {
      this.pending.set(requestId, { turnId, title, toolKind: request.toolCall.kind ?? undefined, options, resolve });
      signal.addEventListener('abort', () => this.withdraw(requestId), { once: true });
    });
  }

  /** Answers a question with the option the person chose; says what was answered. */
  answer(requestId: string, optionId: string): AnsweredPermission | 'unknown-request' | 'unknown-option' {
    const pending = this.pending.get(requestId);
    if (!pending) {
      return 'unknown-request';
    }
    const option = pending.options.find((candidate) => candidate.optionId === optionId);
    if (!option) {
      return 'unknown-option';
    }
    this.pending.delete(requestId);
    this.owner.commit([{ type: 'permission.decided', payload: { turnId: pending.turnId, requestId, optionId, by: 'person' } }]);
    pending.resolve({ outcome: { outcome: 'selected', optionId } });
    return { turnId: pending.turnId, title: pending.title, toolKind: pending.toolKind, option };
  }

  /** Withdraws every open question. */
  withdrawAll(): void {
    for (const requestId of [...this.pending.keys()]) {
      this.withdraw(requestId);
    }
  }

  private withdraw(requestId: string): void {
    const pending = this.pending.get(requestId);
    if (!pending) {
      return;
    }
    this.pending.delete(requestId);
    this.owner.commit([
      { type: 'permission.decided', payload: { turnId: pending.turnId, requestId, optionId: null, by: 'turn-cancelled' } },
    ]);
    pending.resolve({ outcome: { outcome: 'cancelled' } });
  }
}
