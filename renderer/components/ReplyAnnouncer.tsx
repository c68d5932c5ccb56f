/**
 * One polite live region for the open conversation: each finished reply is announced once, when
 * it finishes (never per streamed chunk, and not for replies that were already there).
 */
import { useEffect, useRef, useState } from 'react';
import { selectActiveTranscript } from '../store/selectors/transcript.js';
import { useBaton } from '../store/index.js';

const ENDINGS: Record<string, string> = {
  completed: 'replied',
  cancelled: 'stopped',
  failed: 'could not finish its reply',
  interrupted: 'was interrupted',
};

/** The live region. */
export function ReplyAnnouncer() {
  const transcript = useBaton(selectActiveTranscript);
  const [message, setMessage] = useState('');
  /** Turns seen unfinished in this window, by id: only those are announced when they end. */
  const watching = useRef(new Set<string>());
  const announced = useRef(new Set<string>());
  const turns = transcript?.turns;
  useEffect(() => {
    for (const turn of Object.values(turns ?? {})) {
      if (turn.status === 'accepted' || turn.status === 'running') {
        watching.current.add(turn.turnId);
      } else if (watching.current.has(turn.turnId) && !announced.current.has(turn.turnId)) {
        announced.current.add(turn.turnId);
        setMessage(`${turn.agentName} ${ENDINGS[turn.status] ?? 'finished'}`);
      }
    }
  }, [turns]);
  return (
    <div aria-live="polite" aria-atomic="true" className="visually-hidden" data-testid="reply-announcer">
      {message}
    </div>
  );
}
