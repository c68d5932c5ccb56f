/**
 * Dialog "Add container": a machine reached by a command that runs a program there with standard
 * input and output (`podman exec -i baton-dev`, `docker exec -i baton-dev`, `kubectl exec -i pod --`),
 * with the name the Machine combobox shows for it. What is wrong with either is said in the dialog.
 */
import { useState } from 'react';
import { DialogFrame } from '../../components/DialogFrame.js';
import { useBaton } from '../../store/index.js';

/** The dialog, open while `open`; `onClose` when added or cancelled. */
export function AddContainerDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const addCommandMachine = useBaton((state) => state.addCommandMachine);
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const close = (): void => {
    setProblem(null);
    onClose();
  };
  const add = async (): Promise<void> => {
    const failed = await addCommandMachine(name.trim(), command.trim());
    setProblem(failed);
    if (!failed) {
      setName('');
      setCommand('');
      onClose();
    }
  };
  return (
    <DialogFrame
      open={open}
      id="add-container-title"
      title="Add container"
      className="add-container-dialog"
      hint="A command that runs a program in the container (or any machine) with standard input and output, never a terminal (-t). Baton starts its server there through it, with Node 18 or newer (or uploads one)."
      onClose={close}
      actions={
        <>
          <button type="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" form="add-container-form" className="primary" disabled={name.trim() === '' || command.trim() === ''}>
            Add
          </button>
        </>
      }
    >
      <form
        id="add-container-form"
        onSubmit={(event) => {
          event.preventDefault();
          void add();
        }}
      >
        <label className="field">
          <span>Name</span>
          <input value={name} placeholder="baton-dev" onChange={(event) => setName(event.target.value)} />
        </label>
        <label className="field">
          <span>Command</span>
          <input
            value={command}
            placeholder="podman exec -i baton-dev"
            spellCheck={false}
            onChange={(event) => setCommand(event.target.value)}
            aria-invalid={problem !== null}
            aria-describedby={problem ? 'add-container-problem' : undefined}
          />
        </label>
        {problem ? (
          <p id="add-container-problem" className="notice notice-error" role="alert">
            {problem}
          </p>
        ) : null}
      </form>
    </DialogFrame>
  );
}
