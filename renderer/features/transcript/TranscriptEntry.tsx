/**
 * One entry of the transcript: a message (with its time and actions, and under a turn's last reply
 * the tokens and cost it reported), a handoff marker, injected context, a thought, a tool call, a
 * plan as a live checklist, a permission or elicitation question, or a notice.
 */
import { memo } from 'react';
import { fidelityBadge, fidelityDetail, handedNothing } from '../../../app/transcript/fidelity.js';
import { useScopedConversation } from '../../components/conversationScope.js';
import { TIMING_NAMES } from '../../../app/instructions/injectors.js';
import { judgeUsage, rewindFilesText, type TranscriptItem, type TranscriptState, type TurnState } from '../../../app/transcript/index.js';
import type { AuthMethodInfo } from '../../../app/errors.js';
import { Markdown } from '../../components/Markdown.js';
import { useBaton } from '../../store/index.js';
import { ElicitationPrompt } from './ElicitationPrompt.js';
import { LogInPrompt } from '../agents/LogInPrompt.js';
import { SubagentCard } from './SubagentCard.js';
import { TurnFiles } from './TurnFiles.js';
import { PermissionPrompt } from './PermissionPrompt.js';
import { isInstructionRefusal } from '../composer/RefusalActions.js';
import { clock, MessageActions, MessageTime, RetryButton, TurnRefusalActions } from './MessageActions.js';
import { ToolContent } from './ToolContent.js';
import { sameData } from './sameData.js';

/** Where the conversation was rewound: to when, what happened to the files, what it set aside, and "Undo rewind" while it can be. */
function RewindMarker({
  item,
  rewound,
}: {
  item: Extract<TranscriptItem, { kind: 'rewind' }>;
  rewound: { aside: string[]; canUndo: boolean } | undefined;
}) {
  const undo = useBaton((state) => state.undoRewind);
  const date = new Date(item.pointAt);
  const when = Number.isNaN(date.getTime()) ? item.pointAt : clock.format(date);
  const aside = rewound?.aside ?? [];
  if (item.retry) {
    // A Retry replaced the reply in place: one line, with Undo while it can be undone.
    return (
      <section className="rewind-marker rewind-retry" aria-label="Rewind">
        <p>
          Retried{' '}
          {rewound?.canUndo ? (
            <>
              ·{' '}
              <button type="button" className="link-button" aria-label="Undo retry" onClick={() => void undo(item.rewindId)}>
                Undo
              </button>
            </>
          ) : null}
        </p>
      </section>
    );
  }
  return (
    <section className="rewind-marker" aria-label="Rewind">
      <p>
        <strong>
          Rewound to <time dateTime={item.pointAt}>{when}</time>
        </strong>{' '}
        · {aside.length > 0 ? `${aside.length} message${aside.length === 1 ? '' : 's'} set aside` : 'the set-aside messages are back'} ·{' '}
        {rewindFilesText(item)}{' '}
        {rewound?.canUndo ? (
          <button type="button" onClick={() => void undo(item.rewindId)}>
            Undo rewind
          </button>
        ) : null}
      </p>
      {aside.length > 0 ? (
        <details>
          <summary>Set aside (kept, not sent to any agent)</summary>
          <ul aria-label="Set aside">
            {aside.map((text, index) => (
              <li key={index} className="plain-text">
                {text}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}

/** One clear state per tool call, in words. */
const TOOL_STATUS: Record<Extract<TranscriptItem, { kind: 'tool' }>['status'], string> = {
  pending: 'pending',
  awaiting_permission: 'awaiting your permission',
  in_progress: 'running',
  completed: 'done',
  failed: 'failed',
  rejected: 'rejected',
  cancelled: 'cancelled',
};

/** An icon per ACP tool kind. */
const TOOL_ICONS: Record<string, string> = {
  read: '📄',
  edit: '✏️',
  delete: '🗑',
  move: '↔',
  search: '🔍',
  // Not a triangle: the card's own disclosure marker is one.
  execute: '$',
  think: '💭',
  fetch: '🌐',
  switch_mode: '⇄',
};

/** A plan entry's state in words and as a mark. */
const PLAN_STATUS: Record<string, string> = { pending: 'to do', in_progress: 'in progress', completed: 'done' };
const PLAN_MARKS: Record<string, string> = { pending: '○', in_progress: '◐', completed: '✓' };

const count = new Intl.NumberFormat();

/** What the agent reported a turn cost: tokens in and out, its context window, the session's cost so far. */
/**
 * A switch marker (or an agent caught up after its session started again), with the path really
 * taken. In an attempt's column, a handoff that carried nothing (the attempts were asked first
 * thing) is not shown: the column is that agent's, and there was nothing to hand over.
 */
function HandoffMarker({ item }: { item: Extract<TranscriptItem, { kind: 'handoff' }> }) {
  const inAttempt = useScopedConversation() !== undefined;
  const { prepared } = item;
  if (inAttempt && prepared && handedNothing(prepared)) {
    return null;
  }
  const label = item.fromAgentName ? `Switched from ${item.fromAgentName} to ${item.toAgentName}` : `${item.toAgentName} was caught up`;
  const detail = prepared ? fidelityDetail(prepared) : '';
  return (
    <div className="handoff-marker" role="group" aria-label={label}>
      <p>
        <strong>{label}</strong>{' '}
        {prepared ? (
          <span className={`badge fidelity fidelity-${prepared.fidelity}`}>{fidelityBadge(prepared.fidelity)}</span>
        ) : (
          <span className="hint">preparing…</span>
        )}
        {detail ? <span className="hint"> — {detail}</span> : null}
      </p>
      {prepared && prepared.text ? (
        <details>
          <summary>What {item.toAgentName} was given</summary>
          <Markdown text={prepared.text} />
          <p className="hint">
            {prepared.uri ? `${prepared.uri} · ` : ''}
            {prepared.level === 'resource' ? 'sent as an embedded resource' : 'sent as a delimited text block'} · sha256{' '}
            <code title={prepared.sha256}>{prepared.sha256.slice(0, 12)}</code>
          </p>
        </details>
      ) : null}
    </div>
  );
}

function TurnUsage({ turn }: { turn: Pick<TurnState, 'usage' | 'tokens'> }) {
  const { usage, tokens } = turn;
  const parts: string[] = [];
  if (tokens) {
    parts.push(`${count.format(tokens.inputTokens)} tokens in`, `${count.format(tokens.outputTokens)} out`);
    if (tokens.cachedReadTokens) {
      parts.push(`${count.format(tokens.cachedReadTokens)} cached`);
    }
  }
  const context = judgeUsage(usage);
  if (context?.kind === 'reported') {
    parts.push(
      `context ${Math.round((context.used / context.size) * 100)}% (${count.format(context.used)} of ${count.format(context.size)})`,
    );
  } else if (context?.kind === 'beyond') {
    parts.push(`${count.format(context.used)} tokens reported in all, more than the context window of ${count.format(context.size)}`);
  }
  if (usage?.cost) {
    const money = /^[A-Z]{3}$/.test(usage.cost.currency)
      ? new Intl.NumberFormat(undefined, { style: 'currency', currency: usage.cost.currency, maximumFractionDigits: 4 }).format(
          usage.cost.amount,
        )
      : `${usage.cost.amount} ${usage.cost.currency}`;
    parts.push(`${money} so far this session`);
  }
  return parts.length > 0 ? (
    <p className="turn-usage" aria-label="Usage of this turn">
      {parts.join(' · ')}
    </p>
  ) : null;
}

export type EntryProps = {
  item: TranscriptItem;
  /** The agent's last reply while no turn runs, or the error of a last turn that failed (either can be retried). */
  lastReply: boolean;
  /** For a tool call: the client terminals it may show. */
  terminals: TranscriptState['terminals'] | undefined;
  /** For a permission question: who asks, and the kind of tool call. */
  agentName: string | undefined;
  toolKind: string | undefined;
  /** For a turn's last reply: the usage the agent reported for the turn. */
  turnUsage: Pick<TurnState, 'usage' | 'tokens'> | undefined;
  /** For a reply: the mode its turn ran in where the agent decides without asking, if it did. */
  selfApprovingMode?: string | undefined;
  /** For a turn's last reply (its message, when it has no reply): the checkpoints of the working folder taken around the turn. */
  turnCheckpoints?: TurnState['checkpoints'];
  /** Likewise: the files the agent wrote through Baton in the turn. */
  turnWritten?: TurnState['written'];
  /** For a permission question: what the tool will be given, as its tool call reported it. */
  toolInput?: unknown;
  /** For a rewind's marker: what it set aside, and whether it can be undone. */
  rewound?: { aside: string[]; canUndo: boolean } | undefined;
};

/**
 * One entry; re-rendered only when its own item (or what it shows of the rest) changes. Compared by
 * what they hold: earlier turns read in fold the later ones again into new, equal objects.
 */
export const TranscriptEntry = memo(function TranscriptEntry({
  item,
  lastReply,
  terminals,
  agentName,
  toolKind,
  turnUsage,
  selfApprovingMode,
  turnCheckpoints,
  turnWritten,
  rewound,
  toolInput,
}: EntryProps) {
  switch (item.kind) {
    case 'user':
      return (
        <article className="message message-user" aria-label="You">
          <header className="author">
            You <MessageTime at={item.at} />
            {item.steered ? <span className="steered-note">sent into the running reply</span> : null}
            {item.withoutInstructions ? <span className="steered-note">sent without your instructions</span> : null}
            {item.withoutTools ? <span className="steered-note">sent without your tools</span> : null}
            <MessageActions text={item.text} turnId={item.steered ? undefined : item.turnId} />
          </header>
          <div className="plain-text">{item.text}</div>
          {item.attachments && item.attachments.length > 0 ? (
            <ul className="sent-attachments" aria-label="Attached">
              {item.attachments.map((attachment, index) => (
                <li key={index} title={attachment.uri ?? attachment.mimeType}>
                  {attachment.type === 'image' ? '🖼' : '📄'} {attachment.name}
                </li>
              ))}
            </ul>
          ) : null}
          {turnCheckpoints && !item.steered ? <TurnFiles turnId={item.turnId} checkpoints={turnCheckpoints} written={turnWritten} /> : null}
        </article>
      );
    case 'agent': {
      return (
        <article className="message message-agent" aria-label={item.agentName}>
          <header className="author">
            {item.agentName} <MessageTime at={item.at} />
            {selfApprovingMode ? (
              <span className="self-approving-note">in {selfApprovingMode}: the agent decided without asking you</span>
            ) : null}
            <MessageActions text={item.text} retryTurnId={lastReply ? item.turnId : undefined} />
          </header>
          <Markdown text={item.text} />
          {turnUsage ? <TurnUsage turn={turnUsage} /> : null}
          {turnCheckpoints ? <TurnFiles turnId={item.turnId} checkpoints={turnCheckpoints} written={turnWritten} /> : null}
        </article>
      );
    }
    case 'handoff':
      return <HandoffMarker item={item} />;
    case 'injected':
      // Context Baton added from an injector: shown apart from the person's message, never as something they typed.
      return (
        <details className="injected" role="group" aria-label={`Injected context: ${item.injector}`}>
          <summary>
            Injected context: {item.injector}{' '}
            <span className="hint">
              ({TIMING_NAMES[item.timing]}, {item.level}; added by Baton, not typed by you)
            </span>
          </summary>
          <div className="plain-text">{item.text}</div>
          <p className="hint">
            {item.uri ? `${item.uri} · ` : ''}sha256 <code title={item.sha256}>{item.sha256.slice(0, 12)}</code>
          </p>
        </details>
      );
    case 'thought':
      return (
        <details className="thought">
          <summary>Thinking</summary>
          <div className="plain-text">{item.text}</div>
        </details>
      );
    case 'tool':
      return (
        <div className={`tool-call tool-${item.status}`} role="group" aria-label={`Tool call: ${item.title}`}>
          {/* Open at first, so what it did stays in view (and in reach of screen readers); the person can fold it. */}
          <details open>
            <summary>
              <span className="tool-icon" aria-hidden="true">
                {TOOL_ICONS[item.toolKind ?? ''] ?? '⚙'}
              </span>{' '}
              <span className="tool-title">{item.title}</span>{' '}
              <span className={`tool-status status-${item.status}`}>{TOOL_STATUS[item.status]}</span>
            </summary>
            {item.content.map((content, index) => (
              <ToolContent key={index} content={content} terminals={terminals ?? NO_TERMINALS} title={item.title} status={item.status} />
            ))}
          </details>
        </div>
      );
    case 'plan': {
      // A checklist that the agent's updates replace as it works.
      const done = item.entries.filter((entry) => entry.status === 'completed').length;
      return (
        <section className="plan" aria-label="Plan">
          <h3 className="plan-heading">
            Plan{' '}
            <span className="hint">
              {done} of {item.entries.length} done
            </span>
          </h3>
          <ul className="plan-entries">
            {item.entries.map((entry, index) => (
              <li
                key={index}
                className={`plan-entry plan-${entry.status}`}
                aria-label={`${entry.content}: ${PLAN_STATUS[entry.status] ?? entry.status}`}
              >
                <span className="plan-mark" aria-hidden="true">
                  {PLAN_MARKS[entry.status] ?? '○'}
                </span>
                <span className="plan-text">{entry.content}</span>
                {entry.status === 'in_progress' ? <span className="plan-now">now</span> : null}
                {entry.priority === 'high' ? <span className="plan-priority">high priority</span> : null}
              </li>
            ))}
          </ul>
        </section>
      );
    }
    case 'subagent':
      return (
        <SubagentCard
          item={item}
          entry={(inner) => (
            <TranscriptEntry
              item={inner}
              lastReply={false}
              terminals={terminals}
              agentName={undefined}
              toolKind={undefined}
              turnUsage={undefined}
            />
          )}
        />
      );
    case 'permission':
      return <PermissionPrompt item={item} agentName={agentName ?? ''} toolKind={toolKind} toolInput={toolInput} />;
    case 'elicitation':
      return <ElicitationPrompt item={item} />;
    case 'rewind':
      return <RewindMarker item={item} rewound={rewound} />;
    case 'attempts':
      // Shown by the transcript itself (features/attempts/AttemptsCard), which holds each attempt's own entries.
      return null;
    case 'notice':
      return (
        <div className={`notice notice-${item.severity}`} role={item.severity === 'error' ? 'alert' : 'note'}>
          <p>{item.text}</p>
          {item.error?.code === 'AuthRequired' && Array.isArray(item.error.details?.methods) ? (
            <LogInPrompt methods={item.error.details.methods as AuthMethodInfo[]} />
          ) : null}
          {item.error?.code === 'AgentTooOld' && typeof item.error.details?.agentId === 'string' ? (
            <UpdateAgent agentId={item.error.details.agentId} />
          ) : null}
          {typeof item.error?.details?.stderrTail === 'string' && item.error.details.stderrTail ? (
            <details>
              <summary>Agent output</summary>
              <pre>{item.error.details.stderrTail}</pre>
            </details>
          ) : null}
          {lastReply && item.turnId && isInstructionRefusal(item.error) ? (
            <TurnRefusalActions turnId={item.turnId} refusal={item.error} />
          ) : null}
          {lastReply && item.turnId ? <RetryButton turnId={item.turnId} /> : null}
        </div>
      );
  }
}, sameData);

/** Button "Update <agent>" under a turn refused because the agent that would run is older than Baton supports. */
function UpdateAgent({ agentId }: { agentId: string }) {
  const agent = useBaton((state) => state.agents.find((candidate) => candidate.agentId === agentId));
  const install = useBaton((state) => state.installAgent);
  const running = useBaton((state) => state.installs[agentId]?.running ?? false);
  if (!agent?.managed) {
    return null;
  }
  return (
    <button type="button" disabled={running} onClick={() => void install(agentId)}>
      Update {agent.displayName}
      {agent.managed.pinned ? ` to ${agent.managed.pinned}` : ''}
    </button>
  );
}

const NO_TERMINALS: TranscriptState['terminals'] = {};
