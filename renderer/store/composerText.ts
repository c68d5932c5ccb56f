/**
 * The message box's text around a send: what stays once a message is committed, and how a message
 * goes back in. Nothing the person typed meanwhile is lost.
 */

/** What stays in the box once `sent` (its text when sent) is committed: only what was typed since. */
export function unsentText(current: string, sent: string): string {
  if (current === sent) {
    return '';
  }
  // Typing straight on after Enter adds to the sent text; the sent part goes, the rest stays.
  return current.startsWith(sent) ? current.slice(sent.length).replace(/^\s+/, '') : current;
}

/**
 * A message put back in the box (to edit, or taken back from the queue): the box holds it alone,
 * and an unsent draft that was there is set aside whole (ahead of one set aside before), never glued
 * to it. The Composer offers the draft back, and it returns on its own once the box is sent.
 */
export function putBack(message: string, current: string, aside: string | undefined): { box: string; aside: string | undefined } {
  if (current.trim() === '' || current.trim() === message.trim()) {
    return { box: message, aside };
  }
  return { box: message, aside: aside === undefined ? current : `${current}\n\n${aside}` };
}
