// @vitest-environment happy-dom
/** Following the newest content: scrolling up to read shows "Jump to latest"; the person's own new message takes them back. */
import { cleanup, fireEvent, render as renderBare, screen } from '@testing-library/react';
import type { ReactElement } from 'react';
import { TipProvider } from '../../components/Tip.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { emptyTranscript, type TranscriptItem, type TranscriptState } from '../../../app/transcript/index.js';
import { openConversation, resetStore } from '../../store/testStore.js';
import { Transcript } from './Transcript.js';

/** Renders as the app does: inside the tooltips' provider (a message's actions have tooltips). */
const render = (ui: ReactElement) => renderBare(ui, { wrapper: TipProvider });

vi.mock('../../store/index.js', () => import('../../store/testStore.js'));

const user = (n: number): TranscriptItem => ({
  kind: 'user',
  key: `u${n}`,
  turnId: `t${n}`,
  text: `message ${n}`,
  at: '2026-12-04T10:00:00Z',
});
const agent = (n: number): TranscriptItem => ({
  kind: 'agent',
  key: `a${n}`,
  turnId: `t${n}`,
  messageId: undefined,
  agentName: 'Claude',
  text: `reply ${n}`,
  at: '2026-12-04T10:00:01Z',
});
const state = (items: TranscriptItem[]): TranscriptState => ({ ...emptyTranscript('conv-1'), items });

beforeEach(() => {
  resetStore();
  openConversation('conv-1');
  Element.prototype.scrollIntoView = () => undefined;
});
afterEach(cleanup);

describe('Transcript', () => {
  it('shows "Jump to latest" once the person scrolls up, and takes them back when they send a message', () => {
    const items = [user(1), agent(1), user(2), agent(2)];
    const { rerender } = render(<Transcript transcript={state(items)} focusSeq={undefined} attemptsCard={() => null} />);
    expect(screen.queryByRole('button', { name: 'Jump to latest' })).toBeNull();
    const section = screen.getByRole('region', { name: 'Transcript' });
    Object.defineProperty(section, 'scrollHeight', { configurable: true, value: 2_000 });
    Object.defineProperty(section, 'clientHeight', { configurable: true, value: 400 });
    section.scrollTop = 0;
    fireEvent.scroll(section);
    expect(screen.getByRole('button', { name: 'Jump to latest' })).toBeTruthy();
    // New content from the agent leaves the person where they read.
    rerender(<Transcript transcript={state([...items, agent(3)])} focusSeq={undefined} attemptsCard={() => null} />);
    expect(screen.getByRole('button', { name: 'Jump to latest' })).toBeTruthy();
    // Their own message takes them to it.
    rerender(<Transcript transcript={state([...items, agent(3), user(4)])} focusSeq={undefined} attemptsCard={() => null} />);
    expect(screen.queryByRole('button', { name: 'Jump to latest' })).toBeNull();
  });

  it('leaves the person where they scrolled up to when new content comes before their scroll is reported', () => {
    // Following puts the view at the end, as the browser would.
    Element.prototype.scrollIntoView = function (this: Element) {
      const section = this.closest('section');
      if (section) {
        section.scrollTop = section.scrollHeight - section.clientHeight;
      }
    };
    const items = [user(1), agent(1), user(2), agent(2)];
    const { rerender, container } = render(<Transcript transcript={state(items)} focusSeq={undefined} attemptsCard={() => null} />);
    const section = container.querySelector('section')!;
    Object.defineProperty(section, 'scrollHeight', { configurable: true, value: 2_000 });
    Object.defineProperty(section, 'clientHeight', { configurable: true, value: 400 });
    rerender(<Transcript transcript={state([...items, agent(3)])} focusSeq={undefined} attemptsCard={() => null} />);
    expect(section.scrollTop).toBe(1_600);
    // Content that grows at the end is followed.
    Object.defineProperty(section, 'scrollHeight', { configurable: true, value: 2_400 });
    rerender(<Transcript transcript={state([...items, agent(3), agent(4)])} focusSeq={undefined} attemptsCard={() => null} />);
    expect(section.scrollTop).toBe(2_000);
    // The person scrolls up; before the page reports it, more content comes: the view stays.
    section.scrollTop = 300;
    rerender(<Transcript transcript={state([...items, agent(3), agent(4), agent(5)])} focusSeq={undefined} attemptsCard={() => null} />);
    expect(section.scrollTop).toBe(300);
    expect(screen.getByRole('button', { name: 'Jump to latest' })).toBeTruthy();
    fireEvent.scroll(section);
    expect(section.scrollTop).toBe(300);
    expect(screen.getByRole('button', { name: 'Jump to latest' })).toBeTruthy();
    // Another conversation opens at its end, though the view starts above where the last one was.
    section.scrollTop = 0;
    const other: TranscriptState = { ...emptyTranscript('conv-2'), items: [user(7), agent(7)] };
    rerender(<Transcript transcript={other} focusSeq={undefined} attemptsCard={() => null} />);
    expect(section.scrollTop).toBe(2_000);
    expect(screen.queryByRole('button', { name: 'Jump to latest' })).toBeNull();
  });
});
