/**
 * Dialog "Instructions": the person's own instructions (every conversation) and this
 * conversation's, each with its intent, and for the pane's agent where each part will land (or
 * why it cannot), Baton's own note, the digest, and the person's choices for that agent.
 */
import { useEffect, useRef } from 'react';
import type { InstructionIntent, InstructionText } from '../../../app/instructions/bundle.js';
import type { InjectorChoice } from '../../../app/instructions/injectors.js';
import type { InstructionPreview } from '../../../app/ipc/index.js';
import { Banner, DialogFrame } from '../../components/DialogFrame.js';
import { useBaton } from '../../store/index.js';
import type { CannotTake } from '../../store/types.js';
import { Tick } from '../../components/Tick.js';

const INTENTS: Array<{ intent: InstructionIntent; label: string }> = [
  { intent: 'append', label: "Add to the agent's prompt" },
  { intent: 'replace', label: "Replace the agent's prompt" },
];

/** A text and its intent, named alike: textbox and radio group "<label>". */
function InstructionField({
  id,
  label,
  hint,
  value,
  onChange,
}: {
  id: string;
  label: string;
  hint: string;
  value: InstructionText;
  onChange: (changes: Partial<InstructionText>) => void;
}) {
  return (
    <div className="instruction-field">
      <label htmlFor={`${id}-text`} className="instruction-label">
        {label} <span className="hint">({hint})</span>
      </label>
      <textarea
        id={`${id}-text`}
        aria-label={label}
        rows={5}
        value={value.text}
        onChange={(event) => onChange({ text: event.target.value })}
      />
      <div role="radiogroup" aria-label={label} className="instruction-intent">
        {INTENTS.map(({ intent, label: intentLabel }) => (
          <label key={intent}>
            <input
              type="radio"
              name={`${id}-intent`}
              value={intent}
              checked={value.intent === intent}
              onChange={() => onChange({ intent })}
            />
            {intentLabel}
          </label>
        ))}
      </div>
    </div>
  );
}

const ORIGINS: Record<InstructionPreview['injectors']['available'][number]['origin'], string> = {
  builtin: 'built into Baton',
  data: 'your instructions folder',
  folder: 'this folder, as you trusted it',
};

/**
 * List "Injectors": a checkbox per available injector, named by its name, with its timing and where it comes from; the conversation's off
 * switch.
 */
function InjectorChooser({
  preview,
  choice,
  onChange,
}: {
  preview: InstructionPreview;
  choice: InjectorChoice;
  onChange: (changes: { select?: { name: string; selected: boolean }; off?: boolean }) => void;
}) {
  const { available, broken } = preview.injectors;
  return (
    <section className="injectors" aria-labelledby="injectors-title">
      <h3 id="injectors-title">Injectors</h3>
      <p className="hint">
        Packages of instructions and context for this conversation: every-turn instructions join the prompt; the rest travels with the turns
        it belongs to, shown apart from your messages.
      </p>
      <Tick className="checkbox" checked={choice.off} onChange={(checked) => onChange({ off: checked })}>
        Turn all injectors off for this conversation
      </Tick>
      <ul aria-label="Injectors" className="injector-list">
        {available.map((injector) => (
          <li key={injector.name}>
            <Tick
              label={injector.name}
              describedBy={`injector-${injector.name}-about`}
              checked={choice.names.includes(injector.name)}
              disabled={choice.off}
              onChange={(checked) => onChange({ select: { name: injector.name, selected: checked } })}
            >
              <strong>{injector.name}</strong>
            </Tick>
            <span id={`injector-${injector.name}-about`} className="hint">
              {' '}
              — {injector.timingName}; {ORIGINS[injector.origin]}
              {injector.origin === 'builtin' ? '' : ` (${injector.folder})`}
              {injector.description ? `. ${injector.description}` : ''}
            </span>
            {injector.ignored.length > 0 ? (
              <p className="notice notice-warning">
                Its manifest also names {injector.ignored.join(', ')}: ignored, an injector contributes only text.
              </p>
            ) : null}
          </li>
        ))}
      </ul>
      {broken.map((entry) => (
        <p key={`${entry.origin}-${entry.name}`} role={entry.selected ? 'alert' : undefined} className="notice notice-error">
          Injector {entry.name}
          {entry.folder ? ` (${entry.folder})` : ''} cannot be used: {entry.problem}
          {entry.selected ? (
            <>
              {' '}
              <button type="button" onClick={() => onChange({ select: { name: entry.name, selected: false } })}>
                Deselect {entry.name}
              </button>
            </>
          ) : null}
        </p>
      ))}
    </section>
  );
}

/** A part's exact text and its digest, folded. */
function ExactText({ text, sha256 }: { text: string; sha256: string }) {
  return (
    <details>
      <summary>Exact text</summary>
      <pre>{text}</pre>
      <p className="digest">
        sha256 <code>{sha256}</code>
      </p>
    </details>
  );
}

/** Said on Save: the agents that would refuse the instructions as chosen, each with its ways out. */
function CannotTakeList({ agents }: { agents: CannotTake[] }) {
  const setAgentSettings = useBaton((state) => state.setAgentInstructionSettings);
  const shown = useRef<HTMLElement>(null);
  useEffect(() => {
    shown.current?.scrollIntoView({ block: 'nearest' });
  }, []);
  return (
    <section ref={shown} className="cannot-take" role="alert" aria-labelledby="cannot-take-title">
      <h3 id="cannot-take-title">Agents that cannot take these instructions</h3>
      <p>
        Messages to these agents would be refused as the instructions stand. Choose for each, change the instructions, or save anyway (a
        refusal then offers the same choices).
      </p>
      <ul aria-label="Agents that cannot take these instructions">
        {agents.map((agent) => (
          <li key={agent.agentId}>
            <strong>{agent.agentName}</strong>: {agent.refusal}.
            <div role="group" aria-label={`Choices for ${agent.agentName}`} className="dialog-inline-actions">
              <button type="button" onClick={() => void setAgentSettings({ off: true }, agent.agentId)}>
                Don&apos;t send my instructions to {agent.agentName}
              </button>
              {agent.commandLine ? (
                <button
                  type="button"
                  title="Other users of this computer can read them in the process list"
                  onClick={() => void setAgentSettings({ commandLineAccepted: true }, agent.agentId)}
                >
                  Allow for {agent.agentName}
                </button>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The dialog, shown while `instructionsDialog` is set. */
export function InstructionsDialog() {
  const dialog = useBaton((state) => state.instructionsDialog);
  const close = useBaton((state) => state.closeInstructions);
  const edit = useBaton((state) => state.editInstructions);
  const save = useBaton((state) => state.saveInstructions);
  const setAgentSettings = useBaton((state) => state.setAgentInstructionSettings);
  const setFolderTrust = useBaton((state) => state.setFolderTrust);
  const editInjectors = useBaton((state) => state.editInjectors);
  if (!dialog) {
    return null;
  }
  const { preview } = dialog;
  // Found on Save: the agents that would refuse them. Save then saves anyway.
  const refusing = dialog.cannotTake !== undefined && dialog.cannotTake.length > 0 ? dialog.cannotTake : null;
  return (
    <DialogFrame
      open={true}
      id="instructions-title"
      title="Instructions"
      className="instructions-dialog"
      hint={<>Delivered at the level you ask for through each agent&apos;s own channel, or refused. Never sent as message text.</>}
      onClose={() => close()}
      actions={
        <>
          <button type="button" onClick={() => close()}>
            Cancel
          </button>
          <button
            type="button"
            className="primary"
            disabled={dialog.saving}
            aria-busy={dialog.checking ? true : undefined}
            onClick={() => void save(refusing !== null)}
          >
            {dialog.checking ? 'Checking the agents…' : refusing ? 'Save anyway' : 'Save'}
          </button>
        </>
      }
    >
      <InstructionField
        id="person"
        label="Your instructions"
        hint="every conversation"
        value={dialog.person}
        onChange={(changes) => edit('person', changes)}
      />
      {preview && dialog.profile ? (
        <InstructionField
          id="profile"
          label={`Instructions for ${preview.agentName}`}
          hint={preview.profile.revision === 0 ? 'its profile, not written yet' : `its profile, revision ${preview.profile.revision}`}
          value={dialog.profile}
          onChange={(changes) => edit('profile', changes)}
        />
      ) : null}
      <InstructionField
        id="conversation"
        label="This conversation's instructions"
        hint="this conversation only"
        value={dialog.conversation}
        onChange={(changes) => edit('conversation', changes)}
      />
      {preview ? <InjectorChooser preview={preview} choice={dialog.injectors} onChange={editInjectors} /> : null}
      {preview && preview.project.state !== 'none' ? (
        <section className="folder-trust" aria-label="This folder's instructions">
          <h3>This folder&apos;s instructions</h3>
          <p className="hint">
            {preview.project.folder}:{' '}
            {[
              preview.project.text !== null ? '.baton/instructions.md' : null,
              preview.project.injectors.length > 0
                ? `injectors in .agents/instructions/ (${preview.project.injectors.map((entry) => entry.dir).join(', ')})`
                : null,
            ]
              .filter(Boolean)
              .join(' and ')}
            {preview.project.state === 'untrusted'
              ? ' — not trusted: it contributes nothing.'
              : preview.project.state === 'changed'
                ? ' — changed since you trusted it: what you trusted is still the one used.'
                : ' — trusted.'}
          </p>
          {preview.project.problem ? <Banner kind="error">{preview.project.problem}</Banner> : null}
          {preview.project.changes.length > 0 ? (
            <ul aria-label="Changed since you trusted it" className="folder-changes">
              {preview.project.changes.map((change) => (
                <li key={change}>{change}</li>
              ))}
            </ul>
          ) : null}
          {preview.project.state === 'changed' && preview.project.trustedText !== null ? (
            <>
              <p>You trusted:</p>
              <pre className="folder-text">{preview.project.trustedText}</pre>
              <p>It now says:</p>
            </>
          ) : null}
          {preview.project.text !== null ? <pre className="folder-text">{preview.project.text}</pre> : null}
          {preview.project.injectors.map((entry) => (
            <details key={entry.dir} className="folder-injector">
              <summary>
                .agents/instructions/{entry.dir}/ —{' '}
                {entry.problem ? `cannot be used: ${entry.problem}` : `${entry.files.length} file${entry.files.length === 1 ? '' : 's'}`}
              </summary>
              {entry.files.map((file) => (
                <div key={file.file}>
                  <p className="hint">{file.file}</p>
                  <pre className="folder-text">{file.text}</pre>
                </div>
              ))}
            </details>
          ))}
          {preview.project.state === 'trusted' ? (
            <button type="button" onClick={() => void setFolderTrust(false)}>
              Stop trusting this folder
            </button>
          ) : preview.project.text !== null || preview.project.injectors.length > 0 ? (
            <button type="button" onClick={() => void setFolderTrust(true)}>
              Trust this folder
            </button>
          ) : null}
        </section>
      ) : null}
      {preview ? (
        <section className="instruction-preview" aria-label="Delivery preview">
          <h3>What {preview.agentName} receives</h3>
          {preview.parts.length === 0 ? <p>No instructions of yours: {preview.agentName} runs with its own prompt.</p> : null}
          <ul>
            {preview.parts.map((part) => (
              <li key={`${part.source}-${part.name ?? ''}-${part.intent}`}>
                <strong>{part.sourceName}</strong>: {part.label}
                {part.level.kind === 'refused' ? (
                  <span className="notice notice-warning"> Cannot reach {preview.agentName} at the level asked for.</span>
                ) : null}
                <ExactText text={part.text} sha256={part.sha256} />
              </li>
            ))}
            {preview.perTurn.map((part) => (
              <li key={`turn-${part.name}`}>
                <strong>
                  Injector &quot;{part.name}&quot; ({part.when})
                </strong>
                : {part.label}
                {part.level.kind === 'refused' ? (
                  <span className="notice notice-warning"> Cannot reach {preview.agentName}: its turns would be refused.</span>
                ) : null}
                <ExactText text={part.text} sha256={part.sha256} />
              </li>
            ))}
            <li>
              <strong>Baton&apos;s note</strong> (that the conversation may pass between agents):{' '}
              {preview.refusal
                ? 'not sent while a part is refused'
                : preview.fragment === 'delivered'
                  ? 'added'
                  : preview.fragment === 'off'
                    ? 'off'
                    : `skipped: ${preview.fragmentNote ?? 'no channel'}`}
            </li>
          </ul>
          <details className="digest">
            <summary>Details</summary>
            <p>
              Digest <code title={preview.sha256}>{preview.sha256.slice(0, 12)}</code>
            </p>
          </details>
          {preview.refusal ? (
            <Banner kind="error">
              {preview.agentName} would refuse this: {preview.refusal}.
            </Banner>
          ) : null}
          <Tick className="checkbox" checked={!preview.settings.off} onChange={(checked) => void setAgentSettings({ off: !checked })}>
            Deliver instructions to {preview.agentName}
          </Tick>
          {preview.perTurn.length > 0 &&
          (preview.settings.contextAsText || preview.perTurn.some((part) => part.level.kind === 'refused')) ? (
            <Tick
              className="checkbox"
              checked={preview.settings.contextAsText}
              onChange={(checked) => void setAgentSettings({ contextAsText: checked })}
            >
              Let per-turn context reach {preview.agentName} as labelled text in its prompt (it does not take embedded context)
            </Tick>
          ) : null}
          {preview.commandLine ? (
            <Tick
              className="checkbox"
              checked={preview.settings.commandLineAccepted}
              onChange={(checked) => void setAgentSettings({ commandLineAccepted: checked })}
            >
              Let {preview.agentName} take them on its command line (other users of this computer can read them in the process list)
            </Tick>
          ) : null}
          <p className="hint">
            These switches are {preview.agentName}&apos;s: they apply at once to every conversation with {preview.agentName}, not only this
            one.
          </p>
        </section>
      ) : null}
      {refusing ? <CannotTakeList agents={refusing} /> : null}
      {dialog.problem ? <Banner kind="error">{dialog.problem}</Banner> : null}
    </DialogFrame>
  );
}
