/**
 * What the agent says of an entry, without the name it often starts with ("Opus 5.5 · Best for
 * …" under "Opus 5.5" reads the name twice); undefined when that is all it says.
 */
export function saidOf(name: string, description: string | undefined): string | undefined {
  if (!description) {
    return undefined;
  }
  const trimmed = description.trim();
  if (trimmed === name.trim()) {
    return undefined;
  }
  const rest = trimmed.startsWith(name.trim()) ? trimmed.slice(name.trim().length) : undefined;
  const after = rest?.match(/^\s*[·:—–-]\s*(.+)$/s)?.[1];
  return after ?? trimmed;
}
