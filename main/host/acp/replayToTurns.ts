/**
 * Turns a session's history, as an agent replays it on `session/load`, into Baton turns: each
 * run of the person's message chunks starts a turn, and what the agent sent until the next one
 * belongs to it. Used to import sessions started outside Baton. Pure apart from the id source.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { EventDraft } from '../../../app/events/index.js';
import { contentText, mapUpdate } from './mapUpdate.js';

/**
 * Replayed updates as transcript drafts: whole turns, each ended as completed. Messages for
 * which `isOwnMessage` is true were written by the agent, not the person, and are left out.
 */
export function replayToTurns(
  updates: readonly SessionUpdate[],
  agent: { agentId: string; agentName: string },
  newTurnId: () => string,
  isOwnMessage: (text: string) => boolean = () => false,
): EventDraft[] {
  const drafts: EventDraft[] = [];
  const toolCalls = new Set<string>();
  let turn: { turnId: string; text: string; drafts: EventDraft[] } | undefined;
  const flush = (): void => {
    if (!turn) {
      return;
    }
    const { turnId, text } = turn;
    drafts.push({ type: 'turn.started', payload: { turnId, agentId: agent.agentId, agentName: agent.agentName, text } }, ...turn.drafts, {
      type: 'turn.ended',
      payload: { turnId, outcome: 'completed' },
    });
    turn = undefined;
  };
  for (const update of updates) {
    if (update.sessionUpdate === 'user_message_chunk') {
      if (isOwnMessage(contentText(update.content))) {
        continue;
      }
      if (!turn || turn.drafts.length > 0) {
        flush();
        turn = { turnId: newTurnId(), text: '', drafts: [] };
      }
      turn.text += contentText(update.content);
      continue;
    }
    const current = turn ?? { turnId: newTurnId(), text: '', drafts: [] };
    const mapped = mapUpdate(update, current.turnId, { isKnownToolCall: (id) => toolCalls.has(id) }).drafts.filter(
      (draft) => draft.type !== 'usage',
    );
    if (mapped.length === 0) {
      continue;
    }
    turn = current;
    for (const draft of mapped) {
      if (draft.type === 'tool.call') {
        toolCalls.add(draft.payload.toolCallId);
      }
    }
    turn.drafts.push(...mapped);
  }
  flush();
  return drafts;
}
