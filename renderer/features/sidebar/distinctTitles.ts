/** Telling apart conversations that share a title, so that no two rows of the list read the same. */
const started = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** The name of a folder Baton made for a copy: an id. */
const COPY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Row = { conversationId: string; title: string; cwd: string; createdAt: string };

/**
 * For rows whose title another loaded row shares, what tells them apart: the folder and when each
 * began, and where even that is shared, a number in order of starting. No two rows read the same.
 */
export function distinctions(conversations: readonly Row[]): Map<string, string> {
  const byTitle = new Map<string, Row[]>();
  for (const conversation of conversations) {
    const title = conversation.title || 'New conversation';
    const group = byTitle.get(title);
    if (group) {
      group.push(conversation);
    } else {
      byTitle.set(title, [conversation]);
    }
  }
  const suffixes = new Map<string, string>();
  for (const rows of byTitle.values()) {
    if (rows.length < 2) {
      continue;
    }
    const described = rows.map((row) => {
      const last = row.cwd.split(/[\\/]/).filter(Boolean).at(-1) ?? row.cwd;
      // A copy Baton made (a branch's own) is named by an id: said as what it is.
      const folder = COPY_ID.test(last) ? 'its own copy' : last;
      const date = new Date(row.createdAt);
      return { row, text: `${folder} · ${Number.isNaN(date.getTime()) ? row.createdAt : `started ${started.format(date)}`}` };
    });
    const counts = new Map<string, number>();
    described.forEach(({ text }) => counts.set(text, (counts.get(text) ?? 0) + 1));
    const oldestFirst = [...described].sort((a, b) => a.row.createdAt.localeCompare(b.row.createdAt));
    const numbers = new Map<string, number>();
    for (const { row, text } of oldestFirst) {
      if ((counts.get(text) ?? 0) > 1) {
        const number = (numbers.get(text) ?? 0) + 1;
        numbers.set(text, number);
        suffixes.set(row.conversationId, `${text} · #${number}`);
      } else {
        suffixes.set(row.conversationId, text);
      }
    }
  }
  return suffixes;
}
