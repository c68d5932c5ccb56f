/**
 * The renderer's one zustand store, made of slices: host (connection, errors), log-ins, an agent's
 * own sessions, agents (the list, the registry, cards, installs), transcripts (the open
 * conversation), composer (what is being written, the queue), drafts (what the next message goes
 * with, its early session), history (the list and its actions), search, the Instructions and
 * Toolbox dialogs, the settings page, the review of an imported conversation, going back (rewind,
 * branch), asking several agents (attempts), and the machines conversations run on. Actions go through `api`; components only select
 * state and call actions.
 */
import { create } from 'zustand';
import type { Api } from '../api.js';
import { composerSlice } from './slices/composerSlice.js';
import { draftsSlice } from './slices/draftsSlice.js';
import { historySlice } from './slices/historySlice.js';
import { importReviewSlice } from './slices/importReviewSlice.js';
import { rewindSlice } from './slices/rewindSlice.js';
import { hostSlice } from './slices/hostSlice.js';
import { loginsSlice } from './slices/loginsSlice.js';
import { containersSlice } from './slices/containersSlice.js';
import { machinesSlice } from './slices/machinesSlice.js';
import { agentSessionsSlice } from './slices/agentSessionsSlice.js';
import { agentsSlice } from './slices/agentsSlice.js';
import { attemptsSlice } from './slices/attemptsSlice.js';
import { instructionsSlice } from './slices/instructionsSlice.js';
import { toolboxSlice } from './slices/toolboxSlice.js';
import { transcriptsSlice } from './slices/transcriptsSlice.js';
import { searchSlice } from './slices/searchSlice.js';
import { settingsSlice } from './slices/settingsSlice.js';
import type { BatonState } from './types.js';

export { composerKey, type BatonState, type Selection } from './types.js';

/** Creates the store bound to an API client. */
export function createBatonStore(api: Api) {
  return create<BatonState>()((...args) => ({
    ...hostSlice(api)(...args),
    ...loginsSlice(api)(...args),
    ...agentSessionsSlice(api)(...args),
    ...agentsSlice(api)(...args),
    ...attemptsSlice(api)(...args),
    ...transcriptsSlice(api)(...args),
    ...composerSlice(api)(...args),
    ...draftsSlice(api)(...args),
    ...historySlice(api)(...args),
    ...searchSlice(api)(...args),
    ...instructionsSlice(api)(...args),
    ...toolboxSlice(api)(...args),
    ...settingsSlice(api)(...args),
    ...importReviewSlice(api)(...args),
    ...rewindSlice(api)(...args),
    ...machinesSlice(api)(...args),
    ...containersSlice(api)(...args),
  }));
}
