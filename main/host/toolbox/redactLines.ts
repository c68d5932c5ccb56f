/**
 * Taking known secret values out of what an MCP server sends back, line by line, before the agent
 * (and its model) sees it. Apart from the bridge, so the launcher of a stdio server loads no MCP SDK
 * (it starts faster: some agents do not wait for their servers before the first turn).
 */

/** What replaces a secret value in a server's output. */
export const REDACTED_MARK = '[redacted by Baton]';

/** Replaces every secret (and its JSON-escaped form) in one line of JSON text; the line stays valid JSON. */
export function redactLine(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) {
    if (secret.length < 4) {
      continue;
    }
    const escaped = JSON.stringify(secret).slice(1, -1);
    out = out.split(escaped).join(REDACTED_MARK);
    if (escaped !== secret) {
      out = out.split(secret).join(REDACTED_MARK);
    }
  }
  return out;
}

/** A message with the secrets taken out of every string in it. */
export function redactMessage<T>(message: T, secrets: readonly string[]): T {
  return secrets.length === 0 ? message : (JSON.parse(redactLine(JSON.stringify(message), secrets)) as T);
}
