/** Requests about the host itself: what it is, and folder and file completion. */
import { z } from 'zod';

/** The host's requests of the host API contract. */
/** The page's preferences the host keeps for every window and run (the theme, recent folders, the agent last started, agent choices). */
export const preferenceKeySchema = z.enum([
  'baton.theme',
  'baton.recentFolders',
  'baton.lastAgent',
  'baton.agentChoices',
  'baton.lastConversation',
  'baton.notifications',
  'baton.attemptContainer',
]);

/** What the data folder's checkpoints take, and their settings. */
const checkpointSettingsResult = z.object({
  checkpointBytes: z.number().int().nonnegative(),
  checkpointsOff: z.boolean(),
  maxFileMegabytes: z.number(),
});

export const hostRequests = {
  /** Facts about this host needed to draw the first screen. */
  getHostInfo: {
    params: z.object({}),
    result: z.object({
      homeDir: z.string(),
      dataDir: z.string(),
      version: z.string(),
      /** Whether log-in methods that run in a terminal can run here. */
      terminalLogin: z.boolean(),
    }),
  },
  /** Whether a path typed as a working folder can be one (absolute, existing, a folder); checked as it is typed. */
  checkFolder: {
    params: z.object({ path: z.string().max(4_096), machineId: z.string().min(1).max(400).optional() }),
    result: z.object({ problem: z.string().nullable() }),
  },
  /** Files of a working folder matching what follows @ in the message box (for mentions), on its machine (none while it is not open). */
  listFolderFiles: {
    params: z.object({ cwd: z.string().min(1), query: z.string().max(500), machineId: z.string().min(1).max(400).optional() }),
    result: z.object({ files: z.array(z.string()), truncated: z.boolean() }),
  },
  /** Folders whose path starts with what the person typed in a folder field (~ is the home folder), for completion. */
  listFolders: {
    params: z.object({ typed: z.string().max(4_096), machineId: z.string().min(1).max(400).optional() }),
    result: z.object({ folders: z.array(z.string()) }),
  },
  /** What the data folder holds that grows with use: the checkpoints of working folders, in bytes. */
  getDataFolderUsage: {
    params: z.object({}),
    result: checkpointSettingsResult,
  },
  /** The page's preferences, as the host keeps them (absent: never set). */
  getPreferences: {
    params: z.object({}),
    result: z.object({ preferences: z.record(z.string(), z.string()) }),
  },
  /**
   * The conversation that was open when the host last ran, for the first window that asks after a start
   * (a restart takes the person back to it); every later ask is answered null, so a new window starts a new conversation.
   */
  takeConversationAtStart: {
    params: z.object({}),
    result: z.object({ conversationId: z.string().nullable() }),
  },
  /** Keeps one of the page's preferences (null: forgets it). */
  setPreference: {
    params: z.object({ key: preferenceKeySchema, value: z.string().max(1_000_000).nullable() }),
    result: z.object({}),
  },
  /** The last lines of Baton's log (what happened, never message or instruction text), and where it is. */
  readLog: {
    params: z.object({ lines: z.number().int().min(1).max(2_000).default(200) }),
    result: z.object({ file: z.string().nullable(), lines: z.array(z.string()) }),
  },
  /** Checkpoints of working folders: taken around turns or not, and the largest file they keep. */
  setCheckpointSettings: {
    params: z.object({ off: z.boolean().optional(), maxFileMegabytes: z.number().positive().max(10_000).optional() }),
    result: checkpointSettingsResult,
  },
} as const;
