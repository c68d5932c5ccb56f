/**
 * Log-in methods in the product's words. Agents name their methods themselves, often already as an
 * action ("Log in with Claude", "Login with ChatGPT", "Use CODEX_API_KEY"): such a name is used as
 * it is, never wrapped in a second "Log in with".
 */

/** A name that already says what to do. */
const ACTION = /^(log ?in|sign ?in|sign on|use|authenticate|connect|continue with)\b/i;

/** The button for one method: "Log in with <name>", or the name itself when it is already an action. */
export function logInLabel(name: string): string {
  const trimmed = name.trim();
  return ACTION.test(trimmed) ? trimmed : `Log in with ${trimmed}`;
}

/** The capability line for an agent's methods: "Log-in: <a>; or <b>". */
export function logInSummary(names: readonly string[]): string {
  return `Log-in: ${names.map((name) => name.trim()).join('; or ')}`;
}

/** The log-in an agent says it uses, in a sentence's words: "the Anthropic API key from ANTHROPIC_API_KEY", "Claude Max (a@b.c)". */
export function signedInWords(status: { kind: string; label: string; detail?: string | undefined }): string {
  if (status.kind === 'api_key') {
    return `the ${status.label}${status.detail ? ` from ${status.detail}` : ''}`;
  }
  return status.detail ? `${status.label} (${status.detail})` : status.label;
}
