/**
 * Note "Shared agent process" in a conversation's header, behind an icon button of that name
 * (its text opens beside it, so the header stays one row): the other conversations whose sessions
 * run on the same agent process as this one's. One agent process is one principal (it can act in
 * any conversation it carries), so the person is told, and can give the agent one process per
 * conversation. Asked again whenever a turn of the conversation starts or ends: `turns` counts the
 * turns the transcript holds, so a turn that started and ended within one update of the page (a
 * quick agent on a busy machine: `activeTurnId` went from null to null) still asks again.
 */
import { Users } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import { Tip } from '../../components/Tip.js';
import { useBaton } from '../../store/index.js';

/** The note, shown only while the process is shared. */
export function ProcessSharing({
  conversationId,
  activeTurnId,
  turns,
}: {
  conversationId: string;
  activeTurnId: string | null;
  turns: number;
}) {
  const sharing = useBaton((state) => state.processSharing[conversationId]);
  const load = useBaton((state) => state.loadProcessSharing);
  const setPerConversation = useBaton((state) => state.setProcessPerConversation);
  const [open, setOpen] = useState(false);
  const noteId = useId();
  useEffect(() => {
    void load(conversationId);
  }, [conversationId, activeTurnId, turns, load]);
  if (!sharing || sharing.sharedWith.length === 0) {
    return null;
  }
  const titles = sharing.sharedWith.map((other) => `“${other.title || 'Untitled'}”`);
  const named = titles.length <= 2 ? titles.join(' and ') : `${titles.slice(0, 2).join(', ')} and ${titles.length - 2} more`;
  // An icon in the header's row; the note itself opens beside it (the header keeps one row).
  return (
    <span
      className="process-sharing"
      onKeyDown={(event) => {
        // Escape closes the note (and nothing behind it).
        if (event.key === 'Escape' && open) {
          event.stopPropagation();
          setOpen(false);
        }
      }}
    >
      <Tip text={`${sharing.agentName}'s process is shared with other conversations`}>
        <button
          type="button"
          className="header-action icon-action"
          aria-label="Shared agent process"
          aria-expanded={open}
          aria-controls={noteId}
          onClick={() => setOpen(!open)}
        >
          <Users size={16} aria-hidden="true" />
        </button>
      </Tip>
      <div id={noteId} className="process-sharing-note" role="note" aria-label="Shared agent process" hidden={!open}>
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
    </span>
  );
}
