/** Says when the window has lost its host, so nobody types into a dead window unknowingly. */
import { useBaton } from '../store/index.js';

/** A banner shown while disconnected. */
export function ConnectionBanner() {
  const connection = useBaton((state) => state.connection);
  if (connection === 'open') {
    return null;
  }
  if (connection === 'unauthorized') {
    return (
      <div className="connection-banner" role="alert">
        This window is no longer signed in to Baton (it was restarted, or its token changed), so it stopped reconnecting. Open the address
        Baton printed when it started (<code>Baton is running at http://127.0.0.1:…/?token=…</code>) to get back in.
      </div>
    );
  }
  return (
    <div className="connection-banner" role="status">
      {connection === 'connecting'
        ? 'Connecting to Baton…'
        : 'Connection to Baton lost. Reconnecting… If Baton was restarted, open the new address it printed.'}
    </div>
  );
}
