/**
 * Settings › Notifications: whether this window may show notifications (asked for once, with a
 * button, never at start), and which kinds: a conversation or an attempt not in view waiting for
 * an answer, finished, or failed (`notify/notifier.ts`).
 */
import { useState } from 'react';
import { notifySettings, setNotifySetting, type NotifyKind } from '../../notify/notifier.js';
import { Tick } from '../../components/Tick.js';

const KINDS: ReadonlyArray<{ kind: NotifyKind; label: string }> = [
  { kind: 'question', label: 'An agent is waiting for my answer' },
  { kind: 'finished', label: 'An agent has finished' },
  { kind: 'failed', label: 'A turn could not finish' },
];

/** The section. */
export function NotificationsSettings() {
  const supported = typeof Notification !== 'undefined';
  const [permission, setPermission] = useState<NotificationPermission>(supported ? Notification.permission : 'denied');
  const [settings, setSettings] = useState(notifySettings);
  return (
    <>
      <h2>Notifications</h2>
      <p className="hint">
        When a conversation or an attempt you are not looking at needs you, Baton says so with a notification; clicking it opens that
        conversation. Nothing is notified while you are looking at it.
      </p>
      {!supported ? (
        <p role="status">This window cannot show notifications.</p>
      ) : permission === 'granted' ? (
        <p role="status">Notifications are allowed.</p>
      ) : permission === 'denied' ? (
        <p role="status">Notifications are blocked for Baton: allow them in the browser's or the system's settings.</p>
      ) : (
        <button type="button" onClick={() => void Notification.requestPermission().then(setPermission)}>
          Allow notifications
        </button>
      )}
      <fieldset className="checkpoint-settings">
        <legend>Notify me when</legend>
        {KINDS.map(({ kind, label }) => (
          <Tick
            key={kind}
            className="checkbox"
            checked={settings[kind]}
            onChange={(checked) => setSettings(setNotifySetting(kind, checked))}
          >
            {label}
          </Tick>
        ))}
      </fieldset>
    </>
  );
}
