/**
 * Desktop notifications for what a person would otherwise miss: a conversation or an attempt that
 * is not in view asks a question, finishes, or fails. The browser's Notification API (in the web
 * version, once the person allows it; Electron shows the same API as the system's notifications).
 * Clicking one brings the window forward and opens that conversation (an attempt's: the one that
 * asked), where the question is. Nothing is notified while the window has focus and the
 * conversation is in view. Each kind can be turned off (the preference `baton.notifications`).
 */
import type { ConversationSummary } from '../../app/transcript/summary.js';
import { readPreference, writePreference } from '../persisted/preferences.js';

/** What a notification is about. */
export type NotifyKind = 'question' | 'finished' | 'failed';

/** Which kinds are on. */
export type NotifySettings = Record<NotifyKind, boolean>;

const PREFERENCE = 'baton.notifications';
const ALL_ON: NotifySettings = { question: true, finished: true, failed: true };

/** The kinds turned on (every kind unless turned off). */
export function notifySettings(): NotifySettings {
  try {
    const stored = JSON.parse(readPreference(PREFERENCE) ?? '{}') as Partial<Record<NotifyKind, unknown>>;
    return {
      question: stored.question !== false,
      finished: stored.finished !== false,
      failed: stored.failed !== false,
    };
  } catch {
    return { ...ALL_ON };
  }
}

/** Turns one kind on or off. */
export function setNotifySetting(kind: NotifyKind, on: boolean): NotifySettings {
  const next = { ...notifySettings(), [kind]: on };
  writePreference(PREFERENCE, JSON.stringify(next));
  return next;
}

/** What changed from `before` to `now` that the person should hear of (nothing for a first sighting). */
export function newsOf(before: ConversationSummary | undefined, now: ConversationSummary): NotifyKind | undefined {
  if (!before) {
    return undefined;
  }
  if (now.pendingPermissions > before.pendingPermissions) {
    return 'question';
  }
  if (before.running && !now.running) {
    return now.lastTurnFailed ? 'failed' : 'finished';
  }
  return undefined;
}

/** The conversation a summary is seen in: an attempt's is the one that asked. */
export function shownIn(summary: ConversationSummary): string {
  return summary.lifecycle === 'attempt' && summary.attemptOf ? summary.attemptOf.conversationId : summary.conversationId;
}

/** What a notification says. */
export function notificationText(kind: NotifyKind, summary: ConversationSummary): { title: string; body: string } {
  const who = summary.lifecycle === 'attempt' ? `${summary.agentName}'s attempt` : summary.agentName;
  const title = kind === 'question' ? `${who} is waiting for you` : kind === 'failed' ? `${who} could not finish` : `${who} has finished`;
  return { title, body: summary.title || 'New conversation' };
}

/** The page's side of the notifier. */
export type NotifierPage = {
  /** The conversation open now, if any. */
  openConversation(): string | undefined;
  /** Opens a conversation (from a click on its notification). */
  open(conversationId: string): void;
  /** The summary the page has of a conversation not heard of yet (the list read at start). */
  known(conversationId: string): ConversationSummary | undefined;
};

/** Hears every summary pushed; notifies what is news, of a conversation not in view. Returns the listener. */
export function makeNotifier(page: NotifierPage): (summary: ConversationSummary) => void {
  const last = new Map<string, ConversationSummary>();
  return (summary) => {
    const kind = newsOf(last.get(summary.conversationId) ?? page.known(summary.conversationId), summary);
    last.set(summary.conversationId, summary);
    if (!kind || !notifySettings()[kind] || typeof Notification === 'undefined' || Notification.permission !== 'granted') {
      return;
    }
    const conversationId = shownIn(summary);
    if (document.hasFocus() && document.visibilityState === 'visible' && page.openConversation() === conversationId) {
      return;
    }
    const { title, body } = notificationText(kind, summary);
    const notification = new Notification(title, { body, tag: `${summary.conversationId}:${kind}` });
    notification.onclick = () => {
      window.focus();
      page.open(conversationId);
      notification.close();
    };
  };
}
