/** An agent's request for permission: every option it offered, answered only by the person. */
import type { TranscriptItem } from '../../../app/transcript/index.js';
import { useBaton } from '../../store/index.js';

type PermissionItem = Extract<TranscriptItem, { kind: 'permission' }>;

/** The question, its options, and later the answer given. */
export function PermissionPrompt({ item }: { item: PermissionItem }) {
  const answerPermission = useBaton((state) => state.answerPermission);
  const chosen = item.decision ? item.options.find((option) => option.optionId === item.decision?.optionId) : undefined;
  return (
    <div className="permission" role="group" aria-label={`Permission: ${item.title}`}>
      <p className="permission-title">{item.title}</p>
      {item.decision ? (
        <p className="permission-decision">{chosen ? `You chose: ${chosen.name}` : 'Withdrawn: the reply ended before an answer.'}</p>
      ) : (
        <div className="permission-options">
          {item.options.map((option) => (
            <button
              key={option.optionId}
              type="button"
              className={option.kind.startsWith('allow') ? 'allow' : 'reject'}
              onClick={() => void answerPermission(item.requestId, option.optionId)}
            >
              {option.name}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
