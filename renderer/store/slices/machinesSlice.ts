/**
 * Machines: this computer and those reached over SSH (Settings › Machines, the new conversation's
 * "Machine" picker). Picking a machine connects to it; a host key it offers that is not trusted
 * yet is asked about ("New host key"), and trusted only when the person agrees to the key shown.
 */
import type { MachineInfo } from '../../../app/ipc/index.js';
import type { Slice } from '../types.js';

/** The id of this computer. */
export const THIS_COMPUTER = 'local';

/** The machines slice. */
export type MachinesSlice = {
  /** Every machine, this computer first (empty until loaded). */
  machines: MachineInfo[];
  /** The machine whose new host key is being asked about, if one is. */
  hostKeyAsked: MachineInfo | null;
  loadMachines(): Promise<void>;
  /** A machine's new state, pushed by the host or answered to a request. */
  receiveMachine(machine: MachineInfo): void;
  /** Puts the new conversation on a machine, connecting to it (a new host key is asked about). */
  setDraftMachine(machineId: string): Promise<void>;
  /** Connects to a machine again (Settings' Test); a new host key is asked about. */
  testMachine(machineId: string): Promise<void>;
  /** A conversation on the machine was opened: connects when it is not connected (never past a block: that takes Test). */
  connectForConversation(machineId: string): Promise<void>;
  /** Trusts the key being asked about, then connects. */
  trustHostKey(): Promise<void>;
  /** Does not trust it: the machine stays blocked, and says so. */
  dismissHostKey(): void;
  /** Uploads the Node offered to a machine that has none (the person agreed), then connects. */
  uploadNode(machineId: string): Promise<void>;
  /** Adds a machine by `user@host[:port]` or an ssh config alias; resolves with an error message, or null. */
  addMachine(destination: string): Promise<string | null>;
  /**
   * Adds a machine reached by a command (a container: `podman exec -i baton-dev`) called `name`;
   * resolves with an error message, or null.
   */
  addCommandMachine(name: string, command: string): Promise<string | null>;
  removeMachine(machineId: string): Promise<void>;
  /** The dev container config of a folder on this computer, or null when it has none. */
  devContainerOf(folder: string): Promise<string | null>;
  /** The folder being opened in its dev container, while it is. */
  devContainerOpening: string | null;
  /**
   * Opens a folder in its dev container: once up, the new conversation is on it, in its workspace
   * folder; when it cannot be, the machine is blocked with the CLI's words (and its log).
   */
  openDevContainer(folder: string): Promise<void>;
};

export const machinesSlice: Slice<MachinesSlice> = (api) => (set, get) => {
  /** Connects, and asks about a new host key when that is what blocks it. */
  const connect = async (machineId: string): Promise<void> => {
    try {
      const { machine } = await api.call('connectMachine', { machineId });
      get().receiveMachine(machine);
      if (machine.state === 'blocked' && machine.reason === 'host-key-unknown' && machine.fingerprint) {
        set({ hostKeyAsked: machine });
      }
    } catch (error) {
      get().showError(error);
    }
  };
  return {
    machines: [],
    hostKeyAsked: null,
    devContainerOpening: null,
    async devContainerOf(folder) {
      return (await api.call('devContainerOf', { folder })).config;
    },
    async openDevContainer(folder) {
      set({ devContainerOpening: folder });
      try {
        const { machine, workspace } = await api.call('openDevContainer', { folder });
        get().receiveMachine(machine);
        if (machine.state === 'connected' && workspace) {
          set((state) => ({ draft: { ...state.draft, machineId: machine.machineId } }));
          get().setDraftCwd(workspace);
        }
      } catch (error) {
        get().showError(error);
      } finally {
        set({ devContainerOpening: null });
      }
    },
    async loadMachines() {
      try {
        set({ machines: (await api.call('listMachines', {})).machines });
      } catch (error) {
        get().showError(error);
      }
    },
    receiveMachine(machine) {
      set((state) => {
        const known = state.machines.some((entry) => entry.machineId === machine.machineId);
        return {
          machines: known
            ? state.machines.map((entry) => (entry.machineId === machine.machineId ? machine : entry))
            : [...state.machines, machine],
        };
      });
    },
    async setDraftMachine(machineId) {
      const local = machineId === THIS_COMPUTER;
      set((state) => {
        const { machineId: _previous, ...draft } = state.draft;
        return { draft: local ? draft : { ...draft, machineId } };
      });
      // The folder typed is checked again, on the machine now chosen.
      get().setDraftCwd(get().draft.cwd);
      if (!local) {
        await connect(machineId);
        get().setDraftCwd(get().draft.cwd);
      }
    },
    testMachine: connect,
    async connectForConversation(machineId) {
      const machine = get().machines.find((entry) => entry.machineId === machineId);
      // An attempt's container (or a dev container) is not listed until Baton holds it: asked for by its id.
      const unlisted = !machine && /^(box|dev):/.test(machineId);
      if (machineId !== THIS_COMPUTER && (machine?.state === 'not-connected' || unlisted)) {
        await connect(machineId);
      }
    },
    async trustHostKey() {
      const asked = get().hostKeyAsked;
      set({ hostKeyAsked: null });
      if (!asked?.fingerprint) {
        return;
      }
      try {
        const { machine } = await api.call('trustMachineKey', { machineId: asked.machineId, fingerprint: asked.fingerprint });
        get().receiveMachine(machine);
        get().setDraftCwd(get().draft.cwd);
      } catch (error) {
        get().showError(error);
      }
    },
    dismissHostKey() {
      set({ hostKeyAsked: null });
    },
    async uploadNode(machineId) {
      try {
        const { machine } = await api.call('uploadNodeToMachine', { machineId });
        get().receiveMachine(machine);
        get().setDraftCwd(get().draft.cwd);
      } catch (error) {
        get().showError(error);
      }
    },
    async addMachine(destination) {
      try {
        const { machine } = await api.call('addMachine', { destination });
        get().receiveMachine(machine);
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    },
    async addCommandMachine(name, command) {
      try {
        const { machine } = await api.call('addCommandMachine', { name, command });
        get().receiveMachine(machine);
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    },
    async removeMachine(machineId) {
      try {
        set({ machines: (await api.call('removeMachine', { machineId })).machines });
      } catch (error) {
        get().showError(error);
      }
    },
  };
};
