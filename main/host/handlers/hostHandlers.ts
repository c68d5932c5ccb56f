/** Requests about the host itself and the machine: what this host is, folder and file completion, the agent processes running. */
import { folderCompletions, folderFiles } from '../files/folderFiles.js';
import type { HandlerGroup, HostParts } from './HostParts.js';

type HostMethods = 'getHostInfo' | 'listFolderFiles' | 'listFolders';

/** The host's own handlers. */
export function hostHandlers({ homeDir, dataDir, version, logins }: HostParts): HandlerGroup<HostMethods> {
  return {
    getHostInfo: () => ({ homeDir, dataDir, version, terminalLogin: logins.supported }),
    listFolderFiles: ({ cwd, query }) => folderFiles(cwd, query),
    listFolders: ({ typed }) => ({ folders: folderCompletions(typed, homeDir) }),
  };
}
