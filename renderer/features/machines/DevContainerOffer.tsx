/**
 * Button "Open in its dev container", offered for a new conversation's folder on this computer
 * that holds `.devcontainer/devcontainer.json` or `.devcontainer.json`. Baton brings the container
 * up with the dev container CLI (its output shown as log "Dev container log" while it works, and
 * after a failure with why); once up, the conversation is on it, in its workspace folder.
 */
import { useAsked } from '../../components/Suggestions.js';
import { useBaton } from '../../store/index.js';

/** The offer, for `folder` (nothing when it has no dev container). */
export function DevContainerOffer({ folder }: { folder: string }) {
  const devContainerOf = useBaton((state) => state.devContainerOf);
  const open = useBaton((state) => state.openDevContainer);
  const opening = useBaton((state) => state.devContainerOpening);
  const wanted = folder.trim();
  const machine = useBaton((state) => state.machines.find((entry) => entry.machineId === `dev:${wanted}`));
  const config = useAsked(wanted.startsWith('/') || /^[A-Za-z]:\\/.test(wanted) ? wanted : undefined, async () => {
    const found = await devContainerOf(wanted);
    return found ? [found] : [];
  });
  if (config.length === 0) {
    return null;
  }
  const busy = opening === wanted;
  const failed = !busy && machine?.state === 'blocked';
  return (
    <div className="dev-container-offer">
      <button type="button" disabled={busy} aria-describedby="dev-container-hint" onClick={() => void open(wanted)}>
        Open in its dev container
      </button>
      <span className="hint" id="dev-container-hint">
        {busy ? 'Starting it with the dev container CLI…' : `This folder has a dev container (${config[0]}).`}
      </span>
      {failed ? (
        <p className="notice notice-error" role="alert">
          {machine.message}
        </p>
      ) : null}
      {(busy || failed) && machine && machine.log.length > 0 ? (
        <pre className="dev-container-log" role="log" aria-label="Dev container log">
          {machine.log.join('\n')}
        </pre>
      ) : null}
    </div>
  );
}
