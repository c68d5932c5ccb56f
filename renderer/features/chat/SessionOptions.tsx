/** The agent's own session options (model, mode, reasoning…) as pickers; a choice is remembered for the conversation. */
import type { TranscriptState } from '../../../app/transcript/index.js';
import { useBaton } from '../../store/index.js';

/** One picker per option the agent offers. */
export function SessionOptions({ transcript }: { transcript: TranscriptState }) {
  const setSessionOption = useBaton((state) => state.setSessionOption);
  if (transcript.sessionOptions.length === 0) {
    return null;
  }
  return (
    <div className="session-options" role="group" aria-label="Session options">
      {transcript.sessionOptions.map((option) => (
        <label key={option.id} className="field">
          <span>{option.name}</span>
          <select aria-label={option.name} value={option.currentValue} onChange={(event) => void setSessionOption(option.id, event.target.value)}>
            {option.options.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.name}
              </option>
            ))}
          </select>
        </label>
      ))}
    </div>
  );
}
