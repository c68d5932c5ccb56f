/**
 * Dialog "Compare attempts": each attempt's changes against the folder as they started, or any two
 * attempts against each other, in the diff view. Dialog "Keep this attempt": the files it writes
 * into the working folder; files the person changed since the attempts started are left alone
 * unless ticked.
 */
import { useState } from 'react';
import type { Result } from '../../../app/ipc/index.js';
import { Banner, DialogFrame } from '../../components/DialogFrame.js';
import { TickedFiles } from '../../components/TickedFiles.js';
import { useBaton } from '../../store/index.js';
import { FileDiff } from '../transcript/FileDiff.js';
import { ChoicePicker } from '../../components/ChoicePicker.js';

type Compared = Result<'compareAttempts'>['attempts'][number];
type ComparedFile = Compared['files'][number];

/** One file's diff (a removal and a binary file in words). */
function FileChangeView({
  path,
  before,
  after,
  binary,
  change,
}: {
  path: string;
  before: string | null;
  after: string | null;
  binary: boolean;
  change: string;
}) {
  if (binary || after === null) {
    return (
      <p>
        <code>{path}</code> {change}
        {binary ? ' (not text)' : ''}
      </p>
    );
  }
  return <FileDiff path={path} oldText={before} newText={after} />;
}

/**
 * Two attempts' files against each other: for each file either changed, one's text beside the other's (the start's where it left it alone).
 */
function pairFiles(left: Compared, right: Compared): Array<{ path: string; before: string | null; after: string | null; binary: boolean }> {
  const paths = [...new Set([...left.files.map((file) => file.path), ...right.files.map((file) => file.path)])].sort();
  const byPath = (files: readonly ComparedFile[]) => new Map(files.map((file) => [file.path, file]));
  const ours = byPath(left.files);
  const theirs = byPath(right.files);
  return paths.flatMap((path) => {
    const a = ours.get(path);
    const b = theirs.get(path);
    const start = a?.before ?? b?.before ?? null;
    const leftText = a ? a.after : start;
    const rightText = b ? b.after : start;
    return leftText === rightText ? [] : [{ path, before: leftText, after: rightText, binary: Boolean(a?.binary || b?.binary) }];
  });
}

/** Dialog "Compare attempts". */
export function CompareDialog() {
  const dialog = useBaton((state) => state.compareDialog);
  const changes = useBaton((state) => (state.compareDialog ? state.attemptChanges[state.compareDialog.attemptsId] : undefined));
  const close = useBaton((state) => state.closeCompare);
  const [view, setView] = useState('start');
  if (!dialog) {
    return null;
  }
  const attempts = changes && 'attempts' in changes ? changes.attempts : [];
  const pairs = attempts.flatMap((left, index) =>
    attempts.slice(index + 1).map((right) => ({ key: `${left.attemptId}:${right.attemptId}`, left, right })),
  );
  const pair = pairs.find((candidate) => candidate.key === view);
  return (
    <DialogFrame
      open
      id="compare-attempts-title"
      title="Compare attempts"
      className="compare-dialog"
      hint={<>What each agent changed, against your folder as the attempts started; or two attempts against each other.</>}
      onClose={() => close()}
      actions={
        <button type="button" onClick={() => close()}>
          Close
        </button>
      }
    >
      <div className="field">
        <span aria-hidden="true">Show</span>
        <ChoicePicker
          label="Show"
          value={view}
          onChange={setView}
          entries={[
            { value: 'start', name: 'Each attempt against the start' },
            ...pairs.map((candidate) => ({
              value: candidate.key,
              name: `${candidate.left.agentName} against ${candidate.right.agentName}`,
            })),
          ]}
        />
      </div>
      {!changes ? <p aria-busy="true">Reading the attempts' copies…</p> : null}
      {changes && 'problem' in changes ? <Banner kind="error">{changes.problem}</Banner> : null}
      {pair ? (
        <section aria-label={`${pair.left.agentName} against ${pair.right.agentName}`}>
          <h3>
            {pair.left.agentName} → {pair.right.agentName}
          </h3>
          {pairFiles(pair.left, pair.right).map((file) => (
            <FileChangeView
              key={file.path}
              path={file.path}
              before={file.before}
              after={file.after}
              binary={file.binary}
              change="differs"
            />
          ))}
          {pairFiles(pair.left, pair.right).length === 0 ? <p className="hint">They changed the files the same way.</p> : null}
        </section>
      ) : (
        attempts.map((attempt) => (
          <section key={attempt.attemptId} aria-label={`Changes by ${attempt.agentName}`}>
            <h3>{attempt.agentName}</h3>
            {attempt.unavailable !== null ? <p className="hint">{attempt.unavailable}</p> : null}
            {attempt.unavailable === null && attempt.files.length === 0 ? <p className="hint">No file changed.</p> : null}
            {attempt.files.map((file) => (
              <FileChangeView
                key={file.path}
                path={file.path}
                before={file.before}
                after={file.after}
                binary={file.binary}
                change={file.change}
              />
            ))}
          </section>
        ))
      )}
    </DialogFrame>
  );
}

/** Dialog "Keep this attempt". */
export function KeepDialog() {
  const dialog = useBaton((state) => state.keepDialog);
  const close = useBaton((state) => state.closeKeep);
  const tick = useBaton((state) => state.setKeepOverwrite);
  const confirm = useBaton((state) => state.confirmKeep);
  if (!dialog) {
    return null;
  }
  const { preview } = dialog;
  const theirs = preview?.files.filter((file) => !file.changedByYou) ?? [];
  const yours = preview?.files.filter((file) => file.changedByYou) ?? [];
  return (
    <DialogFrame
      open
      id="keep-attempt-title"
      title="Keep this attempt"
      className="keep-dialog"
      hint={
        <>
          {dialog.agentName}'s changes are written into your folder and the conversation goes on with {dialog.agentName}. The other attempts
          stay in the conversation, folded; their copies are removed.
        </>
      }
      onClose={() => close()}
      actions={
        <>
          <button type="button" className="primary" disabled={dialog.busy || !preview} onClick={() => void confirm()}>
            Keep
          </button>
          <button type="button" onClick={() => close()}>
            Cancel
          </button>
        </>
      }
    >
      {!preview && !dialog.problem ? <p aria-busy="true">Comparing {dialog.agentName}'s copy with your folder…</p> : null}
      {preview ? (
        <>
          <h3>Files that will change</h3>
          {theirs.length === 0 ? (
            <p className="hint">{yours.length === 0 ? `${dialog.agentName} changed no file.` : 'Only files you changed since (below).'}</p>
          ) : null}
          <ul className="rewind-files" aria-label="Files that will change">
            {theirs.map((file) => (
              <li key={file.path} aria-label={`${file.path}: ${file.change}`}>
                <FileChangeView {...file} />
              </li>
            ))}
          </ul>
          <TickedFiles
            title="Files you changed since"
            hint="You changed these after the attempts started. They are left as they are unless you tick them."
            files={yours}
            ticked={dialog.overwrite}
            tick={tick}
            itemName={(file) => `${file.path}: ${file.change}`}
            boxLabel={(file) => `Overwrite ${file.path} with ${dialog.agentName}'s`}
            view={(file) => <FileChangeView {...file} />}
          />
          {preview.cannot.length > 0 ? (
            <Banner
              kind="warning"
              alert={false}
            >{`These cannot be kept: ${preview.cannot.map((file) => `${file.path} (${file.reason})`).join(', ')}.`}</Banner>
          ) : null}
        </>
      ) : null}
      {dialog.problem ? <Banner kind="error">{dialog.problem}</Banner> : null}
    </DialogFrame>
  );
}
