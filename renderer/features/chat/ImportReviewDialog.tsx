/**
 * An imported conversation's review: a notice above the message box while it waits, and dialog
 * "Confirm imported conversation", which shows the working folder (with a warning when it is as
 * broad as / or the home folder), the instructions at the level the file names, the injectors and
 * the toolbox it brings. Nothing of it reaches an agent until "Confirm and continue".
 */
import { Banner, DialogFrame } from '../../components/DialogFrame.js';
import { useBaton } from '../../store/index.js';

/** The notice shown in an imported conversation that waits for confirmation. */
export function ImportReviewNotice() {
  const review = useBaton((state) => state.importReview);
  const open = useBaton((state) => state.openImportReview);
  if (!review) {
    return null;
  }
  return (
    <section className="notice import-review-notice" aria-label="Imported conversation">
      <span>
        This conversation was imported. Nothing in it reaches an agent until you confirm its working folder and the settings it brings.
      </span>{' '}
      <button type="button" onClick={() => open()}>
        Review and confirm…
      </button>
    </section>
  );
}

/** Dialog "Confirm imported conversation". */
export function ImportReviewDialog() {
  const current = useBaton((state) => state.importReview);
  const close = useBaton((state) => state.closeImportReview);
  const confirm = useBaton((state) => state.confirmImport);
  if (!current) {
    return null;
  }
  const { review } = current;
  return (
    <DialogFrame
      open={current.open}
      id="import-review-title"
      title="Confirm imported conversation"
      className="import-review-dialog"
      hint={
        <>
          It came from a file, not from your choices here. Before your next message reaches an agent, check what it would get. The agent
          sessions it names are not reopened: the agent is handed the conversation from its transcript.
        </>
      }
      onClose={() => close()}
      actions={
        <>
          <button type="button" className="primary" disabled={current.busy} onClick={() => void confirm()}>
            Confirm and continue
          </button>
          <button type="button" onClick={() => close()}>
            Cancel
          </button>
        </>
      }
    >
      <dl className="import-review">
        <dt>Working folder</dt>
        <dd>
          <code>{review.cwd}</code>
          {review.broadFolder ? (
            <Banner kind="warning">
              This folder is very broad: an agent working in it can read and change nearly every file you have. Only confirm if you meant
              that; otherwise start a new conversation in a narrower folder.
            </Banner>
          ) : null}
        </dd>
        <dt>Instructions</dt>
        <dd>
          {review.instructions ? (
            <>
              <p>{review.instructions.intent === 'replace' ? "Replace the agent's own prompt with:" : "Add to the agent's prompt:"}</p>
              <pre className="import-review-text">{review.instructions.text}</pre>
            </>
          ) : (
            'None'
          )}
        </dd>
        <dt>Injectors</dt>
        <dd>{review.injectors.length > 0 ? review.injectors.join(', ') : 'None'}</dd>
        <dt>Toolbox</dt>
        <dd>{review.servers.length > 0 ? review.servers.join(', ') : 'None'}</dd>
      </dl>
      {current.problem ? <Banner kind="error">{current.problem}</Banner> : null}
    </DialogFrame>
  );
}
