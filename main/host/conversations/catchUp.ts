/**
 * What an agent is given to pick a conversation up: after a switch, or when its own session had
 * to start again. A session that saw part of the conversation gets a delta (what happened after
 * its watermark); a new one gets Baton's handoff of everything before this turn. Either travels
 * ahead of the person's message as an embedded resource, or as a delimited text block for an
 * agent without embedded context, and is recorded as `handoff.prepared` with its fidelity.
 * Also: option choices carried from the previous agent where the new one has an equivalent.
 */
import type { EventDraft, EventPayload, TranscriptEvent } from '../../../app/events/index.js';
import {
  buildHandoff,
  DEFAULT_HANDOFF_BUDGET,
  delimitedHandoff,
  handoffBudget,
  handoffTurns,
  handoffUri,
} from '../../../app/handoff/handoff.js';
import { emptyTranscript, isSetAside, reduceAll } from '../../../app/transcript/index.js';
import type { ConversationContext } from '../../../app/transcript/context.js';
import type { PromptBlock } from '../acp/AgentConnection.js';
import type { SessionOption } from '../acp/sessionOptions.js';
import { sha256Hex } from '../sha256.js';
import type { EventStore } from '../store/EventStore.js';
import type { LiveSession } from './LiveSession.js';

/** How the turn's session came to be. */
export type SessionHow = EventPayload<'handoff.prepared'>['how'];

/** The catch-up for one turn: the block for the prompt (if any) and the event to record. */
export type CatchUp = { block: PromptBlock | null; draft: EventDraft };

const FIDELITY: Record<SessionHow, EventPayload<'handoff.prepared'>['fidelity']> = {
  live: 'resumed',
  resume: 'resumed',
  fork: 'resumed',
  load: 'replayed',
  new: 'handed-off',
};

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
  // The earlier turns that ended after the session's watermark (never one a rewind set aside).
  const ends = new Map<string, number>();
  for (const event of events) {
    if (event.type === 'turn.ended' && event.payload.turnId !== turnId && context.setAside[event.payload.turnId] === undefined) {
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
    const plan = state.items.findLast((item) => item.kind === 'plan' && item.turnId !== turnId && !isSetAside(state, item));
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
    level === 'resource'
      ? { type: 'resource', resource: { uri, mimeType: 'text/markdown', text } }
      : level === 'text'
        ? { type: 'text', text: delimitedHandoff(uri, text) }
        : null;
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
        sha256: sha256Hex(text),
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
 * One of the previous agent's choices and what the new agent has for it (nothing: no equivalent; `skip`: the person already chose there).
 */
type ChoiceMatch = { label: string; target: { optionId: string; value: string; apply: boolean } | null; skip: boolean };

/** Matches each of the previous agent's choices to the new agent's options (same id or category, a value of the same id or name). */
function matchChoices(
  from: { options: readonly SessionOption[]; chosen: Readonly<Record<string, string>> },
  to: readonly SessionOption[],
  alreadyChosen: Readonly<Record<string, string>>,
): ChoiceMatch[] {
  return Object.entries(from.chosen).map(([optionId, value]) => {
    const source = from.options.find((option) => option.id === optionId);
    const valueName = source?.options.find((candidate) => candidate.value === value)?.name ?? value;
    const label = `${source?.name ?? optionId}: ${valueName}`;
    const target = to.find((option) => option.id === optionId || (source?.category !== undefined && option.category === source.category));
    const match = target?.options.find((candidate) => same(candidate.value, value) || same(candidate.name, valueName));
    if (!target || !match) {
      return { label, target: null, skip: false };
    }
    return {
      label,
      target: { optionId: target.id, value: match.value, apply: target.currentValue !== match.value },
      skip: alreadyChosen[target.id] !== undefined,
    };
  });
}

/**
 * The previous agent's choices the new agent has an equivalent for, except where the person
 * already chose for the new agent: what to apply, what carried over, what did not.
 */
export function equivalentChoices(
  from: { options: readonly SessionOption[]; chosen: Readonly<Record<string, string>> },
  to: readonly SessionOption[],
  alreadyChosen: Readonly<Record<string, string>>,
): {
  apply: Array<{ optionId: string; value: string }>;
  carried: string[];
  notCarried: string[];
} {
  const matches = matchChoices(from, to, alreadyChosen).filter((match) => !match.skip);
  return {
    apply: matches.flatMap((match) => (match.target?.apply ? [{ optionId: match.target.optionId, value: match.target.value }] : [])),
    carried: matches.filter((match) => match.target).map((match) => match.label),
    notCarried: matches.filter((match) => !match.target).map((match) => match.label),
  };
}

/** The handoff budget when the agent has not reported its context size: BATON_HANDOFF_BUDGET characters, else the default. */
export function handoffBudgetSetting(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number(env.BATON_HANDOFF_BUDGET);
  return Number.isInteger(value) && value >= 1000 && value <= 1_000_000 ? value : DEFAULT_HANDOFF_BUDGET;
}

/**
 * What the turn's agent needs to pick the conversation up, after applying the option choices
 * carried over from the agent it was switched from; null when its session saw everything.
 */
export async function catchUpTurn(options: {
  conversationId: string;
  store: Pick<EventStore, 'getContext' | 'readEvents'>;
  commit: (drafts: EventDraft[]) => void;
  live: LiveSession;
  agentId: string;
  agentName: string;
  turnId: string;
  turnNumber: number;
  switchedFrom: { options: readonly SessionOption[]; chosen: Readonly<Record<string, string>> } | undefined;
  fellBack: string | undefined;
  budgetFallback: number;
}): Promise<CatchUp | null> {
  const { conversationId, store, live, agentId, switchedFrom } = options;
  const how: SessionHow = live.promptsSent === 0 ? (live.boundHow ?? 'new') : 'live';
  const context = store.getContext(conversationId);
  const watermark = how === 'new' ? 0 : (context.sessions[agentId]?.watermark ?? 0);
  if (!switchedFrom && context.lastTurnEndSeq <= watermark) {
    return null;
  }
  let carried: { carried: string[]; notCarried: string[] } | undefined;
  if (switchedFrom) {
    carried = { carried: [], notCarried: [] };
    for (const match of matchChoices(switchedFrom, live.sessionOptions, context.chosenByAgent[agentId] ?? {})) {
      if (match.skip) {
        continue;
      }
      if (!match.target) {
        carried.notCarried.push(match.label);
        continue;
      }
      try {
        if (match.target.apply) {
          options.commit([
            { type: 'session.option.chosen', payload: { optionId: match.target.optionId, value: match.target.value } },
            await live.choose(match.target.optionId, match.target.value),
          ]);
        }
        carried.carried.push(match.label);
      } catch (error) {
        carried.notCarried.push(`${match.label} (${error instanceof Error ? error.message : String(error)})`);
      }
    }
  }
  return catchUp({
    conversationId,
    events: store.readEvents(conversationId).events,
    context,
    agentId,
    agentName: options.agentName,
    turnId: options.turnId,
    turnNumber: options.turnNumber,
    how,
    watermark,
    switched: switchedFrom !== undefined,
    ...(options.fellBack ? { fellBack: options.fellBack } : {}),
    embeddedContext: live.takesEmbeddedContext,
    budgetFallback: options.budgetFallback,
    ...(carried ? { carried } : {}),
  });
}
