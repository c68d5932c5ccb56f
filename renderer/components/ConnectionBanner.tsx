/** Says when the window has lost its host, so nobody types into a dead window unknowingly. */
import { useBaton } from '../store/index.js';

/** A banner shown while disconnected. */
export function ConnectionBanner() {
  const connection = useBaton((state) => state.connection);
  if (connection === 'open') {
    return null;
  }
  return (
    <div className="connection-banner" role="status">
      {connection === 'connecting'
        ? 'Connecting to Baton…'
        : 'Connection to Baton lost. Reconnecting… If Baton was restarted, open the new address it printed.'}
    </div>
  );
}
