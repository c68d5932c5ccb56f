/** The window: the history sidebar beside the open conversation (or the settings page), and the dialogs either can open. */
import { ConnectionBanner } from './components/ConnectionBanner.js';
import { ReplyAnnouncer } from './components/ReplyAnnouncer.js';
import { Shortcuts } from './components/Shortcuts.js';
import { TipProvider } from './components/Tip.js';
import { useAttentionTitle } from './components/useAttentionTitle.js';
import { AskSeveralDialog } from './features/attempts/AskSeveralDialog.js';
import { CompareDialog, KeepDialog } from './features/attempts/AttemptDialogs.js';
import { ChatView } from './features/chat/ChatView.js';
import { ImportReviewDialog } from './features/chat/ImportReviewDialog.js';
import { InstructionsDialog } from './features/instructions/InstructionsDialog.js';
import { LoginTerminal } from './features/agents/LoginTerminal.js';
import { BranchDialog, RewindDialog } from './features/rewind/RewindDialog.js';
import { ToolboxDialog } from './features/toolbox/ToolboxDialog.js';
import { HostKeyDialog } from './features/machines/Machines.js';
import { SettingsPage } from './features/settings/SettingsPage.js';
import { Sidebar } from './features/sidebar/Sidebar.js';
import { useBaton } from './store/index.js';

/** The whole window. */
export function App() {
  const sidebarOpen = useBaton((state) => state.sidebarOpen);
  const settingsOpen = useBaton((state) => state.settings !== null);
  useAttentionTitle();
  return (
    <TipProvider>
      <div className={sidebarOpen ? 'app sidebar-open' : 'app'}>
        <ConnectionBanner />
        <Sidebar />
        {settingsOpen ? <SettingsPage /> : <ChatView />}
        <LoginTerminal />
        <InstructionsDialog />
        <ToolboxDialog />
        <HostKeyDialog />
        <ImportReviewDialog />
        <RewindDialog />
        <BranchDialog />
        <AskSeveralDialog />
        <CompareDialog />
        <KeepDialog />
        <ReplyAnnouncer />
        <Shortcuts />
      </div>
    </TipProvider>
  );
}
