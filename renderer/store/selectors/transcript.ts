/** Selectors over the open conversation. */
import type { TranscriptState } from '../../../app/transcript/index.js';
import type { ConversationSummary } from '../../../app/transcript/summary.js';
import { composerKey, type BatonState } from '../store.js';
import { THIS_COMPUTER } from '../slices/machinesSlice.js';

/** The open conversation's transcript, once loaded. */
export function selectActiveTranscript(state: BatonState): TranscriptState | undefined {
  return state.selection.kind === 'conversation' ? state.transcripts[state.selection.conversationId]?.state : undefined;
}

/** The open conversation's summary. */
export function selectActiveSummary(state: BatonState): ConversationSummary | undefined {
  const { selection, openSummary } = state;
  return selection.kind === 'conversation' && openSummary?.conversationId === selection.conversationId ? openSummary : undefined;
}

/** The machine the open conversation is on, or the one the next new conversation goes to. */
export function selectActiveMachine(state: BatonState): string {
  const summary = selectActiveSummary(state);
  return summary ? summary.machine : (state.draft.machineId ?? THIS_COMPUTER);
}

/** True while a reply is being written in the open conversation. */
export function selectTurnRunning(state: BatonState): boolean {
  return (selectActiveTranscript(state)?.activeTurnId ?? null) !== null;
}

/** True when the open conversation's agent takes follow-ups into a running turn (steering). */
export function selectSteering(state: BatonState): boolean {
  return selectActiveTranscript(state)?.session?.steering === true;
}

/** Unsent text of the open pane. */
export function selectComposerText(state: BatonState): string {
  return state.composer[composerKey(state.selection)] ?? '';
}

/** True while the open pane's message is being sent (its box still holds it). */
export function selectSending(state: BatonState): boolean {
  return state.sending[composerKey(state.selection)] !== undefined;
}

/** The id of the open conversation, or undefined for a new one. */
export function selectActiveConversationId(state: BatonState): string | undefined {
  return state.selection.kind === 'conversation' ? state.selection.conversationId : undefined;
}

/** True when the open transcript starts after the conversation's beginning. */
export function selectHasEarlier(state: BatonState): boolean {
  return state.selection.kind === 'conversation' && (state.transcripts[state.selection.conversationId]?.firstSeq ?? 1) > 1;
}

const NO_COMMANDS: TranscriptState['commands'] = [];

/** The agent's slash commands matching what is typed, while the message is a bare "/word". */
export function selectCommandSuggestions(state: BatonState): TranscriptState['commands'] {
  const text = selectComposerText(state);
  const commands = selectActiveTranscript(state)?.commands ?? NO_COMMANDS;
  if (!/^\/\S*$/.test(text) || commands.length === 0) {
    return NO_COMMANDS;
  }
  const typed = text.slice(1).toLowerCase();
  const matching = commands.filter((command) => command.name.toLowerCase().startsWith(typed));
  return matching.length === commands.length ? commands : matching;
}
