/** Requests about the host itself and the machine: what this host is, folder and file completion, what the data folder holds. */
import { folderCompletions, folderFiles } from '../files/folderFiles.js';
import { z } from 'zod';
import { maxFileBytesSetting } from '../checkpoints/TurnCheckpoints.js';
import type { HandlerGroup, HostParts } from './HostParts.js';

type HostMethods = 'getHostInfo' | 'listFolderFiles' | 'listFolders' | 'getDataFolderUsage' | 'setCheckpointSettings';

/** The host's own handlers. */
export function hostHandlers({ homeDir, dataDir, version, logins, checkpoints, store }: HostParts): HandlerGroup<HostMethods> {
  const usage = () => ({ checkpointBytes: checkpoints.size(), checkpointsOff: store.getSetting('checkpoints.off', z.boolean(), false), maxFileMegabytes: maxFileBytesSetting(store) / (1024 * 1024) });
  return {
    getHostInfo: () => ({ homeDir, dataDir, version, terminalLogin: logins.supported }),
    listFolderFiles: ({ cwd, query }) => folderFiles(cwd, query),
    listFolders: ({ typed }) => ({ folders: folderCompletions(typed, homeDir) }),
    getDataFolderUsage: usage,
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
