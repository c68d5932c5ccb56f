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

/** The box with `message` put back ahead of what is in it now. */
export function putBack(message: string, current: string): string {
  return current.trim() === '' ? message : `${message}\n${current}`;
}
