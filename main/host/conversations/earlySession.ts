/**
 * Early sessions: while the person writes the first message of a new conversation, its agent's
 * session is opened with what the conversation will be created with (agent, folder, instructions,
 * toolbox, injectors, the person's choices), so the first reply does not wait for the agent's
 * `session/new` (about 0.7 s for Claude, which starts a process per session). The conversation is
 * then created under the id reserved here, and its first turn takes the session if its binding is
 * still the same (`LiveSessions.openEarly`); a change closes it and opens another.
 */
import { newId } from '../../../app/ids.js';
import type { InjectorChoice } from '../../../app/instructions/injectors.js';
import type { InstructionText } from '../../../app/instructions/bundle.js';
import { emptyContext, reduceContext } from '../../../app/transcript/context.js';
import { checkWorkingFolderOn } from '../files/checkWorkingFolder.js';
import type { Machine } from '../machine/Machine.js';
import type { ConversationSettings } from './ConversationSettings.js';
import type { LiveSessions } from './LiveSessions.js';
import type { TurnPlanner } from './TurnPlanner.js';

/** What the conversation about to start will be created with, and the choices the person made for its agent. */
export type EarlySessionParams = {
  agentId: string;
  cwd: string;
  instructions?: InstructionText | undefined;
  serverIds?: readonly string[] | undefined;
  injectors?: InjectorChoice | undefined;
  chosen?: Record<string, string> | undefined;
};

/**
 * Reserves a conversation id and opens the session its first turn would start with, in the
 * background. Throws at once what the conversation could not be created with (a missing folder,
 * instructions the agent cannot take, an unavailable injector, an agent not installed).
 */
export async function openEarlySession(
  parts: { conversations: ConversationSettings; sessions: LiveSessions; planner: TurnPlanner; home: Pick<Machine, 'name' | 'stat'> },
  params: EarlySessionParams,
): Promise<string> {
  const { agentId, cwd } = params;
  await checkWorkingFolderOn(parts.home, cwd, true);
  // What its first turn will compose from, read as that turn will read it.
  const sources = await parts.planner.sources({ agentId, cwd });
  const conversationId = newId();
  const at = new Date().toISOString();
  // The context the conversation will have once created: its creation's events, folded as the store folds them.
  const context = parts.conversations
    .creation(agentId, cwd, '', params.instructions, params.serverIds, params.injectors, undefined, sources.project?.text ?? null)
    .reduce(
      (state, draft, index) => reduceContext(state, { conversationId, seq: index + 1, at, v: 1, ...draft }),
      emptyContext(conversationId),
    );
  // Planned as its first turn will be.
  const turn = parts.planner.compose(context, sources, { agentId, cwd });
  if (turn.refusal) {
    throw turn.refusal;
  }
  parts.sessions.openEarly(conversationId, parts.planner.request(conversationId, { agentId, cwd }, turn, params.chosen ?? {}));
  return conversationId;
}
