/** The shape of the renderer's one store, assembled from slices. */
import type { StateCreator } from 'zustand';
import type { AgentInstructionSettings } from '../../app/instructions/delivery.js';
import type { ConversationSummary } from '../../app/transcript/summary.js';
import type { Api } from '../api.js';
import type { Attachment } from '../../app/prompt/attachments.js';
import type { AgentsSlice } from './slices/agentsSlice.js';
import type { AgentSessionsSlice } from './slices/agentSessionsSlice.js';
import type { AttemptsSlice } from './slices/attemptsSlice.js';
import type { ComposerSlice } from './slices/composerSlice.js';
import type { DraftsSlice } from './slices/draftsSlice.js';
import type { HistorySlice } from './slices/historySlice.js';
import type { HostSlice } from './slices/hostSlice.js';
import type { ImportReviewSlice } from './slices/importReviewSlice.js';
import type { InstructionsSlice } from './slices/instructionsSlice.js';
import type { LoginsSlice } from './slices/loginsSlice.js';
import type { ContainersSlice } from './slices/containersSlice.js';
import type { MachinesSlice } from './slices/machinesSlice.js';
import type { RewindSlice } from './slices/rewindSlice.js';
import type { SearchSlice } from './slices/searchSlice.js';
import type { SettingsSlice } from './slices/settingsSlice.js';
import type { ToolboxSlice } from './slices/toolboxSlice.js';
import type { TranscriptsSlice } from './slices/transcriptsSlice.js';

/** An attachment in the message box: what is sent, and how it is shown there. */
export type ComposerAttachment = { id: string; label: string; attachment: Attachment; previewUrl?: string };

/** What the main pane shows. */
export type Selection = { kind: 'draft' } | { kind: 'conversation'; conversationId: string };

/** Which part of the history the list shows. */
export type HistoryView = Exclude<ConversationSummary['lifecycle'], 'attempt'>;

/** A shown error. */
export type ShownError = { code: string; message: string; details?: Record<string, unknown> };

/**
 * A way out of a refusal of the person's instructions: send once without them, stop sending them to
 * the agent, or let the agent take them on its command line.
 */
export type RefusalChoice = 'without' | 'off' | 'allow';

/** What one message leaves out, this once: the person's standing instructions, the conversation's toolbox. */
export type SendOptions = { withoutInstructions?: boolean; withoutTools?: boolean };

/** The agent's instruction setting a choice changes before the message goes again ('without' changes none). */
export function refusalSettings(choice: RefusalChoice): Partial<AgentInstructionSettings> | undefined {
  return choice === 'off' ? { off: true } : choice === 'allow' ? { commandLineAccepted: true } : undefined;
}

/** An agent that would refuse the instructions as chosen: why, and whether it could take them on its command line. */
export type CannotTake = { agentId: string; agentName: string; refusal: string; commandLine: boolean };

/** A part of the settings page. */
export type SettingsSection =
  'agents' | 'machines' | 'toolboxes' | 'instructions' | 'permissions' | 'notifications' | 'appearance' | 'data' | 'export';

/** The whole renderer state. */
export type BatonState = HostSlice &
  LoginsSlice &
  AgentSessionsSlice &
  AgentsSlice &
  AttemptsSlice &
  TranscriptsSlice &
  ComposerSlice &
  DraftsSlice &
  HistorySlice &
  SearchSlice &
  InstructionsSlice &
  ToolboxSlice &
  SettingsSlice &
  ImportReviewSlice &
  RewindSlice &
  MachinesSlice &
  ContainersSlice;

/** A slice creator with access to the API client. */
export type Slice<T> = (api: Api) => StateCreator<BatonState, [], [], T>;

/** Turns anything thrown into what the error banner shows. */
export function shownError(error: unknown): ShownError {
  if (error && typeof error === 'object' && 'code' in error && 'message' in error) {
    const details =
      'details' in error && error.details && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : undefined;
    return { code: String(error.code), message: String(error.message), ...(details ? { details } : {}) };
  }
  return { code: 'Internal', message: String(error) };
}

/** Key of the composer for a selection. */
export function composerKey(selection: Selection): string {
  return selection.kind === 'draft' ? 'draft' : selection.conversationId;
}
