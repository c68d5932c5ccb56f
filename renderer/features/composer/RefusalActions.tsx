/**
 * The ways out of a refusal of the person's standing instructions: allow the command-line channel
 * (where that is the reason), send this message without them, stop sending them to that agent, or
 * open the Instructions dialog. The same buttons under a refused turn and over the message box
 * (a switch refused before anything was recorded): each then sends the message again.
 */
import { useBaton } from '../../store/index.js';
import type { RefusalChoice } from '../../store/types.js';

/** What a refusal of instructions carries (an UnsupportedInput error whose input is a prompt). */
export type InstructionRefusal = { code: string; details: { agentName: string; reason: string; input: string } };

/** Whether an error is a refusal of the person's instructions (by the agent's abilities, before anything reached it). */
export function isInstructionRefusal(
  error: { code: string; details?: Record<string, unknown> | undefined } | undefined | null,
): error is InstructionRefusal {
  return (
    error?.code === 'UnsupportedInput' &&
    typeof error.details?.input === 'string' &&
    /prompt/.test(error.details.input) &&
    typeof error.details.agentName === 'string' &&
    typeof error.details.reason === 'string'
  );
}

/** Group "Ways to send it". */
export function RefusalActions({ refusal, resolve }: { refusal: InstructionRefusal; resolve: (choice: RefusalChoice) => void }) {
  const openInstructions = useBaton((state) => state.openInstructions);
  const { agentName, reason } = refusal.details;
  const commandLine = /command line/.test(reason);
  return (
    <div className="refusal-actions" role="group" aria-label="Ways to send it">
      {commandLine ? (
        <button type="button" title="Other users of this computer can read them in the process list" onClick={() => resolve('allow')}>
          Allow for {agentName}
        </button>
      ) : null}
      <button type="button" onClick={() => resolve('without')}>
        Send without my instructions this time
      </button>
      <button type="button" onClick={() => resolve('off')}>
        Don&apos;t send my instructions to {agentName}
      </button>
      <button type="button" onClick={() => void openInstructions()}>
        Open Instructions
      </button>
      {commandLine ? (
        <p className="hint">
          Allowing it: {agentName} takes them on its command line, where other users of this computer can read them in the process list.
        </p>
      ) : null}
    </div>
  );
}
