/**
 * A subagent the agent ran inside a turn: a collapsible card (group "Subagent <title>") with what
 * it is for, what it is doing, and its own text, tool calls and plan, shown as a reply's are.
 */
import type { ReactNode } from 'react';
import type { TranscriptItem } from '../../../app/transcript/index.js';

type SubagentItem = Extract<TranscriptItem, { kind: 'subagent' }>;

const STATES: Record<string, string> = {
  running: 'working',
  idle: 'done',
  requires_action: 'waiting for you',
  completed: 'done',
  cancelled: 'stopped',
  failed: 'failed',
};

/** The card; `entry` shows one of its items. */
export function SubagentCard({ item, entry }: { item: SubagentItem; entry: (inner: TranscriptItem) => ReactNode }) {
  const title = item.title ?? 'Subagent';
  const state = item.state ? (STATES[item.state] ?? item.state.replace('_', ' ')) : undefined;
  return (
    <div className="subagent-card" role="group" aria-label={`Subagent ${title}`}>
      <details open={item.state === 'running'}>
        <summary>
          <span aria-hidden="true">⑂</span> <span className="subagent-title">{title}</span>
          {state ? <span className="hint"> · {state}</span> : null}
          <span className="hint"> · {item.items.filter((inner) => inner.kind === 'tool').length} tool calls</span>
        </summary>
        {item.description ? <p className="hint">{item.description}</p> : null}
        <div className="subagent-items">
          {item.items.map((inner) => (
            <div key={inner.key}>{entry(inner)}</div>
          ))}
        </div>
      </details>
    </div>
  );
}
