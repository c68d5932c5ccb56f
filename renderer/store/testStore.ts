/**
 * The store module as component tests see it: `vi.mock('<path>/store/index.js', () => import('<path>/store/testStore.js'))`
 * puts one store over a test API in place of the window's. A test sets the API's answers in
 * `answers`, reads the requests made in `calls`, and starts afresh with `resetStore()`.
 */
import { act } from '@testing-library/react';
import type { BatonState } from './types.js';
import { createBatonStore } from './store.js';
import { testApi, type Answers } from './testApi.js';

/** The answers the test API gives, by method (set by each test). */
export const answers: Answers = {};
const client = testApi(answers);

/** The requests made, in order. */
export const calls = client.calls;

/** The store, in place of the window's. */
export const useBaton = createBatonStore(client.api);

const initial: BatonState = useBaton.getState();

/** Puts the store back as it was made, forgets the calls and the answers. */
export function resetStore(): void {
  useBaton.setState(initial, true);
  calls.length = 0;
  for (const method of Object.keys(answers)) {
    delete answers[method as keyof Answers];
  }
}

/** Opens a conversation in the store (the selection the components read). */
export function openConversation(conversationId: string): void {
  useBaton.setState({ selection: { kind: 'conversation', conversationId } } as Partial<BatonState>);
}

/** Lets the requests a component started, and the renders they bring, settle. */
export async function settle(): Promise<void> {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}
