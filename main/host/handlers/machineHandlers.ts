/** The machines' handlers: list, add, remove, connect (test), trust a host key and upload Node. */
import { MachineBlockedError } from '../../../app/errors.js';
import type { HandlerGroup, HostParts } from './HostParts.js';

type MachineMethods =
  | 'listMachines'
  | 'addMachine'
  | 'addCommandMachine'
  | 'removeMachine'
  | 'connectMachine'
  | 'trustMachineKey'
  | 'uploadNodeToMachine'
  | 'listContainers'
  | 'setContainerSettings'
  | 'removeContainer'
  | 'devContainerOf'
  | 'openDevContainer';

/** The machines' handlers. */
export function machineHandlers({
  machines,
  containers,
  devContainers,
}: Pick<HostParts, 'machines' | 'containers' | 'devContainers'>): HandlerGroup<MachineMethods> {
  /** Connects, and answers with the machine's state: a block is a state to show (with its reason), not a failed request. */
  const connected = async (machineId: string, connect: () => Promise<unknown>) => {
    try {
      await connect();
    } catch (error) {
      if (!(error instanceof MachineBlockedError)) {
        throw error;
      }
    }
    return { machine: machines.view(machineId) };
  };
  return {
    listMachines: () => ({ machines: machines.list() }),
    addMachine: ({ destination }) => ({ machine: machines.add(destination) }),
    addCommandMachine: ({ name, command }) => ({ machine: machines.addCommand(name, command) }),
    removeMachine: async ({ machineId }) => {
      await machines.remove(machineId);
      return { machines: machines.list() };
    },
    connectMachine: ({ machineId }) => connected(machineId, () => machines.connect(machineId, true)),
    trustMachineKey: ({ machineId, fingerprint }) => connected(machineId, () => machines.trust(machineId, fingerprint)),
    uploadNodeToMachine: ({ machineId }) => connected(machineId, () => machines.uploadNode(machineId)),
    listContainers: () => containers.info(),
    setContainerSettings: ({ engine, runOptions }) => {
      containers.setSettings({ engine, runOptions });
      return containers.info();
    },
    removeContainer: async ({ name }) => {
      await containers.removeNamed(name);
      return containers.info();
    },
    devContainerOf: async ({ folder }) => ({ config: (await devContainers.configOf(folder)) ?? null }),
    openDevContainer: ({ folder }) => machines.openDevContainer(folder),
  };
}
