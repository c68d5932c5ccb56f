/** Requests about the host itself and the machine: what this host is, folder and file completion, what the data folder holds. */
import { folderCompletions, folderFiles } from '../files/folderFiles.js';
import { checkWorkingFolderAt } from '../files/checkWorkingFolder.js';
import { lastLines } from '../log/lastLines.js';
import { z } from 'zod';
import { preferenceKeySchema } from '../../../app/ipc/index.js';
import { maxFileBytesSetting } from '../checkpoints/TurnCheckpoints.js';
import type { HandlerGroup, HostParts } from './HostParts.js';

type HostMethods =
  | 'getHostInfo'
  | 'listFolderFiles'
  | 'listFolders'
  | 'getDataFolderUsage'
  | 'setCheckpointSettings'
  | 'readLog'
  | 'getPreferences'
  | 'setPreference'
  | 'takeConversationAtStart'
  | 'checkFolder';

/** The host's own handlers. */
export function hostHandlers({
  homeDir,
  dataDir,
  version,
  logins,
  checkpoints,
  store,
  logFile,
  machines,
}: HostParts): HandlerGroup<HostMethods> {
  const usage = () => ({
    checkpointBytes: checkpoints.size(),
    checkpointsOff: store.getSetting('checkpoints.off', z.boolean(), false),
    maxFileMegabytes: maxFileBytesSetting(store) / (1024 * 1024),
  });
  // The conversation open last when the host started; given once, to the first window that asks.
  let atStart = store.getSetting('preference.baton.lastConversation', z.string().nullable(), null);
  return {
    takeConversationAtStart: () => {
      const conversationId = atStart;
      atStart = null;
      return { conversationId };
    },
    getHostInfo: () => ({ homeDir, dataDir, version, terminalLogin: logins.supported }),
    checkFolder: async ({ path, machineId }) => {
      try {
        await checkWorkingFolderAt(machines, path, machineId || undefined);
        return { problem: null };
      } catch (error) {
        return { problem: (error as Error).message };
      }
    },
    // On another machine only once it is open: typing never starts a connection.
    listFolderFiles: async ({ cwd, query, machineId }) => {
      const machine = machineId ? machines.ready(machineId) : machines.local;
      return machine ? await folderFiles(machine, cwd, query) : { files: [], truncated: false };
    },
    listFolders: async ({ typed, machineId }) => {
      if (machineId && !machines.isLocal(machineId)) {
        const elsewhere = machines.ready(machineId);
        return { folders: elsewhere ? await folderCompletions(elsewhere, typed) : [] };
      }
      // `~` on this computer is the host's home (a test's own).
      const { local } = machines;
      return { folders: await folderCompletions({ home: homeDir, platform: local.platform, list: (folder) => local.list(folder) }, typed) };
    },
    getDataFolderUsage: usage,
    getPreferences: () => ({
      preferences: Object.fromEntries(
        preferenceKeySchema.options.flatMap((key) => {
          const value = store.getSetting(`preference.${key}`, z.string().nullable(), null);
          return value === null ? [] : [[key, value]];
        }),
      ),
    }),
    setPreference: ({ key, value }) => {
      store.setSetting(`preference.${key}`, value);
      return {};
    },
    readLog: ({ lines }) => ({ file: logFile ?? null, lines: logFile ? lastLines(logFile, lines) : [] }),
    setCheckpointSettings: ({ off, maxFileMegabytes }) => {
      if (off !== undefined) {
        store.setSetting('checkpoints.off', off);
      }
      if (maxFileMegabytes !== undefined) {
        store.setSetting('checkpoints.maxFileMegabytes', maxFileMegabytes);
      }
      return usage();
    },
  };
}
