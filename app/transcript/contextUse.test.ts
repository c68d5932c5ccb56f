import { describe, expect, it } from 'vitest';
import { contextUse, judgeUsage } from './contextUse.js';
import type { TurnState } from './state.js';

const turn = (turnId: string, agentId: string, status: TurnState['status'], usage?: TurnState['usage']): TurnState => ({
  turnId,
  agentId,
  agentName: agentId === 'a' ? 'Ada' : 'Bo',
  status,
  stopReason: undefined,
  startedAt: '2026-12-05T00:00:00.000Z',
  ...(usage ? { usage } : {}),
});

describe('the context meter', () => {
  it("shows the agent's own report, and a figure beyond the window as a running total, never as a share of it", () => {
    expect(judgeUsage({ used: 15, size: 1_000_000 })).toEqual({ kind: 'reported', used: 15, size: 1_000_000 });
    expect(judgeUsage({ used: 200_000, size: 200_000 })).toEqual({ kind: 'reported', used: 200_000, size: 200_000 });
    expect(judgeUsage({ used: 1_042_000, size: 200_000 })).toEqual({ kind: 'beyond', used: 1_042_000, size: 200_000 });
    expect(judgeUsage({ used: 10, size: 0 })).toBeUndefined();
    expect(judgeUsage(null)).toBeUndefined();
  });

  it('says an agent does not report it once a turn of its own finished without a report', () => {
    const usage = { turnId: 't1', used: 900, size: 200_000 };
    expect(contextUse({ agentId: 'a', usage: null, turns: {} })).toEqual({ kind: 'none' });
    expect(contextUse({ agentId: 'a', usage: null, turns: { t1: turn('t1', 'a', 'running') } })).toEqual({ kind: 'none' });
    expect(contextUse({ agentId: 'a', usage: null, turns: { t1: turn('t1', 'a', 'completed') } })).toEqual({
      kind: 'unreported',
      agentName: 'Ada',
    });
    expect(contextUse({ agentId: 'a', usage, turns: { t1: turn('t1', 'a', 'completed', usage) } })).toEqual({
      kind: 'reported',
      used: 900,
      size: 200_000,
    });
    // Switched to Bo, who has not answered yet: nothing (Ada's figure is not Bo's).
    expect(contextUse({ agentId: 'b', usage: null, turns: { t1: turn('t1', 'a', 'completed', usage) } })).toEqual({ kind: 'none' });
    // Back to Ada, who reported before: nothing until she reports again.
    expect(
      contextUse({ agentId: 'a', usage: null, turns: { t1: turn('t1', 'a', 'completed', usage), t2: turn('t2', 'b', 'completed') } }),
    ).toEqual({ kind: 'none' });
  });
});
