/**
 * What a message carries besides its text: when it was written, and what can be done with it
 * (Copy; for the person's message Edit and resend, Rewind to here, Branch from here; Retry for the
 * last reply or a failed turn; the ways out under a refused one).
 */
import { useCopy } from '../../components/useCopy.js';
import { useBaton } from '../../store/index.js';
import { useScopedConversation } from '../../components/conversationScope.js';
import { RefusalActions, type InstructionRefusal } from '../composer/RefusalActions.js';

/** Hours and minutes, as messages and rewinds show when. */
export const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const fullDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' });

/** When a message was written. */
export function MessageTime({ at }: { at: string }) {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? null : (
    <time className="message-time" dateTime={at} title={fullDate.format(date)}>
      {clock.format(date)}
    </time>
  );
}

/**
 * Copy; for the person's message "Edit and resend", "Rewind to here" (both open dialog "Rewind":
 * the message goes back in the box) and "Branch from here"; for the last reply "Retry" (it
 * replaces that reply).
 */
export function MessageActions({
  text,
  turnId,
  retryTurnId,
}: {
  text: string;
  turnId?: string | undefined;
  retryTurnId?: string | undefined;
}) {
  const openRewind = useBaton((state) => state.openRewind);
  const editAndResend = useBaton((state) => state.editAndResend);
  const openBranch = useBaton((state) => state.openBranch);
  const retry = useBaton((state) => state.retry);
  const busy = useBaton((state) => state.sending);
  const [copied, copy] = useCopy();
  // An attempt's messages are shown inside the conversation that asked: going back is done on the attempt once continued.
  const scoped = useScopedConversation() !== undefined;
  return (
    <span className="message-actions">
      <button type="button" onClick={() => copy(text)}>
        {copied ? 'Copied' : 'Copy'}
      </button>
      {turnId && !scoped ? (
        <>
          <button type="button" onClick={() => void editAndResend(turnId)}>
            Edit and resend
          </button>
          <button type="button" onClick={() => void openRewind(turnId)}>
            Rewind to here
          </button>
          <button type="button" onClick={() => openBranch(turnId)}>
            Branch from here
          </button>
        </>
      ) : null}
      {retryTurnId && !scoped ? (
        <button type="button" disabled={busy} onClick={() => void retry(retryTurnId)}>
          Retry
        </button>
      ) : null}
    </span>
  );
}

/** The ways out under a refused turn: the turn's message goes again. */
export function TurnRefusalActions({ turnId, refusal }: { turnId: string; refusal: InstructionRefusal }) {
  const resolve = useBaton((state) => state.resolveRefusal);
  return <RefusalActions refusal={refusal} resolve={(choice) => void resolve(turnId, choice)} />;
}

/** "Retry" under a failed last turn: its message goes again, the failed turn set aside. */
export function RetryButton({ turnId }: { turnId: string }) {
  const retry = useBaton((state) => state.retry);
  const busy = useBaton((state) => state.sending);
  return (
    <button type="button" disabled={busy} onClick={() => void retry(turnId)}>
      Retry
    </button>
  );
}
