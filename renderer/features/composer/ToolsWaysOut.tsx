/**
 * An agent that uses no tools (MCP servers), picked for a conversation whose toolbox has some:
 * said where it is picked, with the same kind of ways out as a refusal of instructions: send this
 * message without the tools, or open the Toolbox and choose none. Nothing is left out silently:
 * without a choice, Send is refused by the host with the same reason.
 */
import { useBaton } from '../../store/index.js';
import { composerKey } from '../../store/types.js';
import { selectActiveSummary, selectActiveTranscript } from '../../store/selectors/transcript.js';

/** The agent the next message goes to, when it uses no tools while the conversation (or new conversation) has some, and how many. */
function useMissingTools(): { agentName: string; count: number } | undefined {
  const summary = useBaton(selectActiveSummary);
  const transcript = useBaton(selectActiveTranscript);
  const agentId = useBaton((state) => (summary ? (state.nextAgent[summary.conversationId] ?? summary.agentId) : state.draft.agentId));
  const agent = useBaton((state) => state.agents.find((candidate) => candidate.agentId === agentId));
  const count = useBaton((state) => (summary ? (transcript?.toolbox?.servers.length ?? 0) : (state.draft.serverIds?.length ?? 0)));
  return agent && !agent.usesTools && count > 0 ? { agentName: agent.displayName, count } : undefined;
}

/** The warning and group "Ways to send it" (shown in the header while such an agent is picked). */
export function ToolsWaysOut() {
  const missing = useMissingTools();
  const sendWithoutTools = useBaton((state) => state.sendWithoutTools);
  const openToolbox = useBaton((state) => state.openToolbox);
  const hasText = useBaton((state) => (state.composer[composerKey(state.selection)] ?? '').trim() !== '');
  if (!missing) {
    return null;
  }
  const { agentName, count } = missing;
  return (
    <div className="notice notice-warning tools-missing" role="alert">
      <p>
        {`${agentName} uses no tools from your toolbox: the ${count === 1 ? 'tool server' : `${count} tool servers`} this conversation uses would be missing for it. Send without them this time, or choose no tools in Toolbox.`}
      </p>
      <div className="refusal-actions" role="group" aria-label="Ways to send it">
        <button
          type="button"
          disabled={!hasText}
          title={hasText ? undefined : 'Write the message first'}
          onClick={() => void sendWithoutTools()}
        >
          Send without these tools this time
        </button>
        <button type="button" onClick={() => void openToolbox()}>
          Open Toolbox
        </button>
      </div>
    </div>
  );
}

/** Whether an error is the host's refusal of the toolbox for an agent that uses no tools. */
export function isToolboxRefusal(error: { code: string; details?: Record<string, unknown> | undefined } | undefined | null): boolean {
  return error?.code === 'UnsupportedInput' && typeof error.details?.input === 'string' && /toolbox/.test(error.details.input);
}
