/**
 * The open conversation in the window's address (`#/c/<id>`; `#/` for a new one), so a reload
 * opens it again and Back and Forward move between the conversations opened.
 */

const PREFIX = '#/c/';

/** The conversation the address names, if any. */
export function conversationInAddress(): string | null {
  if (typeof window === 'undefined') {
    return null;
  }
  const { hash } = window.location;
  return hash.startsWith(PREFIX) ? decodeURIComponent(hash.slice(PREFIX.length)) || null : null;
}

/** Puts the open conversation (null: a new one) in the address, as a new history entry when it changed. */
export function showInAddress(conversationId: string | null): void {
  if (typeof window === 'undefined') {
    return;
  }
  const hash = conversationId ? `${PREFIX}${encodeURIComponent(conversationId)}` : '#/';
  const current = window.location.hash || '#/';
  if (current !== hash) {
    window.history.pushState(null, '', hash);
  }
}

/** Calls `listener` with the conversation named whenever Back or Forward changes the address. */
export function onAddressChange(listener: (conversationId: string | null) => void): void {
  if (typeof window === 'undefined') {
    return;
  }
  window.addEventListener('popstate', () => listener(conversationInAddress()));
}
