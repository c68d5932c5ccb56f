/**
 * The person's instruction settings, stored durably in the data folder's database: their own
 * instructions (every conversation), each agent's profile (revisions with digests), and per agent
 * whether Baton delivers at all and whether the person accepted command-line channels. Composes a
 * conversation's bundle (with its trusted folder's instructions) and its digest.
 */
import { z } from 'zod';
import {
  composeBundle,
  digestInput,
  instructionTextSchema,
  type InstructionBundle,
  type InstructionPart,
  type InstructionSource,
  type InstructionText,
} from '../../../app/instructions/bundle.js';
import { agentInstructionSettingsSchema, type AgentInstructionSettings } from '../../../app/instructions/delivery.js';
import type { Env } from '../adapters/AgentAdapter.js';
import type { Instructions } from '../binding/PreparedBinding.js';
import type { EventStore } from '../store/EventStore.js';
import { sha256Hex } from '../sha256.js';
import type { Injector } from '../../../app/instructions/injectors.js';
import type { Machines } from '../machine/Machines.js';
import { InjectorRegistry, type InjectorSources } from './InjectorRegistry.js';
import { ProjectInstructions, type FolderPlace, type TrustedFolder } from './ProjectInstructions.js';

const PERSON_KEY = 'instructions.person';
const agentKey = (agentId: string): string => `instructions.agent.${agentId}`;
const profileKey = (agentId: string): string => `instructions.profile.${agentId}`;

/** One revision of an agent's profile: every change makes a new one. */
export const profileSchema = instructionTextSchema.extend({
  revision: z.number().int().nonnegative(),
  sha256: z.string(),
  updatedAt: z.string(),
});
/** One of {@link profileSchema}. */
export type AgentProfile = z.infer<typeof profileSchema>;

const NO_INSTRUCTIONS: InstructionText = { text: '', intent: 'append' };
const DEFAULT_AGENT_SETTINGS: AgentInstructionSettings = { off: false, commandLineAccepted: false, contextAsText: false };

/** A composed bundle with its digest, and the digest (and revision) of each source that went in. */
export type ComposedInstructions = {
  bundle: InstructionBundle;
  sha256: string;
  sources: Array<{ source: InstructionSource; sha256: string; revision?: number; name?: string }>;
};

/** What a conversation's bundle is made of. */
export type BundleInputs = {
  conversation: InstructionText | null;
  /** Defaults to the saved one. */
  person?: InstructionText;
  /** The agent whose profile goes in (defaults to its saved profile). */
  agentId?: string;
  profile?: InstructionText;
  /** The trusted working folder's text (read for the moment with {@link InstructionSettings.sources}). */
  project?: string | null;
  /** The injectors selected for the turn: their every-turn instructions go in. */
  injectors?: readonly Injector[];
};

/** sha256 of what a bundle delivers. */
/** What a conversation's working folder and the person's data folder give it, read for one turn or preview. */
export type InstructionSources = {
  /** The working folder as the person trusted it (null: none, or not trusted). */
  project: TrustedFolder | null;
  injectors: InjectorSources;
};

/** Sources with nothing from a folder or the data folder (a check that reads neither). */
export const NO_SOURCES: InstructionSources = { project: null, injectors: { personal: [], folder: [] } };

export function bundleDigest(bundle: InstructionBundle): string {
  return sha256Hex(digestInput(bundle));
}

/** The settings, over the store. */
export class InstructionSettings {
  /** Working folders' instructions and the person's trust in them. */
  readonly projects: ProjectInstructions;
  /** The injectors conversations can select. */
  readonly injectors: InjectorRegistry;

  constructor(
    private readonly store: EventStore,
    private readonly env: Env,
    /** The data folder, whose `instructions/` holds the person's own injectors. */
    dataDir: string | undefined,
    /** The secret values Baton knows, redacted from injector output. */
    secrets: () => readonly string[],
    /** The host's own machine (`local`: its data folder holds the person's injectors), and which machines are it. */
    machines: Pick<Machines, 'local' | 'isLocal'>,
  ) {
    this.projects = new ProjectInstructions(store, secrets, (machineId) => machines.isLocal(machineId));
    this.injectors = new InjectorRegistry(dataDir, machines.local, secrets);
  }

  /**
   * Reads what a turn or a preview composes from, on the folder's machine: the working folder's
   * trusted text and injectors (none without a folder), and the person's own injectors.
   */
  async sources(place: FolderPlace | undefined): Promise<InstructionSources> {
    return this.sourcesWith(place ? await this.projects.trusted(place) : null);
  }

  /** The sources with the working folder's trust already read (a preview reads the folder anyway). */
  async sourcesWith(project: TrustedFolder | null): Promise<InstructionSources> {
    return { project, injectors: await this.injectors.read(project) };
  }

  /** An agent's profile as last saved (revision 0: never written). */
  profile(agentId: string): AgentProfile {
    return this.store.getSetting(profileKey(agentId), profileSchema, {
      text: '',
      intent: 'append',
      revision: 0,
      sha256: sha256Hex(''),
      updatedAt: '',
    });
  }

  /** Saves a new revision of an agent's profile (nothing changes when the text and intent are the same). */
  setProfile(agentId: string, value: InstructionText): AgentProfile {
    const current = this.profile(agentId);
    if (current.text === value.text && current.intent === value.intent) {
      return current;
    }
    composeBundle([{ source: 'profile', ...value }]);
    const next: AgentProfile = {
      ...value,
      revision: current.revision + 1,
      sha256: sha256Hex(`${value.intent}\n${value.text}`),
      updatedAt: new Date().toISOString(),
    };
    this.store.setSetting(profileKey(agentId), next);
    return next;
  }

  /** The person's own instructions (empty until they write some). */
  person(): InstructionText {
    return this.store.getSetting(PERSON_KEY, instructionTextSchema, NO_INSTRUCTIONS);
  }

  /** Saves the person's own instructions; refuses a bundle past the size limit, saving nothing. */
  setPerson(value: InstructionText): void {
    composeBundle([{ source: 'person', ...value }]);
    this.store.setSetting(PERSON_KEY, value);
  }

  /** The person's choices for one agent. */
  agent(agentId: string): AgentInstructionSettings {
    return this.store.getSetting(agentKey(agentId), agentInstructionSettingsSchema, DEFAULT_AGENT_SETTINGS);
  }

  /** Saves the person's choices for one agent (what is left out stays as it was). */
  setAgent(agentId: string, value: Partial<AgentInstructionSettings>): void {
    this.store.setSetting(agentKey(agentId), { ...this.agent(agentId), ...value });
  }

  /** Baton's own note is on unless BATON_NO_SYSTEM_PROMPT_APPEND=1. */
  get fragment(): boolean {
    return this.env.BATON_NO_SYSTEM_PROMPT_APPEND !== '1';
  }

  /**
   * The bundle of a conversation, in order: the person's instructions, the trusted folder's (only
   * what the person trusted; an untrusted folder gives nothing), the agent's profile, then the
   * conversation's own.
   */
  compose(inputs: BundleInputs): ComposedInstructions {
    const person = inputs.person ?? this.person();
    const project = inputs.project ?? null;
    const saved = inputs.agentId ? this.profile(inputs.agentId) : undefined;
    const profile = inputs.profile ?? saved;
    const parts: InstructionPart[] = [
      { source: 'person', ...person },
      ...(project === null ? [] : [{ source: 'project' as const, text: project, intent: 'append' as const }]),
      ...(profile ? [{ source: 'profile' as const, text: profile.text, intent: profile.intent }] : []),
      ...(inputs.injectors ?? [])
        .filter((injector) => injector.when === 'every_turn')
        .map((injector) => ({ source: 'injector' as const, name: injector.name, text: injector.instructions, intent: 'append' as const })),
      ...(inputs.conversation ? [{ source: 'conversation' as const, ...inputs.conversation }] : []),
    ];
    const bundle = composeBundle(parts);
    const sources = bundle.parts.map((part) => ({
      source: part.source,
      sha256: sha256Hex(`${part.intent}\n${part.text}`),
      ...(part.source === 'profile' && saved && !inputs.profile ? { revision: saved.revision } : {}),
      ...(part.name !== undefined ? { name: part.name } : {}),
    }));
    return { bundle, sha256: bundleDigest(bundle), sources };
  }

  /** What a binding for `agentId` carries. */
  forBinding(agentId: string, composed: ComposedInstructions): Instructions {
    return Object.freeze({
      replace: composed.bundle.replace,
      append: composed.bundle.append,
      sha256: composed.sha256,
      settings: this.agent(agentId),
      fragment: this.fragment,
    });
  }
}
