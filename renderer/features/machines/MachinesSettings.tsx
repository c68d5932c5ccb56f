/**
 * Settings › Machines: this computer, the SSH machines (the ssh config's hosts and those added
 * here) and the containers (machines reached by a command), each with its state; add one by
 * `user@host[:port]` or an alias, or a container ("Add container"), test it (connect again; a new
 * host key is asked about), remove one added here.
 */
import { useState } from 'react';
import { AddContainerDialog } from './AddContainerDialog.js';
import { ContainersSettings } from './ContainersSettings.js';
import { useNow } from '../../components/useNow.js';
import { useBaton } from '../../store/index.js';
import { machineStateText } from './Machines.js';

/** The section's panel. */
export function MachinesSettings() {
  const machines = useBaton((state) => state.machines);
  const testMachine = useBaton((state) => state.testMachine);
  const removeMachine = useBaton((state) => state.removeMachine);
  const addMachine = useBaton((state) => state.addMachine);
  const [destination, setDestination] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [addingContainer, setAddingContainer] = useState(false);
  const now = useNow(machines.some((machine) => machine.state === 'reconnecting'));
  const add = async (): Promise<void> => {
    const failed = await addMachine(destination.trim());
    setProblem(failed);
    if (!failed) {
      setDestination('');
    }
  };
  return (
    <>
      <h2>Machines</h2>
      <p className="muted">
        Where a conversation’s agent, files and terminals live. Baton reaches other machines with your own <code>ssh</code> (its config,
        keys and known hosts), uploads a small server there (it needs Node 18 or newer), and keeps agents running there through a dropped
        connection.
      </p>
      <ul className="settings-list" aria-label="Machines">
        {machines.map((machine) => (
          <li key={machine.machineId}>
            <strong>{machine.name}</strong>{' '}
            <span className="muted">
              ·{' '}
              {machine.source === 'ssh-config'
                ? 'from your ssh config'
                : machine.source === 'added'
                  ? 'added here'
                  : machine.source === 'command'
                    ? `reached by ${machine.destination ?? 'a command'}`
                    : 'Baton runs here'}{' '}
              · {machineStateText(machine, now)}
            </span>
            {machine.state === 'blocked' && machine.message ? <p className="hint">{machine.message}</p> : null}
            {machine.source === 'this-computer' ? null : (
              <span className="row-actions">
                <button type="button" aria-label={`Test ${machine.name}`} onClick={() => void testMachine(machine.machineId)}>
                  Test
                </button>
                {machine.source === 'added' || machine.source === 'command' ? (
                  <button type="button" aria-label={`Remove ${machine.name}`} onClick={() => void removeMachine(machine.machineId)}>
                    Remove
                  </button>
                ) : null}
              </span>
            )}
          </li>
        ))}
      </ul>
      <form
        className="add-machine"
        onSubmit={(event) => {
          event.preventDefault();
          void add();
        }}
      >
        <label className="field">
          <span>Machine address</span>
          <input
            value={destination}
            placeholder="user@host, user@host:port, or an ssh config alias"
            onChange={(event) => setDestination(event.target.value)}
            aria-invalid={problem !== null}
            aria-describedby={problem ? 'add-machine-problem' : undefined}
          />
        </label>
        <button type="submit" disabled={destination.trim() === ''}>
          Add machine
        </button>
        {problem ? (
          <p id="add-machine-problem" className="notice notice-error" role="alert">
            {problem}
          </p>
        ) : null}
      </form>
      <button type="button" onClick={() => setAddingContainer(true)}>
        Add container
      </button>
      <AddContainerDialog open={addingContainer} onClose={() => setAddingContainer(false)} />
      <ContainersSettings />
    </>
  );
}
