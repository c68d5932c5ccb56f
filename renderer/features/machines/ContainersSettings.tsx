/**
 * Settings › Machines › "Containers": the engine Baton starts containers with (podman or docker as
 * installed; Baton never installs one), the options added to each container it starts, and table
 * "Containers Baton started": the container of each attempt asked "in containers", and any left
 * behind by a crash (its copy gone), with "Remove".
 */
import { useEffect, useState } from 'react';
import { useBaton } from '../../store/index.js';

/** The section. */
export function ContainersSettings() {
  const info = useBaton((state) => state.containers);
  const problem = useBaton((state) => state.containersProblem);
  const load = useBaton((state) => state.loadContainers);
  const save = useBaton((state) => state.setContainerSettings);
  const remove = useBaton((state) => state.removeContainer);
  const [runOptions, setRunOptions] = useState<string | null>(null);
  useEffect(() => {
    void load();
  }, [load]);
  const typed = runOptions ?? info?.settings.runOptions ?? '';
  const leftBehind = info?.containers.filter((container) => container.leftBehind) ?? [];
  return (
    <section aria-labelledby="containers-title" className="containers-settings">
      <h3 id="containers-title">Containers</h3>
      <p className="hint">
        “Ask several agents” can run each attempt in a container of its own, started here from an image you name, with its copy of the
        folder mounted and no network unless you allow it. Baton uses podman or docker as installed, with their own settings.
      </p>
      {info === null ? <p aria-busy="true">Asking…</p> : null}
      {info?.engine ? <p role="status">Engine: {info.engine}</p> : null}
      {info?.problem ? (
        <p className="notice notice-error" role="alert">
          {info.problem}
        </p>
      ) : null}
      {info ? (
        <form
          className="container-settings"
          onSubmit={(event) => {
            event.preventDefault();
            void save({ runOptions: typed }).then((taken) => taken && setRunOptions(null));
          }}
        >
          <label className="field">
            <span>Container engine</span>
            <select
              value={info.settings.engine}
              onChange={(event) => void save({ engine: event.target.value as '' | 'podman' | 'docker' })}
            >
              <option value="">podman, or docker when there is no podman</option>
              <option value="podman">podman</option>
              <option value="docker">docker</option>
            </select>
          </label>
          <label className="field">
            <span>Run options</span>
            <input
              value={typed}
              spellCheck={false}
              placeholder="--userns=keep-id -v ~/.claude:/root/.claude"
              aria-describedby="run-options-hint"
              onChange={(event) => setRunOptions(event.target.value)}
            />
          </label>
          <p className="hint" id="run-options-hint">
            Added to each container Baton starts, as you would type them after <code>run</code>: your agents’ log-ins, caches, a user.
          </p>
          <button type="submit" disabled={runOptions === null || runOptions === info.settings.runOptions}>
            Save run options
          </button>
        </form>
      ) : null}
      {problem ? (
        <p className="notice notice-error" role="alert">
          {problem}
        </p>
      ) : null}
      {info && info.containers.length === 0 && info.engine ? <p>Baton has no container running.</p> : null}
      {info && info.containers.length > 0 ? (
        <table aria-label="Containers Baton started" className="process-table">
          <thead>
            <tr>
              <th scope="col">Container</th>
              <th scope="col">Copy of the folder</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {info.containers.map((container) => (
              <tr key={container.name}>
                <th scope="row">{container.name}</th>
                <td>
                  <code>{container.copy}</code>
                </td>
                <td>
                  {container.leftBehind
                    ? 'Left behind: its copy is gone'
                    : container.running
                      ? 'Running, for its attempt'
                      : 'Stopped (started again when its attempt is used)'}
                </td>
                <td>
                  {container.leftBehind ? (
                    <button type="button" aria-label={`Remove ${container.name}`} onClick={() => void remove(container.name)}>
                      Remove
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {leftBehind.length > 0 ? (
        <p className="hint">
          {leftBehind.length === 1 ? 'One container was' : `${leftBehind.length} containers were`} left behind when Baton ended before
          removing {leftBehind.length === 1 ? 'it' : 'them'}.
        </p>
      ) : null}
    </section>
  );
}
