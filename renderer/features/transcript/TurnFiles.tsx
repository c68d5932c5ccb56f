/**
 * A turn's "Files changed in this turn": what changed in the working folder between the
 * checkpoints taken before and after the turn, by any means (the agent's own tools included),
 * each with its diff; what changed between the turn before and this one (outside any turn); and
 * what the checkpoints could not keep (files over the size limit, files
 * that could not be read, a folder that gets no checkpoints). Asked of the host when opened.
 */
import { useEffect, useState } from 'react';
import type { Result } from '../../../app/ipc/index.js';
import type { TurnState } from '../../../app/transcript/index.js';
import { useBaton } from '../../store/index.js';
import { useScopedConversation } from '../../components/conversationScope.js';
import { FileDiff } from './FileDiff.js';

type Changes = Result<'listTurnChanges'>;

const CHANGE_NAMES = { added: 'added', modified: 'changed', removed: 'removed' } as const;

/** The disclosure, for a turn whose checkpoints were taken. */
export function TurnFiles({
  turnId,
  checkpoints,
  written = [],
}: {
  turnId: string;
  checkpoints: NonNullable<TurnState['checkpoints']>;
  written?: TurnState['written'];
}) {
  const [open, setOpen] = useState(false);
  const [changes, setChanges] = useState<Changes | null>(null);
  const fetchChanges = useBaton((state) => state.fetchTurnChanges);
  const scoped = useScopedConversation();
  useEffect(() => {
    if (open && changes === null) {
      void fetchChanges(turnId, scoped).then(setChanges);
    }
  }, [open, changes, fetchChanges, turnId, scoped]);
  const { before, after } = checkpoints;
  const errors = [before?.error, after?.error].filter((error): error is string => Boolean(error));
  const leftOut = [
    ...new Map(
      [...(before?.tooLarge ?? []), ...(after?.tooLarge ?? []), ...(before?.failed ?? []), ...(after?.failed ?? [])].map((entry) => [
        entry.path,
        entry,
      ]),
    ).values(),
  ];
  // A turn that changed no file (and wrote none through Baton) says nothing about files.
  if (!after || (after.changed === 0 && written.length === 0 && errors.length === 0 && leftOut.length === 0)) {
    return null;
  }
  return (
    <details className="turn-files" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        Files changed in this turn
        {errors.length > 0 ? (
          <span className="turn-files-warning"> · no checkpoint</span>
        ) : leftOut.length > 0 ? (
          <span className="turn-files-warning"> · {leftOut.length} not kept</span>
        ) : null}
      </summary>
      {errors.length > 0 ? <p className="notice notice-warning">{`No checkpoint of the folder: ${errors[0]}`}</p> : null}
      {leftOut.length > 0 ? (
        <p className="notice notice-warning">
          {`Not kept in the checkpoints: ${leftOut.map((entry) => `${entry.path} (${entry.reason})`).join(', ')}`}
        </p>
      ) : null}
      {written.length > 0 ? (
        <p className="hint" aria-label="Written through Baton">
          {`Written by the agent through Baton: ${written.map((entry) => `${entry.path} (${entry.created ? 'new, ' : ''}${entry.bytes} bytes)`).join(', ')}`}
        </p>
      ) : null}
      {open && changes === null ? <p aria-busy="true">Comparing the checkpoints…</p> : null}
      {changes?.unavailable ? <p className="hint">{changes.unavailable}</p> : null}
      {changes?.approximate ? (
        <p className="hint">
          Approximate: the agent started before Baton had finished looking at the folder, so its first changes may be missing here.
        </p>
      ) : null}
      {changes && !changes.unavailable && changes.changes.length === 0 ? <p className="hint">No file changed.</p> : null}
      {changes && changes.changes.length > 0 ? <ChangeList label="Files changed in this turn" changes={changes.changes} /> : null}
      {changes && changes.sinceLastTurn.length > 0 ? (
        <>
          <h4>Changed since the last turn ended</h4>
          <p className="hint">No turn was running: you changed these, or something the agent left running did.</p>
          <ChangeList label="Changed since the last turn ended" changes={changes.sinceLastTurn} />
        </>
      ) : null}
    </details>
  );
}

/** A list of file changes, each with its diff. */
function ChangeList({ label, changes }: { label: string; changes: Changes['changes'] }) {
  return (
    <ul className="turn-file-list" aria-label={label}>
      {changes.map((change) => (
        <li key={change.path} aria-label={`${change.path}: ${CHANGE_NAMES[change.change]}`}>
          {change.binary ? (
            <p>
              <code>{change.path}</code> {CHANGE_NAMES[change.change]} (not text)
            </p>
          ) : change.change === 'removed' ? (
            <p>
              <code>{change.path}</code> removed
            </p>
          ) : (
            <FileDiff path={change.path} oldText={change.before} newText={change.after ?? ''} />
          )}
        </li>
      ))}
    </ul>
  );
}
