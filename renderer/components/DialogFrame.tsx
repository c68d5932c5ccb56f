/**
 * The one frame every dialog shares: a native modal `<dialog>` named by its heading (focus kept
 * inside, Escape closes it), an optional hint under the heading, the body, and the row of actions
 * kept in view at the bottom. And the one banner dialogs use for an error or a warning.
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
    <dialog ref={element} className={className} aria-labelledby={id} onClose={onClose}>
      <h2 id={id}>{title}</h2>
      {hint ? <p className="hint">{hint}</p> : null}
      {children}
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
