/** The window: the history sidebar beside the open conversation. */
import { ConnectionBanner } from './components/ConnectionBanner.js';
import { ChatView } from './features/chat/ChatView.js';
import { Sidebar } from './features/sidebar/Sidebar.js';

/** The whole window. */
export function App() {
  return (
    <div className="app">
      <ConnectionBanner />
      <Sidebar />
      <ChatView />
    </div>
  );
}
