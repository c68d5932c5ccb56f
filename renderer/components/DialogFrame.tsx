/**
 * The one frame every dialog shares: a native modal `<dialog>` named by its heading (focus kept
 * inside, Escape closes it), an optional hint under the heading, the body, and the row of actions
 * at the bottom. The body alone scrolls, between the heading and the actions, so the actions never
 * cover it; the frame is as wide as its content up to a maximum. And the one banner dialogs use for
 * an error or a warning.
 */
import type { ReactNode } from 'react';
import { useModalDialog } from './useModalDialog.js';

/** A modal dialog titled `title` (its accessible name). */
export function DialogFrame({
  open,
  id,
  title,
  className,
  hint,
  onClose,
  actions,
  children,
}: {
  open: boolean;
  id: string;
  title: string;
  className: string;
  hint?: ReactNode;
  onClose: () => void;
  actions: ReactNode;
  children: ReactNode;
}) {
  const element = useModalDialog(open);
  return (
    <dialog ref={element} className={`dialog ${className}`} aria-labelledby={id} onClose={onClose}>
      <div className="dialog-head">
        <h2 id={id}>{title}</h2>
        {hint ? <p className="hint">{hint}</p> : null}
      </div>
      <div className="dialog-body">{children}</div>
      <div className="dialog-actions">{actions}</div>
    </dialog>
  );
}

/** A banner: an error or a warning, announced when `alert` (the default). */
export function Banner({ kind, alert = true, children }: { kind: 'error' | 'warning'; alert?: boolean; children: ReactNode }) {
  return (
    <p role={alert ? 'alert' : undefined} className={`notice notice-${kind}`}>
      {children}
    </p>
  );
}
