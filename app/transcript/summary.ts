/** The catalog projection: one summary row per conversation, folded from the same events. */
import { z } from 'zod';
import { isUnknownEvent, type TranscriptEvent, type UnknownEvent } from '../events/index.js';

/** What the conversation list shows for one conversation. */
export const conversationSummarySchema = z.object({
  conversationId: z.string(),
  title: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  cwd: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  turnCount: z.number().int().nonnegative(),
  lastSeq: z.number().int().nonnegative(),
  /** The start of the person's latest message. */
  preview: z.string(),
  running: z.boolean(),
});

/** What the conversation list shows for one conversation. */
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;

const PREVIEW_LENGTH = 140;
const TITLE_LENGTH = 60;

/** A title made from the first message: its first line, shortened at a word. */
export function titleFromMessage(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  if (line.length <= TITLE_LENGTH) {
    return line || 'New conversation';
  }
  const cut = line.slice(0, TITLE_LENGTH);
  const space = cut.lastIndexOf(' ');
  return `${(space > 20 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Folds one event into the conversation's summary (undefined before `conversation.created`). */
export function summarize(summary: ConversationSummary | undefined, event: TranscriptEvent | UnknownEvent): ConversationSummary | undefined {
  if (isUnknownEvent(event)) {
    return summary && { ...summary, lastSeq: event.seq };
  }
  if (event.type === 'conversation.created') {
    return {
      conversationId: event.conversationId,
      title: event.payload.title,
      agentId: event.payload.agentId,
      agentName: event.payload.agentName,
      cwd: event.payload.cwd,
      createdAt: event.at,
      updatedAt: event.at,
      turnCount: 0,
      lastSeq: event.seq,
      preview: '',
      running: false,
    };
  }
  if (!summary) {
    return undefined;
  }
  const next = { ...summary, lastSeq: event.seq, updatedAt: event.at };
  switch (event.type) {
    case 'conversation.renamed':
      return { ...next, title: event.payload.title };
    case 'turn.started':
      return {
        ...next,
        title: summary.turnCount === 0 && summary.title === '' ? titleFromMessage(event.payload.text) : summary.title,
        agentId: event.payload.agentId,
        agentName: event.payload.agentName,
        turnCount: summary.turnCount + 1,
        preview: event.payload.text.slice(0, PREVIEW_LENGTH),
        running: true,
      };
    case 'turn.ended':
      return { ...next, running: false };
    default:
      return next;
  }
}
