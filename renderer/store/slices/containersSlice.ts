/**
 * The containers Baton starts for attempts (Settings › Machines, "Containers"): the engine it
 * starts them with and the options added to each, and the containers it started, those left
 * behind by a crash listed for removal.
 */
import type { ContainersInfo } from '../../../app/ipc/machineRequests.js';
import { shownError, type Slice } from '../types.js';

/** The containers slice. */
export type ContainersSlice = {
  /** As last read (null until loaded). */
  containers: ContainersInfo | null;
  /** Why the last change could not be made (null: it was). */
  containersProblem: string | null;
  loadContainers(): Promise<void>;
  /** Sets the engine ('' the first found) and the run options; resolves true when they were taken. */
  setContainerSettings(settings: { engine?: '' | 'podman' | 'docker'; runOptions?: string }): Promise<boolean>;
  /** Removes a container Baton started (one left behind). */
  removeContainer(name: string): Promise<void>;
};

export const containersSlice: Slice<ContainersSlice> = (api) => (set) => {
  const answered = async (request: () => Promise<ContainersInfo>): Promise<boolean> => {
    try {
      set({ containers: await request(), containersProblem: null });
      return true;
    } catch (error) {
      set({ containersProblem: shownError(error).message });
      return false;
    }
  };
  return {
    containers: null,
    containersProblem: null,
    async loadContainers() {
      await answered(() => api.call('listContainers', {}));
    },
    setContainerSettings(settings) {
      return answered(() => api.call('setContainerSettings', settings));
    },
    async removeContainer(name) {
      await answered(() => api.call('removeContainer', { name }));
    },
  };
};
