/** The open conversation (or a new one): agent and folder, the transcript and the composer. */
import { useActions, useBaton } from '../../store/index.js';
import { selectActiveSummary, selectActiveTranscript } from '../../store/selectors/transcript.js';
import { Composer } from './Composer.js';
import { SessionHeader } from './SessionHeader.js';
import { Transcript } from './Transcript.js';

/** The main pane. */
export function ChatView() {
  const transcript = useBaton(selectActiveTranscript);
  const summary = useBaton(selectActiveSummary);
  const error = useBaton((state) => state.error);
  const actions = useActions();
  return (
    <main className="chat" aria-label={summary?.title || 'New conversation'}>
      <SessionHeader />
      <Transcript transcript={transcript} />
      {error ? (
        <div className="error-banner" role="alert">
          <span>{error.message}</span>
          <button type="button" aria-label="Dismiss error" onClick={() => actions.dismissError()}>
            ×
          </button>
        </div>
      ) : null}
      <Composer />
    </main>
  );
}
