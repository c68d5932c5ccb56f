/**
 * The window's title counts the conversations that need the person: one whose last turn failed or
 * was refused, or one waiting for their answer, its own or one of its attempts' ("(2) Baton"), so a failure in a conversation
 * that is not open is seen from anywhere, the taskbar included.
 */
import { useEffect } from 'react';
import { useBaton } from '../store/index.js';
import { questionsWaiting } from '../store/slices/historySlice.js';

const BASE_TITLE = 'Baton';

/** Keeps document.title counting the conversations that need the person. */
export function useAttentionTitle(): void {
  const count = useBaton(
    (state) =>
      state.conversations.filter(
        (conversation) =>
          (conversation.lastTurnFailed && !conversation.running) || questionsWaiting(conversation, state.attemptQuestions) > 0,
      ).length,
  );
  useEffect(() => {
    document.title = count > 0 ? `(${count}) ${BASE_TITLE}` : BASE_TITLE;
  }, [count]);
}
