/**
 * What an agent is given to pick a conversation up: after a switch, or when its own session had
 * to start again. A session that saw part of the conversation gets a delta (what happened after
 * its watermark); a new one gets Baton's handoff of everything before this turn. Either travels
 * ahead of the person's message as an embedded resource, or as a delimited text block for an
 * agent without embedded context, and is recorded as `handoff.prepared` with its fidelity.
 * Also: option choices carried from the previous agent where the new one has an equivalent.
 */
import { createHash } from 'node:crypto';
import type { EventDraft, EventPayload, TranscriptEvent } from '../../../app/events/index.js';
import { buildHandoff, delimitedHandoff, handoffBudget, handoffTurns, handoffUri } from '../../../app/handoff/handoff.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import type { ConversationContext } from '../../../app/transcript/context.js';
import type { PromptBlock } from '../acp/AgentConnection.js';
import type { SessionOption } from '../acp/sessionOptions.js';

/** How the turn's session came to be. */
export type SessionHow = EventPayload<'handoff.prepared'>['how'];

/** The catch-up for one turn: the block for the prompt (if any) and the event to record. */
export type CatchUp = { block: PromptBlock | null; draft: EventDraft };

const FIDELITY: Record<SessionHow, EventPayload<'handoff.prepared'>['fidelity']> = { live: 'resumed', resume: 'resumed', load: 'replayed', new: 'handed-off' };

/**
 * The catch-up for the turn `turnId` with `agentId`'s session bound `how` (watermark: the last
 * turn end it saw), or null when there is nothing to catch up on and no switch to mark.
 */
export function catchUp(options: {
  conversationId: string;
  events: readonly TranscriptEvent[];
  context: ConversationContext;
  agentId: string;
  agentName: string;
  turnId: string;
  turnNumber: number;
  how: SessionHow;
  watermark: number;
  switched: boolean;
  fellBack?: string;
  embeddedContext: boolean;
  budgetFallback?: number;
  carried?: { carried: string[]; notCarried: string[] };
}): CatchUp | null {
  const { conversationId, events, context, agentId, agentName, turnId, turnNumber, how, watermark, switched, embeddedContext } = options;
  // The earlier turns that ended after the session's watermark.
  const ends = new Map<string, number>();
  for (const event of events) {
    if (event.type === 'turn.ended' && event.payload.turnId !== turnId) {
      ends.set(event.payload.turnId, event.seq);
    }
  }
  const unseen = [...ends].filter(([, seq]) => seq > watermark).map(([id]) => id);
  if (unseen.length === 0 && !switched) {
    return null;
  }
  const kind = how === 'new' ? 'handoff' : 'delta';
  let text = '';
  let turns = { full: 0, summarised: 0, omitted: 0 };
  if (unseen.length > 0) {
    const state = reduceAll(emptyTranscript(conversationId), [...events]);
    const plan = state.items.findLast((item) => item.kind === 'plan' && item.turnId !== turnId);
    const built = buildHandoff({
      kind,
      targetName: agentName,
      turns: handoffTurns(state, unseen),
      plan: plan?.kind === 'plan' ? plan.entries : undefined,
      budget: handoffBudget(context.contextSizes[agentId], options.budgetFallback),
    });
    text = built.text;
    turns = { full: built.full, summarised: built.summarised, omitted: built.omitted };
  }
  const uri = handoffUri(conversationId, turnNumber);
  const level = text === '' ? 'none' : embeddedContext ? 'resource' : 'text';
  const block: PromptBlock | null =
    level === 'resource' ? { type: 'resource', resource: { uri, mimeType: 'text/markdown', text } } : level === 'text' ? { type: 'text', text: delimitedHandoff(uri, text) } : null;
  return {
    block,
    draft: {
      type: 'handoff.prepared',
      payload: {
        turnId,
        toAgentId: agentId,
        toAgentName: agentName,
        fidelity: FIDELITY[how],
        how,
        kind,
        text,
        sha256: createHash('sha256').update(text).digest('hex'),
        ...(text === '' ? {} : { uri }),
        level,
        turns,
        ...(options.fellBack ? { fellBack: options.fellBack } : {}),
        carried: options.carried?.carried ?? [],
        notCarried: options.carried?.notCarried ?? [],
      },
    },
  };
}

const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The previous agent's choices the new agent has an equivalent for (same id or category, a value
 * of the same id or name), except where the person already chose for the new agent.
 */
export function equivalentChoices(from: { options: readonly SessionOption[]; chosen: Readonly<Record<string, string>> }, to: readonly SessionOption[], alreadyChosen: Readonly<Record<string, string>>): {
  apply: Array<{ optionId: string; value: string }>;
  carried: string[];
  notCarried: string[];
} {
  const apply: Array<{ optionId: string; value: string }> = [];
  const carried: string[] = [];
  const notCarried: string[] = [];
  for (const [optionId, value] of Object.entries(from.chosen)) {
    const source = from.options.find((option) => option.id === optionId);
    const valueName = source?.options.find((candidate) => candidate.value === value)?.name ?? value;
    const label = `${source?.name ?? optionId}: ${valueName}`;
    const target = to.find((option) => option.id === optionId || (source?.category !== undefined && option.category === source.category));
    const match = target?.options.find((candidate) => same(candidate.value, value) || same(candidate.name, valueName));
    if (!target || !match) {
      notCarried.push(label);
      continue;
    }
    if (alreadyChosen[target.id] !== undefined) {
      continue;
    }
    carried.push(label);
    if (target.currentValue !== match.value) {
      apply.push({ optionId: target.id, value: match.value });
    }
  }
  return { apply, carried, notCarried };
}
