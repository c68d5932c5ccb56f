/**
 * What a message carries besides its text: when it was written, and what can be done with it
 * (Copy; for the person's message Edit and resend, Rewind to here, Branch from here; Retry for the
 * last reply: a small toolbar of icons named so, each with its name as a tooltip, shown on hover
 * and keyboard focus and always on touch; Retry for a failed turn; the ways out under a refused one).
 */
import { Check, Copy, GitBranch, Pencil, RotateCcw, Undo2 } from 'lucide-react';
import type { ReactNode } from 'react';
import { Tip } from '../../components/Tip.js';
import { useCopy } from '../../components/useCopy.js';
import { useBaton } from '../../store/index.js';
import { selectSending } from '../../store/selectors/transcript.js';
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
  const busy = useBaton(selectSending);
  const [copied, copy] = useCopy();
  // An attempt's messages are shown inside the conversation that asked: going back is done on the attempt once continued.
  const scoped = useScopedConversation() !== undefined;
  return (
    <span className="message-actions">
      <ActionIcon name={copied ? 'Copied' : 'Copy'} onClick={() => copy(text)}>
        {copied ? <Check size={14} aria-hidden="true" /> : <Copy size={14} aria-hidden="true" />}
      </ActionIcon>
      {turnId && !scoped ? (
        <>
          <ActionIcon name="Edit and resend" onClick={() => void editAndResend(turnId)}>
            <Pencil size={14} aria-hidden="true" />
          </ActionIcon>
          <ActionIcon name="Rewind to here" onClick={() => void openRewind(turnId)}>
            <Undo2 size={14} aria-hidden="true" />
          </ActionIcon>
          <ActionIcon name="Branch from here" onClick={() => openBranch(turnId)}>
            <GitBranch size={14} aria-hidden="true" />
          </ActionIcon>
        </>
      ) : null}
      {retryTurnId && !scoped ? (
        <ActionIcon name="Retry" disabled={busy} onClick={() => void retry(retryTurnId)}>
          <RotateCcw size={14} aria-hidden="true" />
        </ActionIcon>
      ) : null}
    </span>
  );
}

/** One action of a message: an icon named by what it does (its accessible name), with that name as its tooltip. */
function ActionIcon({ name, disabled, onClick, children }: { name: string; disabled?: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <Tip text={name}>
      <button type="button" className="icon-action" aria-label={name} disabled={disabled} onClick={onClick}>
        {children}
      </button>
    </Tip>
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
  const busy = useBaton(selectSending);
  return (
    <button type="button" disabled={busy} onClick={() => void retry(turnId)}>
      Retry
    </button>
  );
}
