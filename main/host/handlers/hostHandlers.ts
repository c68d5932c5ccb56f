/** Requests about the host itself and the machine: what this host is, folder and file completion, what the data folder holds. */
import { folderCompletions, folderFiles } from '../files/folderFiles.js';
import type { HandlerGroup, HostParts } from './HostParts.js';

type HostMethods = 'getHostInfo' | 'listFolderFiles' | 'listFolders' | 'getDataFolderUsage';

/** The host's own handlers. */
export function hostHandlers({ homeDir, dataDir, version, logins, checkpoints }: HostParts): HandlerGroup<HostMethods> {
  return {
    getHostInfo: () => ({ homeDir, dataDir, version, terminalLogin: logins.supported }),
    listFolderFiles: ({ cwd, query }) => folderFiles(cwd, query),
    listFolders: ({ typed }) => ({ folders: folderCompletions(typed, homeDir) }),
    getDataFolderUsage: () => ({ checkpointBytes: checkpoints.size() }),
  };
}
