/**
 * The permission questions open in the window (in the conversation and in attempt columns), so
 * that the number keys never answer one of several silently: a key answers the question that has
 * focus, or the only one open; a new question does not take focus from another open one.
 */
import { useSyncExternalStore } from 'react';

const open = new Set<object>();
const listeners = new Set<() => void>();

function changed(): void {
  for (const listener of listeners) {
    listener();
  }
}

/** Counts `question` as open until the returned function runs. */
export function openQuestion(question: object): () => void {
  open.add(question);
  changed();
  return () => {
    open.delete(question);
    changed();
  };
}

/** How many questions are open now. */
export function openQuestionCount(): number {
  return open.size;
}

/** How many questions are open (re-rendered when it changes). */
export function useOpenQuestionCount(): number {
  return useSyncExternalStore((listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, openQuestionCount);
}
