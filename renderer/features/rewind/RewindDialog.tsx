/**
 * Dialog "Rewind": the messages a rewind to one of the person's messages sets aside (kept, never
 * deleted), list "Files that will change" (each restored, removed or recreated, with its diff),
 * the files the person changed since the last checkpoint and those changed outside any turn
 * (each put back only when ticked), what it cannot put back, and the choice to rewind the conversation only. And dialog "Branch from here":
 * a new conversation with the history before a message, with the same or another agent, its
 * files restored only when asked.
 */
import { useEffect, useRef } from 'react';
import type { Result } from '../../../app/ipc/index.js';
import { Banner, DialogFrame } from '../../components/DialogFrame.js';
import { TickedFiles } from '../../components/TickedFiles.js';
import { useBaton } from '../../store/index.js';
import { AgentPicker } from '../agents/AgentPicker.js';
import { FileDiff } from '../transcript/FileDiff.js';
import { Tick } from '../../components/Tick.js';

type PlannedFile = Result<'previewRewind'>['files'][number];

/** One file of the plan: what happens to it, and its diff (now → after the rewind). */
function PlannedFileView({ file }: { file: PlannedFile }) {
  if (file.binary || file.after === null) {
    return (
      <p>
        <code>{file.path}</code> {file.action}
        {file.binary ? ' (not text)' : ''}
      </p>
    );
  }
  return <FileDiff path={file.path} oldText={file.before} newText={file.after} />;
}

/** Dialog "Rewind". */
export function RewindDialog() {
  const dialog = useBaton((state) => state.rewindDialog);
  const close = useBaton((state) => state.closeRewind);
  const choose = useBaton((state) => state.setRewindChoice);
  const confirm = useBaton((state) => state.confirmRewind);
  if (!dialog) {
    return null;
  }
  const { preview } = dialog;
  const agentFiles = preview?.files.filter((file) => !file.changedByYou && !file.outsideTurn) ?? [];
  const yourFiles = preview?.files.filter((file) => file.changedByYou) ?? [];
  const outsideFiles = preview?.files.filter((file) => file.outsideTurn) ?? [];
  return (
    <DialogFrame
      open
      id="rewind-title"
      title="Rewind"
      className="rewind-dialog"
      hint={
        <>
          The conversation goes back to before this message, which returns to the message box for you to edit and send. What comes after it
          is set aside: kept, and never sent to an agent again.
        </>
      }
      onClose={() => close()}
      actions={
        <>
          <button type="button" className="primary" disabled={dialog.busy || !preview} onClick={() => void confirm()}>
            Rewind
          </button>
          <button type="button" onClick={() => close()}>
            Cancel
          </button>
        </>
      }
    >
      {!preview && !dialog.problem ? <p aria-busy="true">Comparing the folder with its checkpoints…</p> : null}
      {preview ? (
        <>
          <h3>Set aside</h3>
          <ul className="rewind-aside" aria-label="Messages that will be set aside">
            {preview.setAside.map((turn) => (
              <li key={turn.turnId} className="plain-text">
                {turn.text}
              </li>
            ))}
          </ul>
          {preview.unavailable ? (
            <Banner kind="warning" alert={false}>
              {preview.unavailable}
            </Banner>
          ) : null}
          {!preview.unavailable ? (
            <Tick className="checkbox" checked={dialog.keepFiles} onChange={(checked) => choose({ keepFiles: checked })}>
              Rewind the conversation only and keep the files as they are
            </Tick>
          ) : null}
          {!preview.unavailable && !dialog.keepFiles ? (
            <>
              <h3>Files that will change</h3>
              {agentFiles.length === 0 ? <p className="hint">No file the agent changed needs to be put back.</p> : null}
              <ul className="rewind-files" aria-label="Files that will change">
                {agentFiles.map((file) => (
                  <li key={file.path} aria-label={`${file.path}: ${file.action}`}>
                    <PlannedFileView file={file} />
                  </li>
                ))}
              </ul>
              <TickedFiles
                title="Files you changed since"
                hint="You changed these after the agent's last turn. They are left as they are unless you tick them."
                files={yourFiles}
                ticked={dialog.overwrite}
                tick={(path, on) => choose({ overwrite: { path, on } })}
                itemName={(file) => `${file.path}: ${file.action}`}
                boxLabel={(file) => `Overwrite ${file.path} (${file.action})`}
                view={(file) => <PlannedFileView file={file} />}
              />
              <TickedFiles
                title="Changed outside a turn"
                hint="These differ from that point, but no turn changed them: you did, or something the agent left running did between turns. They are left as they are unless you tick them."
                files={outsideFiles}
                ticked={dialog.overwrite}
                tick={(path, on) => choose({ overwrite: { path, on } })}
                itemName={(file) => `${file.path}: ${file.action}, changed outside a turn`}
                boxLabel={(file) => `Put back ${file.path} (${file.action})`}
                view={(file) => <PlannedFileView file={file} />}
              />
              {preview.cannot.length > 0 ? (
                <Banner kind="warning" alert={false}>
                  {`These cannot be put back: ${preview.cannot.map((file) => `${file.path} (${file.reason})`).join(', ')}.`}
                </Banner>
              ) : null}
            </>
          ) : null}
        </>
      ) : null}
      {dialog.problem ? <Banner kind="error">{dialog.problem}</Banner> : null}
    </DialogFrame>
  );
}

/** What the branch's files will be, by where it works and whether the files of that point are asked for. */
const FILES_HINT = {
  here: {
    restored: 'The files the agent changed after that point are put back as they were then (files you changed since are left alone).',
    asNow: 'The files stay as they are now.',
  },
  copy: { restored: 'The copy holds the files as they were before this message.', asNow: 'The copy holds the files as they are now.' },
} as const;

/** Dialog "Branch from here". */
export function BranchDialog() {
  const dialog = useBaton((state) => state.branchDialog);
  const agents = useBaton((state) => state.agents);
  const close = useBaton((state) => state.closeBranch);
  const choose = useBaton((state) => state.setBranchChoice);
  const confirm = useBaton((state) => state.confirmBranch);
  const picker = useRef<HTMLDivElement>(null);
  const open = dialog !== null;
  useEffect(() => {
    if (open) {
      picker.current?.querySelector('input')?.focus();
    }
  }, [open]);
  if (!dialog) {
    return null;
  }
  return (
    <DialogFrame
      open
      id="branch-title"
      title="Branch from here"
      className="branch-dialog"
      hint={<>A new conversation with everything before this message, which goes to its message box. This conversation stays as it is.</>}
      onClose={() => close()}
      actions={
        <>
          <button type="button" className="primary" disabled={dialog.busy} onClick={() => void confirm()}>
            Branch
          </button>
          <button type="button" onClick={() => close()}>
            Cancel
          </button>
        </>
      }
    >
      <div className="field" ref={picker}>
        <span aria-hidden="true">Agent</span>
        <AgentPicker agents={agents} value={dialog.agentId} onChange={(agentId) => choose({ agentId })} />
      </div>
      <Tick className="checkbox" checked={dialog.ownCopy} onChange={(checked) => choose({ ownCopy: checked })}>
        In its own copy of the folder
      </Tick>
      <p className="hint">
        {dialog.ownCopy
          ? "The branch works in a copy of its own (a git worktree on a new branch where the folder is in a repository, else a copy in Baton's data folder), so the two never edit the same files. Your folder is left as it is."
          : 'The branch works in this folder, as this conversation does.'}
      </p>
      <Tick className="checkbox" checked={dialog.restoreFiles} onChange={(checked) => choose({ restoreFiles: checked })}>
        {dialog.ownCopy ? 'Start the copy from the files of that point' : 'Restore the files of that point in this folder'}
      </Tick>
      <p className="hint">{FILES_HINT[dialog.ownCopy ? 'copy' : 'here'][dialog.restoreFiles ? 'restored' : 'asNow']}</p>
      {dialog.problem ? <Banner kind="error">{dialog.problem}</Banner> : null}
    </DialogFrame>
  );
}
