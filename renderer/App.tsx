/** The window: the conversation list beside the open conversation. */
import { ConversationList } from './features/sidebar/ConversationList.js';
import { ChatView } from './features/chat/ChatView.js';
import { ConnectionBanner } from './components/ConnectionBanner.js';

/** The whole window. */
export function App() {
  return (
    <div className="app">
      <ConnectionBanner />
      <ConversationList />
      <ChatView />
    </div>
  );
}
