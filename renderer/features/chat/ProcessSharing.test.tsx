// @vitest-environment happy-dom
/**
 * Note "Shared agent process": asked again when a turn of the conversation ends, also when the
 * page saw the turn start and end in one update (a quick agent on a busy machine), so that
 * `activeTurnId` never changed from null.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { answers, calls, resetStore, settle } from '../../store/testStore.js';
import { TipProvider } from '../../components/Tip.js';
import { ProcessSharing } from './ProcessSharing.js';

vi.mock('../../store/index.js', () => import('../../store/testStore.js'));

beforeEach(resetStore);
afterEach(cleanup);

it('asks again after a turn that started and ended within one update, and then shows the shared process', async () => {
  // Before the first turn, the conversation has no live session: nothing is shared yet.
  const sharing = { agentId: 'fake', agentName: 'Fake', perConversation: false, cannotSeparate: null };
  answers.getProcessSharing = () => ({ ...sharing, live: false, sharedWith: [] });
  const sharingOf = (turns: number) => (
    <TipProvider>
      <ProcessSharing conversationId="c2" activeTurnId={null} turns={turns} />
    </TipProvider>
  );
  const { rerender } = render(sharingOf(0));
  await settle();
  expect(screen.queryByRole('button', { name: 'Shared agent process' })).toBeNull();

  // Its first turn ran on the process of another conversation in the same folder.
  answers.getProcessSharing = () => ({ ...sharing, live: true, sharedWith: [{ conversationId: 'c1', title: 'first one' }] });
  rerender(sharingOf(1));
  await settle();
  expect(calls.filter((call) => call.method === 'getProcessSharing')).toHaveLength(2);
  expect(screen.getByRole('button', { name: 'Shared agent process' })).toBeTruthy();
});
