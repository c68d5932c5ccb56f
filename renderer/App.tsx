/** The window: the history sidebar beside the open conversation. */
import { ConnectionBanner } from './components/ConnectionBanner.js';
import { ReplyAnnouncer } from './components/ReplyAnnouncer.js';
import { Shortcuts } from './components/Shortcuts.js';
import { ChatView } from './features/chat/ChatView.js';
import { Sidebar } from './features/sidebar/Sidebar.js';
import { useBaton } from './store/index.js';

/** The whole window. */
export function App() {
  const sidebarOpen = useBaton((state) => state.sidebarOpen);
  return (
    <div className={sidebarOpen ? 'app sidebar-open' : 'app'}>
      <ConnectionBanner />
      <Sidebar />
      <ChatView />
      <ReplyAnnouncer />
      <Shortcuts />
    </div>
  );
}
