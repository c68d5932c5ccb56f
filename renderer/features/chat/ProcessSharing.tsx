/**
 * Note "Shared agent process" in a conversation's header: the other conversations whose sessions
 * run on the same agent process as this one's. One agent process is one principal (it can act in
 * any conversation it carries), so the person is told, and can give the agent one process per
 * conversation. Asked again whenever a turn of the conversation ends.
 */
import { useEffect } from 'react';
import { useBaton } from '../../store/index.js';

/** The note, shown only while the process is shared. */
export function ProcessSharing({ conversationId, activeTurnId }: { conversationId: string; activeTurnId: string | null }) {
  const sharing = useBaton((state) => state.processSharing[conversationId]);
  const load = useBaton((state) => state.loadProcessSharing);
  const setPerConversation = useBaton((state) => state.setProcessPerConversation);
  useEffect(() => {
    void load(conversationId);
  }, [conversationId, activeTurnId, load]);
  if (!sharing || sharing.sharedWith.length === 0) {
    return null;
  }
  const titles = sharing.sharedWith.map((other) => `“${other.title || 'Untitled'}”`);
  const named = titles.length <= 2 ? titles.join(' and ') : `${titles.slice(0, 2).join(', ')} and ${titles.length - 2} more`;
  return (
    <div className="hint process-sharing" role="note" aria-label="Shared agent process">
      <p>
        {sharing.agentName}'s process also runs {named}: what it does in one conversation it could do in the others.
        {sharing.cannotSeparate ? ` ${sharing.cannotSeparate}.` : ''}
      </p>
      {!sharing.cannotSeparate && !sharing.perConversation ? (
        <button type="button" onClick={() => void setPerConversation(sharing.agentId, true)}>
          One process per conversation for {sharing.agentName}
        </button>
      ) : null}
    </div>
  );
}
