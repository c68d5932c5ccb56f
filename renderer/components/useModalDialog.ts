/** Shows a native `<dialog>` as modal while `open` (focus kept inside, Escape closes it) and closes it after. */
import { useEffect, useRef } from 'react';

/** A ref for the `<dialog>` element, kept in step with `open`. */
export function useModalDialog(open: boolean) {
  const element = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const node = element.current;
    if (open && node && !node.open) {
      node.showModal();
    } else if (!open && node?.open) {
      node.close();
    }
  }, [open]);
  return element;
}
