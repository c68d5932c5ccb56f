/** Reading an agent's JSON-RPC error: the reason it gave, with the details some agents put in `data`. */

/**
 * An agent's error message with the details it put in the error's data (Gemini answers "Internal
 * error" and says why only in `data.details`): the person sees the why, not only the code's name.
 */
export function rpcReason(message: string, data: unknown): string {
  const details =
    typeof data === 'string'
      ? data
      : typeof data === 'object' && data !== null
        ? ((data as { details?: unknown }).details ?? (data as { message?: unknown }).message)
        : undefined;
  return typeof details === 'string' && details.trim() !== '' && details.trim() !== message.trim()
    ? `${message} (${details.trim()})`
    : message;
}
