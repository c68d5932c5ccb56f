/** The open conversation (or a new one): its title and actions, agent and folder, the transcript and the composer. */
import { AttemptsCard } from '../attempts/AttemptsCard.js';
import { PanelLeft } from 'lucide-react';
import { useEffect } from 'react';
import { Tip } from '../../components/Tip.js';
import { useBaton } from '../../store/index.js';
import { selectActiveSummary, selectActiveTranscript } from '../../store/selectors/transcript.js';
import { Composer } from '../composer/Composer.js';
import { ImportReviewNotice } from './ImportReviewDialog.js';
import { ConversationHeader } from './ConversationHeader.js';
import { SessionHeader } from './SessionHeader.js';
import { OptionsBar } from '../composer/OptionsBar.js';
import { Transcript } from '../transcript/Transcript.js';
import { isInstructionRefusal, RefusalActions } from '../composer/RefusalActions.js';

/** The main pane. */
export function ChatView() {
  const transcript = useBaton(selectActiveTranscript);
  const summary = useBaton(selectActiveSummary);
  const focus = useBaton((state) => state.focus);
  const sidebarOpen = useBaton((state) => state.sidebarOpen);
  const setSidebarOpen = useBaton((state) => state.setSidebarOpen);
  return (
    <main className="chat" aria-label={summary?.title || 'New conversation'}>
      {/* An existing conversation's header is one row: (in a narrow window, the list's button) its title and menu, then the agent, the
         folder, Toolbox and Instructions. */}
      <div className={summary ? 'pane-header' : 'pane-header draft'}>
        <Tip text="Conversations">
          <button
            type="button"
            className="sidebar-toggle"
            aria-label="☰ Conversations"
            aria-expanded={sidebarOpen}
            aria-controls="conversation-history"
            onClick={() => setSidebarOpen(!sidebarOpen)}
          >
            <PanelLeft aria-hidden size={16} />
          </button>
        </Tip>
        {summary ? <ConversationHeader summary={summary} /> : <h1 className="visually-hidden">New conversation</h1>}
        <SessionHeader />
      </div>
      <Transcript
        transcript={transcript}
        focusSeq={focus && focus.conversationId === transcript?.conversationId ? focus.seq : undefined}
        attemptsCard={(item, conversationId) => <AttemptsCard item={item} conversationId={conversationId} />}
      />
      <Banners />
      {summary ? <ImportReviewNotice /> : null}
      <OptionsBar />
      {summary?.lifecycle === 'deleted' ? (
        <p className="readonly-hint">This conversation is in the trash. Restore it to continue.</p>
      ) : (
        <Composer />
      )}
    </main>
  );
}

/** How long a confirmation stays. */
const INFO_SHOWN_MS = 8_000;

/** The error (an alert) and the last confirmation (a status), each until dismissed; on the settings page too. */
export function Banners() {
  const error = useBaton((state) => state.error);
  const dismissError = useBaton((state) => state.dismissError);
  const resolveSendRefusal = useBaton((state) => state.resolveSendRefusal);
  const info = useBaton((state) => state.info);
  const dismissInfo = useBaton((state) => state.dismissInfo);
  // A confirmation fades on its own (an error stays until dismissed).
  useEffect(() => {
    if (info === null) {
      return undefined;
    }
    const timer = setTimeout(() => dismissInfo(), INFO_SHOWN_MS);
    return () => clearTimeout(timer);
  }, [info, dismissInfo]);
  return (
    <>
      {error ? (
        <div className="error-banner" role="alert">
          <span>{error.message}</span>
          <button type="button" aria-label="Dismiss error" onClick={() => dismissError()}>
            ×
          </button>
          {/* A switch refused for the instructions, before anything was recorded: the message is still in the box. */}
          {isInstructionRefusal(error) ? <RefusalActions refusal={error} resolve={(choice) => void resolveSendRefusal(choice)} /> : null}
        </div>
      ) : null}
      {info ? (
        <div className="info-banner" role="status">
          <span>{info}</span>
          <button type="button" aria-label="Dismiss" onClick={() => dismissInfo()}>
            ×
          </button>
        </div>
      ) : null}
    </>
  );
}
