/**
 * Opens the new conversation's agent session while its first message is being written (see the
 * drafts slice's `prepareEarlySession`): once the agent, the folder and some text are there and
 * have rested a moment, and again after any change to what the conversation would start with.
 */
import { useEffect } from 'react';
import { useBaton } from '../../store/index.js';

/** How long the draft rests before its session is opened (typing goes on meanwhile). */
const SETTLE_MS = 400;

/** The hook, used once by the composer. */
export function useEarlySession(): void {
  const drafting = useBaton((state) => state.selection.kind === 'draft');
  const hasText = useBaton((state) => state.selection.kind === 'draft' && (state.composer.draft ?? '').trim() !== '');
  const draft = useBaton((state) => state.draft);
  const folderProblem = useBaton((state) => state.draftFolderProblem);
  const prepare = useBaton((state) => state.prepareEarlySession);
  useEffect(() => {
    const timer = setTimeout(() => void prepare(), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [drafting, hasText, draft, folderProblem, prepare]);
}
