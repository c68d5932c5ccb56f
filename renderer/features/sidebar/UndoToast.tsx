/** After a delete: says where the conversation went and offers to bring it back, for a while. */
import { useBaton } from '../../store/index.js';

/** The undo toast. */
export function UndoToast() {
  const undo = useBaton((state) => state.undo);
  const restore = useBaton((state) => state.restore);
  const dismiss = useBaton((state) => state.dismissUndo);
  if (!undo) {
    return null;
  }
  return (
    <div className="toast" role="status">
      <span>“{undo.title || 'Conversation'}” moved to the trash.</span>
      <button type="button" onClick={() => void restore(undo.conversationId)}>
        Undo
      </button>
      <button type="button" aria-label="Dismiss" onClick={() => dismiss()}>
        ×
      </button>
    </div>
  );
}
