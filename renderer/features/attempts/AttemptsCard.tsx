/**
 * One message asked of several agents, in the transcript of the conversation that asked: the
 * message, then each attempt as region "Attempt by <agent>" — in columns, or as tabs on a narrow
 * window — with its status, time, tokens or cost, the files it changed, its own entries (its
 * permission questions answered here), Stop, "Keep this one", "Continue this attempt" and a
 * follow-up to it alone. "Compare" opens dialog "Compare attempts"; "Ask <agent> to compare" sends
 * an agent the replies and diffs as a turn of the conversation. Once one is kept, the others are
 * folded under "Other attempts".
 */
import { diffLines } from 'diff';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent, type RefObject } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { Result } from '../../../app/ipc/index.js';
import { toolOfPermission, type AttemptView, type TranscriptItem, type TranscriptState } from '../../../app/transcript/index.js';
import { formatElapsed } from '../../components/relativeTime.js';
import { useNow } from '../../components/useNow.js';
import { useBaton } from '../../store/index.js';
import { keepOffered, statusClass, statusOf, tabStatusOf } from './attemptStatus.js';
import { TranscriptEntry } from '../transcript/TranscriptEntry.js';
import { ConversationScope } from '../../components/conversationScope.js';
import { ChoicePicker } from '../../components/ChoicePicker.js';

type AttemptsItem = Extract<TranscriptItem, { kind: 'attempts' }>;
type Compared = Result<'compareAttempts'>['attempts'][number];

/** The narrowest an attempt's column may be: below it the attempts are tabs, one shown at a time. */
const COLUMN_MIN = 360;
/** The gap between columns (var(--space-3)). */
const COLUMN_GAP = 12;

/** A ref for the attempts' box, and whether `count` columns of at least {@link COLUMN_MIN} fit in it (true until measured). */
function useColumnsFit(count: number): [RefObject<HTMLElement | null>, boolean] {
  const box = useRef<HTMLElement>(null);
  const [width, setWidth] = useState<number | undefined>(undefined);
  useLayoutEffect(() => {
    const node = box.current;
    if (!node || typeof ResizeObserver !== 'function') {
      return;
    }
    setWidth(node.getBoundingClientRect().width);
    const observer = new ResizeObserver((entries) => setWidth(entries[0]?.contentRect.width));
    observer.observe(node);
    return () => observer.disconnect();
  }, []);
  return [box, width === undefined || (width - COLUMN_GAP * (count - 1)) / count >= COLUMN_MIN];
}

/** The attempts of one message. */
export function AttemptsCard({ item, conversationId }: { item: AttemptsItem; conversationId: string }) {
  const [box, fits] = useColumnsFit(item.attempts.length);
  const narrow = !fits;
  const [tab, setTab] = useState(0);
  const openCompare = useBaton((state) => state.openCompare);
  const setAside = useBaton((state) => state.setAttemptsAside);
  const stop = useBaton((state) => state.stopAttempts);
  const running = useBaton(
    useShallow((state) =>
      item.attempts
        .filter((attempt) => (state.transcripts[attempt.conversationId]?.state.activeTurnId ?? null) !== null)
        .map((attempt) => attempt.conversationId),
    ),
  );
  const open = item.kept === undefined && item.removed === undefined;
  const kept = item.kept ? item.attempts.find((attempt) => attempt.attemptId === item.kept?.attemptId) : undefined;
  const others = kept ? item.attempts.filter((attempt) => attempt !== kept) : item.attempts;
  const preparing = item.attempts.some((attempt) => attempt.state === 'preparing');
  const region = (attempt: AttemptView, hidden = false) => (
    <AttemptRegion key={attempt.attemptId} attempt={attempt} item={item} conversationId={conversationId} open={open} hidden={hidden} />
  );
  return (
    <section ref={box} className="attempts" aria-label={`Asked ${item.attempts.length} agents`}>
      <article className="message message-user" aria-label="You">
        <header className="author">You, to {item.attempts.map((attempt) => attempt.agentName).join(', ')}</header>
        <div className="plain-text">{item.text}</div>
      </article>
      {preparing ? (
        <p className="hint" role="status" aria-busy="true">
          Making a copy of the folder for each agent{item.repository ? ' (a git worktree on a branch of its own)' : ''}
          {item.container ? `, each in a container from ${item.container.image}` : ''}…
        </p>
      ) : null}
      <div className="attempts-actions">
        <button type="button" onClick={() => openCompare(conversationId, item.attemptsId)}>
          Compare
        </button>
        <AskToCompare conversationId={conversationId} attemptsId={item.attemptsId} />
        {open && running.length > 1 ? (
          <button type="button" onClick={() => void stop(running)}>
            Stop all
          </button>
        ) : null}
        {open ? (
          <button type="button" onClick={() => void setAside(conversationId, item.attemptsId)}>
            Set these attempts aside
          </button>
        ) : null}
      </div>
      {kept ? (
        <p className="notice notice-info attempts-kept" role="note">
          You kept {kept.agentName}'s attempt: its changes are in your folder and its reply continues the conversation below.
          {item.kept && item.kept.left.length > 0 ? ` Left as you had them: ${item.kept.left.join(', ')}.` : ''}
        </p>
      ) : null}
      {item.removed && !kept ? (
        <p className="notice notice-info" role="note">
          These attempts were set aside: their copies are removed. Any of them can still be continued as a branch.
        </p>
      ) : null}
      {open ? (
        narrow ? (
          <>
            <div
              role="tablist"
              aria-label="Attempts"
              className="attempts-tabs"
              onKeyDown={(event) => moveTab(event, item.attempts.length, setTab)}
            >
              {item.attempts.map((attempt, index) => (
                <AttemptTab key={attempt.attemptId} attempt={attempt} selected={tab === index} onSelect={() => setTab(index)} />
              ))}
            </div>
            {item.attempts.map((attempt, index) => region(attempt, tab !== index))}
          </>
        ) : (
          <div className="attempts-columns" style={{ gridTemplateColumns: `repeat(${item.attempts.length}, minmax(0, 1fr))` }}>
            {item.attempts.map((attempt) => region(attempt))}
          </div>
        )
      ) : (
        <details className="attempts-others">
          <summary>{kept ? 'Other attempts' : 'Attempts'}</summary>
          <div className="attempts-columns" style={{ gridTemplateColumns: `repeat(${Math.max(1, others.length)}, minmax(0, 1fr))` }}>
            {others.map((attempt) => region(attempt))}
          </div>
        </details>
      )}
    </section>
  );
}

/** Left and right arrows (Home, End) move between the attempts' tabs, as in any tab list. */
function moveTab(event: KeyboardEvent, count: number, setTab: (tab: number) => void): void {
  const step: Record<string, (tab: number) => number> = {
    ArrowRight: (tab) => (tab + 1) % count,
    ArrowLeft: (tab) => (tab - 1 + count) % count,
    Home: () => 0,
    End: () => count - 1,
  };
  const move = step[event.key];
  if (!move) {
    return;
  }
  event.preventDefault();
  // From the tab that has the focus: it is the one chosen next, and it takes the focus.
  const tabs = [...event.currentTarget.querySelectorAll<HTMLElement>('[role="tab"]')];
  const next = move(
    Math.max(
      0,
      tabs.findIndex((tab) => tab === document.activeElement),
    ),
  );
  setTab(next);
  tabs[next]?.focus();
}

/** One attempt's tab: its agent and its state (working, waiting for you, done, failed…). */
function AttemptTab({ attempt, selected, onSelect }: { attempt: AttemptView; selected: boolean; onSelect: () => void }) {
  const state = useBaton((store) => store.transcripts[attempt.conversationId]?.state);
  const status = useMemo(() => {
    const { own, turns } = ownTurns(state, attempt);
    return tabStatusOf(attempt, turns, state?.items ?? [], own);
  }, [state, attempt]);
  return (
    <button type="button" role="tab" aria-selected={selected} tabIndex={selected ? 0 : -1} onClick={onSelect}>
      <span>{attempt.agentName}</span> <span className={`tab-status ${statusClass(status)}`}>{status}</span>
    </button>
  );
}

/** "Ask <agent> to compare": the agent picked answers as a turn of the conversation. */
function AskToCompare({ conversationId, attemptsId }: { conversationId: string; attemptsId: string }) {
  const agents = useBaton(useShallow((state) => state.agents.filter((agent) => agent.available)));
  const current = useBaton((state) => state.openSummary?.agentId);
  const ask = useBaton((state) => state.askToCompare);
  const [agentId, setAgentId] = useState<string | undefined>(undefined);
  const chosen = agents.find((agent) => agent.agentId === (agentId ?? current)) ?? agents[0];
  if (!chosen) {
    return null;
  }
  return (
    <span className="ask-to-compare">
      <ChoicePicker
        label="Agent to compare"
        value={chosen.agentId}
        onChange={setAgentId}
        entries={agents.map((agent) => ({ value: agent.agentId, name: agent.displayName }))}
      />
      <button type="button" onClick={() => void ask(conversationId, attemptsId, chosen.agentId)}>
        Ask {chosen.displayName} to compare
      </button>
    </span>
  );
}

/** An attempt's own turns: their ids, and the turns themselves in order. */
function ownTurns(
  state: TranscriptState | undefined,
  attempt: AttemptView,
): { own: Set<string>; turns: TranscriptState['turns'][string][] } {
  const own = state ? ownTurnIds(state, attempt.fromSeq ?? 0) : new Set<string>();
  const turns = state ? [...own].flatMap((turnId) => (state.turns[turnId] ? [state.turns[turnId]] : [])) : [];
  return { own, turns };
}

/** The turns of an attempt's conversation that are its own (after the history it was given). */
function ownTurnIds(state: TranscriptState, fromSeq: number): Set<string> {
  return new Set(
    state.items.flatMap((entry) => (entry.kind === 'user' && !entry.steered && Number(entry.key) > fromSeq ? [entry.turnId] : [])),
  );
}

/** Lines added and removed over an attempt's files. */
function lineCounts(files: Compared['files']): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const file of files) {
    if (file.binary) {
      continue;
    }
    for (const change of diffLines(file.before ?? '', file.after ?? '')) {
      const lines = change.count ?? change.value.split('\n').length - 1;
      if (change.added) {
        added += lines;
      } else if (change.removed) {
        removed += lines;
      }
    }
  }
  return { added, removed };
}

/** Region "Attempt by <agent>". */
function AttemptRegion({
  attempt,
  item,
  conversationId,
  open,
  hidden,
}: {
  attempt: AttemptView;
  item: AttemptsItem;
  conversationId: string;
  open: boolean;
  hidden: boolean;
}) {
  const watch = useBaton((state) => state.watchConversation);
  const buffered = useBaton((state) => state.transcripts[attempt.conversationId]);
  const changes = useBaton((state) => state.attemptChanges[item.attemptsId]);
  const loadChanges = useBaton((state) => state.loadAttemptChanges);
  const stop = useBaton((state) => state.stopAttempts);
  const openKeep = useBaton((state) => state.openKeep);
  const continueAttempt = useBaton((state) => state.continueAttempt);
  const select = useBaton((state) => state.select);
  const prepared = attempt.state === 'prepared';
  useEffect(() => {
    if (prepared) {
      void watch(attempt.conversationId);
    }
  }, [prepared, attempt.conversationId, watch]);
  const state = buffered?.state;
  const { own, turns } = useMemo(() => ownTurns(state, attempt), [state, attempt]);
  const running = (state?.activeTurnId ?? null) !== null;
  const status = statusOf(attempt, turns);
  // Its files are read again whenever one of its turns ends.
  const ended = turns.filter((turn) => turn.status !== 'running' && turn.status !== 'accepted').length;
  useEffect(() => {
    if (prepared && ended > 0) {
      void loadChanges(conversationId, item.attemptsId);
    }
  }, [prepared, ended, conversationId, item.attemptsId, loadChanges]);
  const now = useNow(running);
  const startedAt = turns[0] ? Date.parse(turns[0].startedAt) : undefined;
  const endedAt = running ? now : state ? Date.parse(state.updatedAt) : now;
  const tokens = turns.reduce(
    (sum, turn) => sum + (turn.tokens?.totalTokens ?? (turn.tokens ? (turn.tokens.inputTokens ?? 0) + (turn.tokens.outputTokens ?? 0) : 0)),
    0,
  );
  const cost = turns.findLast((turn) => turn.usage?.cost)?.usage?.cost;
  const compared =
    changes && 'attempts' in changes ? changes.attempts.find((candidate) => candidate.attemptId === attempt.attemptId) : undefined;
  const counts = compared && compared.unavailable === null ? lineCounts(compared.files) : undefined;
  // Its own entries; its first message is the one asked above, not repeated.
  const asked = state?.items.find((entry) => entry.kind === 'user' && own.has(entry.turnId));
  const entries = state
    ? state.items.filter(
        (entry) =>
          entry !== asked &&
          ((entry.turnId !== undefined && own.has(entry.turnId)) ||
            (entry.kind === 'elicitation' && entry.turnId === undefined && entry.answer === undefined)),
      )
    : [];
  return (
    <section className="attempt" role="region" aria-label={`Attempt by ${attempt.agentName}`} hidden={hidden} aria-busy={running}>
      <header className="attempt-header">
        <h3>{attempt.agentName}</h3>
        <p className="attempt-facts">
          <span className={`attempt-status ${statusClass(status)}`}>{status}</span>
          {startedAt !== undefined ? <span> · {formatElapsed(Math.max(0, endedAt - startedAt))}</span> : null}
          {tokens > 0 ? <span> · {tokens.toLocaleString()} tokens</span> : null}
          {cost ? (
            <span>
              {' '}
              · {cost.amount.toFixed(4)} {cost.currency}
            </span>
          ) : null}
          {counts && compared ? (
            <span
              aria-label={`${compared.files.length} file${compared.files.length === 1 ? '' : 's'} changed, ${counts.added} line${counts.added === 1 ? '' : 's'} added, ${counts.removed} removed`}
            >
              {' '}
              · {compared.files.length} file{compared.files.length === 1 ? '' : 's'} changed{' '}
              <span className="diff-added">+{counts.added}</span> <span className="diff-removed">−{counts.removed}</span>
            </span>
          ) : null}
        </p>
        <p className="hint attempt-where">
          {attempt.kind === 'worktree' ? `Worktree on ${attempt.branch ?? 'its branch'}` : "A copy of the folder in Baton's data folder"}
          {item.container ? `, in a container from ${item.container.image}${item.container.network ? '' : ' with no network'}` : ''}
        </p>
      </header>
      {attempt.state === 'failed' ? (
        <p className="notice notice-error" role="alert">
          {attempt.agentName}'s attempt could not start: {attempt.reason}
        </p>
      ) : null}
      <ConversationScope.Provider value={attempt.conversationId}>
        <div className="attempt-entries">
          {entries.map((entry) => (
            <div key={entry.key} className="entry">
              <TranscriptEntry
                item={entry}
                lastReply={false}
                terminals={entry.kind === 'tool' || entry.kind === 'subagent' ? state?.terminals : undefined}
                agentName={entry.kind === 'permission' ? attempt.agentName : undefined}
                toolKind={entry.kind === 'permission' ? toolOfPermission(entries, entry)?.toolKind : undefined}
                toolInput={entry.kind === 'permission' ? toolOfPermission(entries, entry)?.rawInput : undefined}
                turnUsage={undefined}
              />
            </div>
          ))}
        </div>
      </ConversationScope.Provider>
      <div className="attempt-actions">
        {open && running ? (
          <button type="button" onClick={() => void stop([attempt.conversationId])}>
            Stop
          </button>
        ) : null}
        {open && keepOffered(attempt, turns) ? (
          <button
            type="button"
            className="primary"
            disabled={running}
            onClick={() => void openKeep(conversationId, item.attemptsId, attempt.attemptId, attempt.agentName)}
          >
            Keep this one
          </button>
        ) : null}
        {attempt.continuedAs ? (
          <button type="button" onClick={() => void select(attempt.continuedAs!)}>
            Open its branch
          </button>
        ) : prepared ? (
          <button type="button" onClick={() => void continueAttempt(conversationId, item.attemptsId, attempt.attemptId)}>
            Continue this attempt
          </button>
        ) : null}
      </div>
      {open && prepared && !running ? <FollowUp conversationId={attempt.conversationId} agentName={attempt.agentName} /> : null}
    </section>
  );
}

/** A message to this attempt alone, before one is kept. */
function FollowUp({ conversationId, agentName }: { conversationId: string; agentName: string }) {
  const send = useBaton((state) => state.sendToAttempt);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (text.trim() === '' || busy) {
      return;
    }
    setBusy(true);
    if (await send(conversationId, text.trim())) {
      setText('');
    }
    setBusy(false);
  };
  return (
    <form className="attempt-follow-up" onSubmit={(event) => void submit(event)}>
      <textarea
        aria-label={`Follow-up to ${agentName}`}
        rows={2}
        value={text}
        placeholder={`Only ${agentName} gets this`}
        onChange={(event) => setText(event.target.value)}
      />
      <button type="submit" disabled={busy || text.trim() === ''}>
        Send to {agentName}
      </button>
    </form>
  );
}
