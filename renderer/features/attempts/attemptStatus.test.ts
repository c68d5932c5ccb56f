/** An attempt's state in words, and when "Keep this one" is offered (issue 46 item 9: never for an attempt whose every turn failed). */
import { describe, expect, it } from 'vitest';
import type { AttemptView, TranscriptItem } from '../../../app/transcript/index.js';
import { keepOffered, statusOf, tabStatusOf } from './attemptStatus.js';

const attempt = (state: AttemptView['state']): AttemptView => ({
  attemptId: 'a',
  agentId: 'pi',
  agentName: 'pi',
  conversationId: 'c',
  folder: '/w',
  kind: 'copy',
  state,
});

describe('an attempt', () => {
  it('says what it is doing, in words', () => {
    expect(statusOf(attempt('preparing'), [])).toBe('making its copy…');
    expect(statusOf(attempt('failed'), [])).toBe('could not start');
    expect(statusOf(attempt('prepared'), [{ status: 'running' }])).toBe('working…');
    expect(statusOf(attempt('prepared'), [{ status: 'failed' }])).toBe('failed');
  });

  it('offers Keep once its copy is made, unless every turn of its own failed', () => {
    expect(keepOffered(attempt('preparing'), [])).toBe(false);
    expect(keepOffered(attempt('failed'), [])).toBe(false);
    expect(keepOffered(attempt('prepared'), [{ status: 'running' }])).toBe(true);
    expect(keepOffered(attempt('prepared'), [{ status: 'completed' }])).toBe(true);
    expect(keepOffered(attempt('prepared'), [{ status: 'failed' }])).toBe(false);
    expect(keepOffered(attempt('prepared'), [{ status: 'completed' }, { status: 'failed' }])).toBe(true);
  });

  it('says on its tab that it waits for you while a question of its own is unanswered', () => {
    const question = (turnId: string, decided: boolean) =>
      ({
        kind: 'permission',
        key: `p-${turnId}`,
        turnId,
        requestId: 'r',
        toolCallId: undefined,
        title: 'Run printf',
        options: [],
        decision: decided ? { requestId: 'r', outcome: { outcome: 'selected', optionId: 'allow' } } : undefined,
      }) as unknown as TranscriptItem;
    const own = new Set(['t1']);
    expect(tabStatusOf(attempt('prepared'), [{ status: 'running' }], [question('t1', false)], own)).toBe('waiting for you');
    expect(tabStatusOf(attempt('prepared'), [{ status: 'running' }], [question('t1', true)], own)).toBe('working…');
    // A question of the history it was given is not its own.
    expect(tabStatusOf(attempt('prepared'), [{ status: 'running' }], [question('t0', false)], own)).toBe('working…');
    expect(tabStatusOf(attempt('prepared'), [{ status: 'completed' }], [question('t1', false)], own)).toBe('done');
  });
});
