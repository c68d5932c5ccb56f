/** Requests about one conversation: create and open it, send, steer and stop turns, options, and the person's answers. */
import { checkWorkingFolderAt } from '../files/checkWorkingFolder.js';
import { turnChanges } from '../checkpoints/turnChanges.js';
import { openEarlySession } from '../conversations/earlySession.js';
import type { HandlerGroup, HostParts } from './HostParts.js';

type ConversationMethods =
  | 'newConversation'
  | 'openEarlySession'
  | 'closeEarlySession'
  | 'openConversation'
  | 'readConversationEvents'
  | 'sendMessage'
  | 'steerMessage'
  | 'cancelTurn'
  | 'setSessionOption'
  | 'answerPermission'
  | 'answerElicitation'
  | 'listAlwaysDecisions'
  | 'revokeAlwaysDecision'
  | 'listTurnChanges';

/** Turns of a transcript read when it is opened; earlier ones load on request. */
const DEFAULT_TURNS_SHOWN = 50;

/** The conversations' handlers. */
export function conversationHandlers({
  store,
  committer,
  conversations,
  turns,
  always,
  checkpoints,
  attempts,
  sessions,
  planner,
  machines,
}: HostParts): HandlerGroup<ConversationMethods> {
  return {
    newConversation: async ({ agentId, cwd, title, instructions, serverIds, injectors, conversationId, machineId }) => {
      // The folder is checked on its machine, before anything is made.
      await checkWorkingFolderAt(machines, cwd, machineId);
      const elsewhere = machineId !== undefined && !machines.isLocal(machineId);
      // Under the id its early session reserved, while that is still reserved; a new one otherwise.
      const early = conversationId && !elsewhere && sessions.isEarly(conversationId) ? conversationId : undefined;
      // The folder's trusted text counts toward the size of its instructions (read there).
      const project = instructions ? (await planner.sources({ agentId, cwd, ...(elsewhere ? { machine: machineId } : {}) })).project : null;
      return {
        conversation: conversations.create(
          agentId,
          cwd,
          title,
          instructions,
          serverIds,
          injectors,
          early,
          elsewhere ? machineId : undefined,
          project?.text ?? null,
        ),
      };
    },
    openEarlySession: async (params) => ({
      conversationId: await openEarlySession({ conversations, sessions, planner, home: machines.local }, params),
    }),
    closeEarlySession: async ({ conversationId }) => {
      const reserved = sessions.isEarly(conversationId);
      await sessions.closeEarly(conversationId);
      return { closed: reserved };
    },
    openConversation: ({ conversationId, turns: turnsShown, aroundSeq, maxEvents }) => {
      // Chunks still waiting for their group commit are written first, so nothing is missing.
      committer.flush(conversationId);
      const conversation = store.getSummary(conversationId);
      const { firstSeq, envelopes, nextSeq } = store.readTail(conversationId, turnsShown ?? DEFAULT_TURNS_SHOWN, aroundSeq, maxEvents);
      return { conversation, events: envelopes, firstSeq, nextSeq, context: store.getContext(conversationId) };
    },
    readConversationEvents: ({ conversationId, fromSeq, limit }) => {
      committer.flush(conversationId);
      // An unknown conversation is NotFound, not an empty page.
      store.getSummary(conversationId);
      const { envelopes, nextSeq } = store.readPage(conversationId, fromSeq, limit);
      return { events: envelopes, nextSeq };
    },
    sendMessage: async ({ conversationId, text, agentId, attachments, withoutInstructions, withoutTools }) => {
      // A follow-up to one attempt alone: only while its attempts are open, and only to its own agent.
      attempts.requireOpenAttempt(conversationId, agentId);
      const attached = await turns.prepareAttachments(conversationId, attachments ?? []);
      return turns.send(conversationId, text, agentId, attached, {
        withoutInstructions: withoutInstructions === true,
        withoutTools: withoutTools === true,
      });
    },
    steerMessage: async ({ conversationId, text }) => ({ steered: await turns.steer(conversationId, text) }),
    cancelTurn: async ({ conversationId }) => ({ cancelled: await turns.cancel(conversationId) }),
    setSessionOption: async ({ conversationId, optionId, value, agentId }) => {
      await conversations.chooseOption(conversationId, optionId, value, agentId);
      return {};
    },
    answerPermission: ({ conversationId, requestId, optionId }) => {
      always.noteAnswer(conversationId, requestId, turns.answerPermission(conversationId, requestId, optionId));
      return {};
    },
    answerElicitation: ({ conversationId, requestId, action, content }) => {
      turns.answerElicitation(conversationId, requestId, action, content);
      return {};
    },
    listAlwaysDecisions: () => ({ decisions: always.list() }),
    listTurnChanges: ({ conversationId, turnId }) => {
      committer.flush(conversationId);
      return turnChanges(checkpoints, store.readEvents(conversationId).events, turnId);
    },
    revokeAlwaysDecision: async ({ id }) => {
      const { note } = await always.revoke(id);
      return { decisions: always.list(), note };
    },
  };
}
