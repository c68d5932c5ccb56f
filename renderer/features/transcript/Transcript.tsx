/**
 * The transcript: one entry per message, tool call, plan, question or notice, virtualized when
 * long, following the newest content while the person is at the bottom.
 */
import { defaultRangeExtractor, useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import {
  canUndoRewind,
  toolOfPermission,
  type TranscriptItem,
  type TranscriptState,
  type TurnState,
} from '../../../app/transcript/index.js';
import { useBaton } from '../../store/index.js';
import { selectHasEarlier } from '../../store/selectors/transcript.js';
import { formatElapsed } from '../../components/relativeTime.js';
import { typing } from '../../components/Shortcuts.js';
import { useNow } from '../../components/useNow.js';
import { TranscriptEntry } from './TranscriptEntry.js';

/**
 * A conversation read whole with up to this many entries has them all in the page (find-in-page
 * and browse mode see the whole thread). Past it, or while earlier turns are still unread, only
 * the entries near the view are: a long conversation is virtualized from the moment it opens, so
 * "Show earlier" never has to swap a long plain list for a virtual one.
 */
export const VIRTUAL_AFTER = 150;
const GAP_PX = 12;

/** A first guess at an entry's height, until it is measured. */
function estimateHeight(item: TranscriptItem | undefined): number {
  switch (item?.kind) {
    case 'agent':
      return 60 + Math.min(1_200, Math.ceil(item.text.length / 90) * 22) + (item.text.includes('```') ? 80 : 0);
    case 'user':
      return 60 + Math.min(600, Math.ceil(item.text.length / 90) * 22);
    case 'tool':
      return 90 + item.content.length * 120;
    case 'permission':
    case 'elicitation':
      return 160;
    default:
      return 48;
  }
}

/**
 * Shows a transcript, following the newest content while it streams — only while the person is
 * at the bottom: scrolling up to read stops it, and "Jump to latest" brings them back. Opened
 * from a search hit, it shows that message instead, marked, until new content arrives.
 * A long transcript is virtualized: only entries near the view are rendered (measured as they
 * render), plus any open question, which stays in the page wherever the person has scrolled.
 */
export function Transcript({
  transcript,
  focusSeq,
  attemptsCard,
}: {
  transcript: TranscriptState | undefined;
  focusSeq: number | undefined;
  /** How "Ask several agents" shows in it (the attempts feature's card, given by the chat view: the transcript does not import it). */
  attemptsCard: (item: Extract<TranscriptItem, { kind: 'attempts' }>, conversationId: string) => ReactNode;
}) {
  const hasEarlier = useBaton(selectHasEarlier);
  const showEarlier = useBaton((state) => state.showEarlier);
  const end = useRef<HTMLDivElement>(null);
  const section = useRef<HTMLElement>(null);
  const list = useRef<HTMLDivElement>(null);
  // Turns a rewind set aside are kept, but shown only under its marker.
  const allItems = transcript?.items ?? EMPTY_ITEMS;
  const setAside = transcript?.setAside;
  const items = useMemo(
    () =>
      setAside && Object.keys(setAside).length > 0
        ? allItems.filter((item) => item.turnId === undefined || setAside[item.turnId] === undefined)
        : allItems,
    [allItems, setAside],
  );
  const last = items.at(-1);
  const tick = last ? `${items.length}:${last.kind === 'agent' || last.kind === 'thought' ? last.text.length : 0}` : '0';
  const focusKey = focusSeq === undefined ? undefined : shownKey(allItems, setAside, String(focusSeq));
  const focusIndex = focusKey === undefined ? -1 : items.findIndex((item) => item.key === focusKey);
  const focusShown = focusIndex >= 0;
  const [following, setFollowing] = useState(true);
  // Where the view was last seen: after the last scroll event, or where following put it.
  const knownTop = useRef<number | undefined>(undefined);
  // The person's own new message brings them to the latest, wherever they had scrolled.
  const lastUserKey = useMemo(() => items.findLast((item) => item.kind === 'user')?.key, [items]);
  const seenUserKey = useRef(lastUserKey);
  useEffect(() => {
    if (seenUserKey.current !== lastUserKey) {
      seenUserKey.current = lastUserKey;
      setFollowing(true);
    }
  }, [lastUserKey]);
  const conversationId = transcript?.conversationId;
  const virtual = items.length > VIRTUAL_AFTER || hasEarlier;
  const [scrollMargin, setScrollMargin] = useState(0);
  // Open questions stay rendered (focus moves to them, and the person must be able to answer).
  const pinned = useMemo(() => {
    const indices: number[] = [];
    items.forEach((item, index) => {
      if ((item.kind === 'permission' && item.decision === undefined) || (item.kind === 'elicitation' && item.answer === undefined)) {
        indices.push(index);
      }
    });
    return indices;
  }, [items]);
  // The last reply of each turn (the turn's usage is shown under it), and where its files show:
  // under that reply, or under the person's message when the turn has no reply (a failed turn).
  const [lastOfTurn, filesAt] = useMemo(() => {
    const keys = new Map<string, string>();
    const files = new Map<string, string>();
    for (const item of items) {
      if (item.kind === 'agent') {
        keys.set(item.turnId, item.key);
        files.set(item.turnId, item.key);
      } else if (item.kind === 'user' && !item.steered && !files.has(item.turnId)) {
        files.set(item.turnId, item.key);
      }
    }
    return [keys, files];
  }, [items]);
  const virtualizer = useVirtualizer({
    count: virtual ? items.length : 0,
    getScrollElement: () => section.current,
    estimateSize: (index) => estimateHeight(items[index]),
    getItemKey: (index) => items[index]?.key ?? index,
    // Rows past the view on each side: each new row is a Markdown parse, and a jump (the scroll bar
    // dragged, Ctrl+Home) renders them all in one frame.
    overscan: 3,
    gap: GAP_PX,
    // Earlier turns read in above keep the entry in view where it was, in the same render (no
    // render of the rows at the old offset first); measured rows keep the end in view at the end.
    anchorTo: 'end',
    scrollMargin,
    rangeExtractor: (range) =>
      pinned.length === 0 && focusIndex < 0
        ? defaultRangeExtractor(range)
        : [...new Set([...defaultRangeExtractor(range), ...pinned, ...(focusIndex >= 0 ? [focusIndex] : [])])].sort((a, b) => a - b),
  });
  const totalSize = virtual ? virtualizer.getTotalSize() : 0;
  useLayoutEffect(() => setScrollMargin(list.current?.offsetTop ?? 0), [virtual, hasEarlier]);
  useEffect(() => {
    // Another conversation opens at its end, wherever the one before was scrolled to.
    knownTop.current = undefined;
    setFollowing(true);
  }, [conversationId]);
  useEffect(() => {
    if (focusShown) {
      if (virtual) {
        virtualizer.scrollToIndex(focusIndex, { align: 'center' });
      } else {
        section.current?.querySelector(`[data-key="${focusKey}"]`)?.scrollIntoView({ block: 'center' });
      }
    } else if (following && !scrolledUpSince(section.current, knownTop.current)) {
      end.current?.scrollIntoView({ block: 'end' });
      knownTop.current = section.current?.scrollTop;
    } else if (following) {
      // The person scrolled up and its scroll event has not come yet (a busy page): they are left
      // where they scrolled to, not taken back to the end.
      setFollowing(false);
    }
    // totalSize changes as rows are measured (the virtualizer itself is stable).
  }, [tick, focusShown, focusIndex, focusKey, following, virtual, totalSize]);
  // Earlier messages loaded above: what the person was reading (the first entry) stays at the top;
  // after Ctrl+Home, the very first entry does.
  const firstKey = items[0]?.key;
  const previousFirst = useRef<string | undefined>(undefined);
  const toStart = useRef(false);
  useLayoutEffect(() => {
    const before = previousFirst.current;
    previousFirst.current = firstKey;
    if (before === undefined || before === firstKey) {
      return;
    }
    if (toStart.current) {
      toStart.current = false;
      if (virtual) {
        virtualizer.scrollToIndex(0, { align: 'start' });
      }
      section.current?.scrollTo({ top: 0 });
      return;
    }
    // A virtual list kept the place itself (`anchorTo`).
    const index = virtual ? -1 : items.findIndex((item) => item.key === before);
    if (index > 0) {
      section.current?.querySelector(`[data-key="${before}"]`)?.scrollIntoView({ block: 'start' });
    }
  }, [firstKey, virtual]);
  const onScroll = (): void => {
    const node = section.current;
    if (node) {
      knownTop.current = node.scrollTop;
      setFollowing(node.scrollHeight - node.scrollTop - node.clientHeight < AT_END_PX);
      // Near the top with earlier turns unread, they are read: twice as many, or at the very top
      // (the scroll bar dragged there, Home) every one, so the first turn is one read away.
      if (hasEarlier && node.scrollTop < node.clientHeight / 2) {
        void showEarlier({ all: node.scrollTop <= 0 });
      }
    }
  };
  // Ctrl+Home goes to the first turn: every earlier one is read first (in a text field it stays the field's).
  const onKeyDown = (event: KeyboardEvent<HTMLElement>): void => {
    if (event.key === 'Home' && (event.ctrlKey || event.metaKey) && hasEarlier && !typing(event.target)) {
      event.preventDefault();
      toStart.current = true;
      setFollowing(false);
      // Once the read is shown (or failed), a later read keeps the place again.
      void showEarlier({ all: true }).finally(() => requestAnimationFrame(() => (toStart.current = false)));
    }
  };
  if (!transcript || items.length === 0) {
    return (
      <section className="transcript transcript-empty" aria-label="Transcript">
        <p>Pick an agent and a working folder, then write your first message.</p>
        <WhereItRuns />
      </section>
    );
  }
  const lastReply = transcript.activeTurnId === null ? items.findLast((candidate) => candidate.kind === 'agent') : undefined;
  // The last turn, when it failed: its error offers Retry.
  const lastMessage =
    transcript.activeTurnId === null ? items.findLast((candidate) => candidate.kind === 'user' && !candidate.steered) : undefined;
  const failedTurnId =
    lastMessage?.turnId !== undefined && ['failed', 'interrupted'].includes(transcript.turns[lastMessage.turnId]?.status ?? '')
      ? lastMessage.turnId
      : undefined;
  const { turns } = transcript;
  const entry = (item: TranscriptItem): ReactNode =>
    item.kind === 'attempts' ? (
      attemptsCard(item, transcript.conversationId)
    ) : (
      <TranscriptEntry
        item={item}
        lastReply={
          item === lastReply ||
          (item.kind === 'notice' && item.severity === 'error' && item.turnId !== undefined && item.turnId === failedTurnId)
        }
        terminals={item.kind === 'tool' || item.kind === 'subagent' ? transcript.terminals : undefined}
        agentName={item.kind === 'permission' ? (transcript.turns[item.turnId]?.agentName ?? transcript.agentName) : undefined}
        toolKind={item.kind === 'permission' ? toolOfPermission(items, item)?.toolKind : undefined}
        toolInput={item.kind === 'permission' ? toolOfPermission(items, item)?.rawInput : undefined}
        turnUsage={item.kind === 'agent' && lastOfTurn.get(item.turnId) === item.key ? usageOf(turns[item.turnId]) : undefined}
        selfApprovingMode={item.kind === 'agent' ? turns[item.turnId]?.selfApprovingMode : undefined}
        turnCheckpoints={
          (item.kind === 'agent' || item.kind === 'user') && filesAt.get(item.turnId) === item.key
            ? turns[item.turnId]?.checkpoints
            : undefined
        }
        turnWritten={
          (item.kind === 'agent' || item.kind === 'user') && filesAt.get(item.turnId) === item.key ? turns[item.turnId]?.written : undefined
        }
        rewound={item.kind === 'rewind' ? rewoundOf(transcript, item) : undefined}
      />
    );
  return (
    <section
      ref={section}
      className="transcript"
      aria-label="Transcript"
      aria-busy={transcript.activeTurnId !== null}
      data-virtual={virtual ? 'true' : undefined}
      data-entries={items.length}
      onScroll={onScroll}
      onKeyDown={onKeyDown}
    >
      {hasEarlier ? (
        <button type="button" className="show-earlier" onClick={() => void showEarlier()}>
          Show earlier messages
        </button>
      ) : null}
      {virtual ? (
        <div ref={list} className="virtual-entries" style={{ height: totalSize }}>
          {virtualizer.getVirtualItems().map((row) => {
            const item = items[row.index]!;
            return (
              <div
                key={item.key}
                ref={virtualizer.measureElement}
                data-index={row.index}
                data-key={item.key}
                className={item.key === focusKey ? 'entry focused' : 'entry'}
                style={{ transform: `translateY(${row.start - scrollMargin}px)` }}
              >
                {entry(item)}
              </div>
            );
          })}
        </div>
      ) : (
        items.map((item) => (
          <div key={item.key} data-key={item.key} className={item.key === focusKey ? 'entry focused' : 'entry'}>
            {entry(item)}
          </div>
        ))
      )}
      {transcript.activeTurnId !== null ? <WorkingIndicator transcript={transcript} turnId={transcript.activeTurnId} /> : null}
      <div ref={end} />
      {!following ? (
        <button
          type="button"
          className="jump-to-latest"
          onClick={() => {
            setFollowing(true);
            end.current?.scrollIntoView({ block: 'end' });
            knownTop.current = section.current?.scrollTop;
          }}
        >
          Jump to latest
        </button>
      ) : null}
    </section>
  );
}

const EMPTY_ITEMS: TranscriptItem[] = [];

/** Follows the end only this far above it. */
const AT_END_PX = 48;

/**
 * Whether the view is now well above where it was last seen, and away from the end: the person
 * scrolled up. New content and measured entries move the end, not the view, and an entry above
 * measured smaller moves both together.
 */
function scrolledUpSince(node: HTMLElement | null, knownTop: number | undefined): boolean {
  if (!node || knownTop === undefined) {
    return false;
  }
  return knownTop - node.scrollTop > AT_END_PX && node.scrollHeight - node.scrollTop - node.clientHeight >= AT_END_PX;
}

/** A turn's reported usage, if it reported any (the same objects, so entries are not re-rendered for nothing). */
function usageOf(turn: TurnState | undefined): Pick<TurnState, 'usage' | 'tokens'> | undefined {
  return turn && (turn.usage || turn.tokens) ? turn : undefined;
}

/** The key of the entry that shows `key`: itself, or for a set-aside message the marker of the rewind that set it aside. */
function shownKey(items: readonly TranscriptItem[], setAside: TranscriptState['setAside'] | undefined, key: string): string {
  const item = items.find((candidate) => candidate.key === key);
  const rewindId = item?.turnId !== undefined ? setAside?.[item.turnId] : undefined;
  const marker = rewindId ? items.find((candidate) => candidate.kind === 'rewind' && candidate.rewindId === rewindId) : undefined;
  return marker?.key ?? key;
}

/** Under a rewind's marker: the messages it set aside (while still set aside), and whether it can be undone. */
function rewoundOf(transcript: TranscriptState, item: Extract<TranscriptItem, { kind: 'rewind' }>): { aside: string[]; canUndo: boolean } {
  const aside = transcript.items.flatMap((candidate) =>
    candidate.kind === 'user' && !candidate.steered && transcript.setAside[candidate.turnId] === item.rewindId ? [candidate.text] : [],
  );
  return { aside, canUndo: canUndoRewind(transcript, item) };
}

/** After this long without a word from the agent, the indicator says it is still waiting. */
const SILENT_AFTER_MS = 5_000;

/**
 * "Working…" with the time since the person's message; while the agent has not answered at all,
 * it says so. Ticks once a second only while a turn runs, so an idle window does no work.
 */
function WorkingIndicator({ transcript, turnId }: { transcript: TranscriptState; turnId: string }) {
  const turn = transcript.turns[turnId];
  const startedAt = turn ? Date.parse(turn.startedAt) : Date.now();
  const now = useNow(true);
  const elapsedMs = Math.max(0, now - startedAt);
  const answered = transcript.items.some((item) => item.turnId === turnId && item.kind !== 'user');
  const elapsed = formatElapsed(elapsedMs);
  const agentName = turn?.agentName ?? transcript.agentName;
  // What it is doing now: the newest tool call of the turn that has not finished.
  const doing = transcript.items.findLast(
    (item) =>
      item.kind === 'tool' &&
      item.turnId === turnId &&
      (item.status === 'in_progress' || item.status === 'pending' || item.status === 'awaiting_permission'),
  );
  return (
    <p className="working" role="timer" aria-label={`${agentName} is working`}>
      {!answered && elapsedMs >= SILENT_AFTER_MS
        ? `Waiting for ${agentName} to answer… ${elapsed}, nothing yet. Stop ends the turn.`
        : `${agentName} is working… ${elapsed}`}
      {doing?.kind === 'tool' ? (
        <span className="working-now">
          {' '}
          — now: {doing.title}
          {doing.status === 'awaiting_permission' ? ' (waiting for your answer)' : ''}
        </span>
      ) : null}
    </p>
  );
}

/** Before a new conversation's first message: the agent and the folder it will work in. */
function WhereItRuns() {
  const draft = useBaton((state) => (state.selection.kind === 'draft' ? state.draft : undefined));
  const agentName = useBaton((state) => state.agents.find((agent) => agent.agentId === state.draft.agentId)?.displayName);
  const problem = useBaton((state) => state.draftFolderProblem);
  const cwd = draft?.cwd.trim();
  if (!draft || !agentName) {
    return null;
  }
  if (!cwd) {
    return (
      <p className="hint where-it-runs" role="status">
        Choose the folder {agentName} will work in: type its path in Working folder, or pick one of your recent folders.
      </p>
    );
  }
  if (problem) {
    return (
      <p className="notice notice-warning where-it-runs" role="alert">
        {problem} Choose another working folder.
      </p>
    );
  }
  return (
    <p className="hint where-it-runs" role="status">
      {agentName} will work in <code>{cwd}</code>: it can read and change the files there, asking you first where it asks.
    </p>
  );
}
