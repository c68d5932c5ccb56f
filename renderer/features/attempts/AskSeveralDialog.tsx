/**
 * Dialog "Ask several agents": a checkbox per agent (named by the agent), for each one ticked its
 * mode and model as it offered them last, and "Ask", which sends the message in the box to all of
 * them at once, each in its own copy of the working folder.
 */
import { MAX_ATTEMPTS } from '../../../app/transcript/attempts.js';
import { agentChoices } from '../../persisted/agentChoices.js';
import { Banner, DialogFrame } from '../../components/DialogFrame.js';
import { useBaton } from '../../store/index.js';
import { selectActiveMachine } from '../../store/selectors/transcript.js';
import { THIS_COMPUTER } from '../../store/slices/machinesSlice.js';
import { askingValue, OptionPickers } from '../composer/SessionOptions.js';
import { Tick } from '../../components/Tick.js';

/** Categories of options offered per attempt: the mode and the model (others keep the agent's own). */
const PICKED = new Set(['mode', 'model']);

/** The dialog. */
export function AskSeveralDialog() {
  const dialog = useBaton((state) => state.askDialog);
  const agents = useBaton((state) => state.agents);
  const max = MAX_ATTEMPTS;
  const close = useBaton((state) => state.closeAskDialog);
  const choose = useBaton((state) => state.setAskChoice);
  const confirm = useBaton((state) => state.confirmAsk);
  const setContainer = useBaton((state) => state.setAskContainer);
  const machineId = useBaton(selectActiveMachine);
  if (!dialog) {
    return null;
  }
  // In containers (or on another machine) an agent is looked for there, not here: every agent is offered.
  const elsewhere = dialog?.container.on === true || machineId !== THIS_COMPUTER;
  const available = elsewhere ? agents : agents.filter((agent) => agent.available);
  const count = dialog.checked.length;
  const { container } = dialog;
  const imageMissing = container.on && container.image.trim() === '';
  return (
    <DialogFrame
      open
      id="ask-several-title"
      title="Ask several agents"
      className="ask-several-dialog"
      hint={
        <>
          Your message goes to each agent you tick, at once. Each works in its own copy of the folder (a git worktree in a repository),
          never in yours; you compare what they did and keep one.
        </>
      }
      onClose={() => close()}
      actions={
        <>
          <button
            type="button"
            className="primary"
            disabled={dialog.busy || count < 2 || count > max || imageMissing}
            onClick={() => void confirm()}
          >
            Ask
          </button>
          <button type="button" onClick={() => close()}>
            Cancel
          </button>
        </>
      }
    >
      <p className="hint" role="status">
        {count < 2 ? `Tick two to ${max} agents.` : count > max ? `At most ${max} at once.` : `${count} agents will be asked.`}
      </p>
      <ul className="ask-several-agents" aria-label="Agents to ask">
        {available.map((agent) => {
          const checked = dialog.checked.includes(agent.agentId);
          const remembered = agentChoices(agent.agentId);
          const options =
            remembered?.options.filter((option) => PICKED.has(option.category ?? '') || /^(mode|model)$/i.test(option.id)) ?? [];
          return (
            <li key={agent.agentId}>
              <Tick className="checkbox" checked={checked} onChange={(checked) => choose({ agentId: agent.agentId, checked })}>
                {agent.displayName}
              </Tick>
              {checked && options.length > 0 ? (
                <OptionPickers
                  label={`${agent.displayName}'s options`}
                  options={options}
                  valueOf={(option) => dialog.options[agent.agentId]?.[option.id] ?? remembered?.chosen[option.id] ?? askingValue(option)}
                  choose={(optionId, value) => choose({ agentId: agent.agentId, option: { optionId, value } })}
                />
              ) : checked ? (
                <p className="hint">
                  {agent.displayName}'s mode and model can be picked once it has been used (it names them when a session starts).
                </p>
              ) : null}
            </li>
          );
        })}
      </ul>
      <fieldset className="ask-several-container">
        <legend>Where they work</legend>
        <Tick className="checkbox" checked={container.on} onChange={(checked) => setContainer({ on: checked })}>
          Run each in its own container
        </Tick>
        {container.on ? (
          <>
            <label className="field">
              Image
              <input
                type="text"
                value={container.image}
                placeholder="docker.io/library/node:22"
                spellCheck={false}
                aria-describedby="ask-several-image-hint"
                onChange={(event) => setContainer({ image: event.target.value })}
              />
            </label>
            <p className="hint" id="ask-several-image-hint">
              Started with the container engine of Settings › Machines, each copy mounted at its own path; the image needs Node 18 or later
              and the agents. Removed with the copies.
            </p>
            <Tick className="checkbox" checked={container.network} onChange={(checked) => setContainer({ network: checked })}>
              Allow network
            </Tick>
            {container.network ? null : <p className="hint">No network: an agent that calls its model over the network needs it.</p>}
          </>
        ) : null}
      </fieldset>
      {dialog.problem ? <Banner kind="error">{dialog.problem}</Banner> : null}
    </DialogFrame>
  );
}
