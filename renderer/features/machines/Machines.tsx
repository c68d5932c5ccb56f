/**
 * Where a conversation runs: the new conversation's combobox "Machine" ("This computer" and one
 * option per machine), the dialog "New host key" (the fingerprint, "Trust and connect",
 * "Cancel"), the alert naming a blocked machine and why (with "Upload Node <version>" when it has
 * no Node and Baton can send one), and the state of a conversation's machine
 * in its header (connecting, reconnecting for how long, blocked).
 */
import { useEffect } from 'react';
import type { MachineInfo } from '../../../app/ipc/index.js';
import { DialogFrame } from '../../components/DialogFrame.js';
import { useNow } from '../../components/useNow.js';
import { useBaton } from '../../store/index.js';
import { THIS_COMPUTER } from '../../store/slices/machinesSlice.js';

/** The reason a machine is blocked, in the words the alert uses. */
const REASONS: Record<NonNullable<MachineInfo['reason']>, string> = {
  'host-key-unknown': 'host key not trusted',
  'host-key-changed': 'host key changed',
  authentication: 'authentication',
  unreachable: 'unreachable',
  'no-node': 'no Node there',
  server: 'machine server',
};

/** What to do about each reason. */
const WHAT_TO_DO: Record<NonNullable<MachineInfo['reason']>, string> = {
  'host-key-unknown': 'Test it in Settings › Machines to see its key again.',
  'host-key-changed':
    'If its owner changed the key, remove the old one from your known_hosts; otherwise someone may be in between. Baton will not connect.',
  authentication: 'Check the key ssh uses for it (ssh-agent, IdentityFile), then test it in Settings › Machines.',
  unreachable: 'Check the address and the network, then test it in Settings › Machines.',
  'no-node': 'Install Node 18 or newer there, then test it in Settings › Machines.',
  server: 'Test it in Settings › Machines to start it again.',
};

/** A machine's state in words. */
export function machineStateText(machine: MachineInfo, now: number): string {
  switch (machine.state) {
    case 'this-computer':
      return 'this computer';
    case 'not-connected':
      return 'not connected';
    case 'connecting':
      // A slow step says what it is doing (fetching or uploading Node).
      return machine.message ? `connecting: ${machine.message}` : 'connecting…';
    case 'connected':
      return 'connected';
    case 'reconnecting':
      return `reconnecting (for ${Math.max(0, Math.round((now - (machine.since ?? now)) / 1000))} s)`;
    case 'blocked':
      return `blocked (${machine.reason ? REASONS[machine.reason] : 'unknown'})`;
  }
}

/** Combobox "Machine" of a new conversation. */
export function MachinePicker() {
  const machines = useBaton((state) => state.machines);
  const machineId = useBaton((state) => state.draft.machineId ?? THIS_COMPUTER);
  const setDraftMachine = useBaton((state) => state.setDraftMachine);
  if (machines.length <= 1) {
    return null;
  }
  return (
    <label className="field">
      <span>Machine</span>
      <select aria-label="Machine" value={machineId} onChange={(event) => void setDraftMachine(event.target.value)}>
        {machines.map((machine) => (
          <option key={machine.machineId} value={machine.machineId}>
            {machine.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The alert of a blocked machine (its name and why, and what to do), or what a slow connection to it is doing. */
export function MachineBlockedAlert({ machineId }: { machineId: string | undefined }) {
  const machine = useBaton((state) => state.machines.find((entry) => entry.machineId === machineId));
  const asking = useBaton((state) => state.hostKeyAsked !== null);
  const uploadNode = useBaton((state) => state.uploadNode);
  if (machine?.state === 'connecting' && machine.message) {
    // A slow step of connecting (fetching or uploading Node) says what it is doing.
    return (
      <p className="notice machine-connecting" role="status">
        Connecting to {machine.name}: {machine.message}
      </p>
    );
  }
  if (!machine || machine.state !== 'blocked' || asking) {
    return null;
  }
  const reason = machine.reason ?? 'server';
  const offer = reason === 'no-node' ? machine.nodeOffer : null;
  return (
    <div className="notice notice-error machine-blocked" role="alert">
      {machine.name} is blocked: {REASONS[reason]}.{' '}
      {offer ? (
        <>
          Baton can upload Node {offer.version} there ({offer.megabytes} MB from the npm registry, through this computer, to
          ~/.baton/node/), or you can install Node 18 or newer there yourself.{' '}
          <button type="button" onClick={() => void uploadNode(machine.machineId)}>
            Upload Node {offer.version}
          </button>
        </>
      ) : reason === 'unreachable' && machine.source === 'command' ? (
        'Check that the container runs and that its command works in a terminal, then test it in Settings › Machines.'
      ) : (
        WHAT_TO_DO[reason]
      )}
    </div>
  );
}

/** The state of the machine a conversation is on, when it is not this computer. */
export function MachineStatus({ machineId }: { machineId: string }) {
  const machine = useBaton((state) => state.machines.find((entry) => entry.machineId === machineId));
  const connectForConversation = useBaton((state) => state.connectForConversation);
  const now = useNow(machine?.state === 'reconnecting');
  // Opening a conversation there (after a restart, say) connects to it: its state shows, and the next message need not wait.
  const shown = machine?.state;
  useEffect(() => {
    if (shown === 'not-connected' || shown === undefined) {
      void connectForConversation(machineId);
    }
  }, [shown, machineId, connectForConversation]);
  if (machineId === THIS_COMPUTER) {
    return null;
  }
  return (
    <span className="machine-status" role="status">
      On {machine?.name ?? machineId}: {machine ? machineStateText(machine, now) : 'unknown'}
    </span>
  );
}

/** Dialog "New host key": the fingerprint a machine offers, trusted only when the person agrees. */
export function HostKeyDialog() {
  const asked = useBaton((state) => state.hostKeyAsked);
  const trust = useBaton((state) => state.trustHostKey);
  const dismiss = useBaton((state) => state.dismissHostKey);
  return (
    <DialogFrame
      open={asked !== null}
      id="host-key-title"
      title="New host key"
      className="host-key-dialog"
      onClose={dismiss}
      actions={
        <>
          <button type="button" onClick={dismiss}>
            Cancel
          </button>
          <button type="button" className="primary" onClick={() => void trust()}>
            Trust and connect
          </button>
        </>
      }
    >
      <p>
        {asked?.name ?? ''} offers a host key Baton has not seen. Trust it only if it is the key the machine’s owner gave you (for example,
        the output of <code>ssh-keygen -lf</code> on the machine).
      </p>
      <p>
        Fingerprint: <code className="fingerprint">{asked?.fingerprint ?? ''}</code>
      </p>
    </DialogFrame>
  );
}
