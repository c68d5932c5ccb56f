/**
 * What comparing attempts shows and says: each attempt's changes against its copy as made, a
 * changed file's two texts (as the page shows them), and the message an agent asked to compare the
 * attempts is sent (each attempt's reply and its changes as a unified diff).
 */
import { createTwoFilesPatch } from 'diff';
import type { Result } from '../../../app/ipc/index.js';
import type { AttemptView } from '../../../app/transcript/index.js';
import { diffManifests, type CheckpointStore, type FileChange } from '../checkpoints/CheckpointStore.js';
import { shownText } from '../checkpoints/turnChanges.js';
import type { AttemptSet } from './AttemptSets.js';
import { exists, scanOn, type AttemptsContext } from './attemptsContext.js';
import type { GitHost } from './folderCopies.js';

/** Each attempt's changes against the working folder as the attempts started, with both texts (the page compares any two from them). */
export async function compareAttempts(ctx: AttemptsContext, set: AttemptSet, on: GitHost): Promise<Result<'compareAttempts'>> {
  const attempts = [];
  for (const attempt of set.attempts) {
    const { attemptId, agentName } = attempt;
    if (attempt.state !== 'prepared' || !attempt.checkpointId) {
      attempts.push({ attemptId, agentName, files: [], unavailable: attempt.reason ?? 'Its copy is not ready yet.' });
      continue;
    }
    try {
      const changes = await changesOf(ctx, set, attempt, on);
      const files = changes.map((change) => ({ path: change.path, change: change.change, ...fileTexts(ctx.deps.checkpoints, change) }));
      attempts.push({ attemptId, agentName, files, unavailable: null });
    } catch (error) {
      attempts.push({ attemptId, agentName, files: [], unavailable: (error as Error).message });
    }
  }
  return { attempts };
}

/** The attempt's changes: its copy now against the copy as made (its last checkpoint once the copy is gone). */
async function changesOf(ctx: AttemptsContext, set: AttemptSet, attempt: AttemptView, on: GitHost): Promise<FileChange[]> {
  const { checkpoints } = ctx.deps;
  if (set.removed || !(await exists(on, attempt.folder))) {
    const final = ctx.sets.finalCheckpoint(attempt.conversationId);
    if (!final) {
      throw new Error('its copy was removed and no checkpoint of it was kept');
    }
    return checkpoints.changes(attempt.checkpointId!, final);
  }
  await ctx.deps.turnCheckpoints?.idle(attempt.conversationId);
  const now = await checkpoints.take(attempt.folder, scanOn(ctx.deps, on));
  return diffManifests(checkpoints.manifest(attempt.checkpointId!), checkpoints.manifest(now.checkpointId));
}

/** A changed file's texts before and after (null: absent, or not shown as text), and whether either is binary. */
export function fileTexts(
  checkpoints: Pick<CheckpointStore, 'content'>,
  change: FileChange,
): { before: string | null; after: string | null; binary: boolean } {
  const before = shownText(change.before ? checkpoints.content(change.before.hash) : null);
  const after = shownText(change.after ? checkpoints.content(change.after.hash) : null);
  return { before: before.text, after: after.text, binary: before.binary || after.binary };
}

/** The message asking an agent to compare the attempts of `item`, from what `compareAttempts` answered and each attempt's reply. */
export function comparisonText(
  item: { text: string; attempts: readonly AttemptView[] },
  attempts: Result<'compareAttempts'>['attempts'],
  replyOf: (attemptConversationId: string) => string,
): string {
  const parts = [
    `I asked ${item.attempts.length} agents the same thing, each in its own copy of this folder:`,
    '',
    quoteBlock(item.text),
    '',
    'Compare their attempts: what each did, whether it did what I asked, and which one I should keep. Here are their replies and their changes.',
  ];
  for (const attempt of item.attempts) {
    const compared = attempts.find((candidate) => candidate.attemptId === attempt.attemptId);
    const reply = replyOf(attempt.conversationId);
    parts.push(
      '',
      `## Attempt by ${attempt.agentName}`,
      '',
      '### Its reply',
      '',
      reply.trim() === '' ? '(no reply)' : reply.trim(),
      '',
      '### Its changes',
      '',
    );
    if (!compared || compared.unavailable !== null) {
      parts.push(`(not available: ${compared?.unavailable ?? 'unknown'})`);
    } else if (compared.files.length === 0) {
      parts.push('(no files changed)');
    } else {
      parts.push('```diff', ...compared.files.map((file) => unifiedDiff(file.path, file.before, file.after, file.binary)), '```');
    }
  }
  return parts.join('\n');
}

/** A message quoted as Markdown. */
function quoteBlock(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/** A unified diff of one file. */
function unifiedDiff(file: string, before: string | null, after: string | null, binary: boolean): string {
  if (binary) {
    return `Binary file ${file} changed`;
  }
  return createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${file}`,
    after === null ? '/dev/null' : `b/${file}`,
    before ?? '',
    after ?? '',
    undefined,
    undefined,
    { context: 3 },
  )
    .split('\n')
    .filter((line) => !line.startsWith('====='))
    .join('\n')
    .trimEnd();
}
