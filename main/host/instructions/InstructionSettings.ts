/**
 * The person's instruction settings, stored durably in the data folder's database: their own
 * instructions (every conversation), and per agent whether Baton delivers at all and whether the
 * person accepted command-line channels. Composes a conversation's bundle and its digest.
 */
import { createHash } from 'node:crypto';
import { composeBundle, digestInput, instructionTextSchema, type InstructionBundle, type InstructionText } from '../../../app/instructions/bundle.js';
import { agentInstructionSettingsSchema, type AgentInstructionSettings } from '../../../app/instructions/delivery.js';
import type { Env } from '../adapters/AgentAdapter.js';
import type { Instructions } from '../binding/PreparedBinding.js';
import type { EventStore } from '../store/EventStore.js';

const PERSON_KEY = 'instructions.person';
const agentKey = (agentId: string): string => `instructions.agent.${agentId}`;

const NO_INSTRUCTIONS: InstructionText = { text: '', intent: 'append' };
const DEFAULT_AGENT_SETTINGS: AgentInstructionSettings = { off: false, commandLineAccepted: false };

/** A composed bundle with its digest. */
export type ComposedInstructions = { bundle: InstructionBundle; sha256: string };

/** sha256 of what a bundle delivers. */
export function bundleDigest(bundle: InstructionBundle): string {
  return createHash('sha256').update(digestInput(bundle)).digest('hex');
}

/** The settings, over the store. */
export class InstructionSettings {
  constructor(
    private readonly store: EventStore,
    private readonly env: Env,
  ) {}

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

  /** Saves the person's choices for one agent. */
  setAgent(agentId: string, value: AgentInstructionSettings): void {
    this.store.setSetting(agentKey(agentId), value);
  }

  /** Baton's own note is on unless BATON_NO_SYSTEM_PROMPT_APPEND=1. */
  get fragment(): boolean {
    return this.env.BATON_NO_SYSTEM_PROMPT_APPEND !== '1';
  }

  /** The bundle of a conversation: the person's instructions, then the conversation's own. */
  compose(conversation: InstructionText | null, person: InstructionText = this.person()): ComposedInstructions {
    const bundle = composeBundle([{ source: 'person', ...person }, ...(conversation ? [{ source: 'conversation' as const, ...conversation }] : [])]);
    return { bundle, sha256: bundleDigest(bundle) };
  }

  /** What a binding for `agentId` carries. */
  forBinding(agentId: string, composed: ComposedInstructions): Instructions {
    return Object.freeze({ replace: composed.bundle.replace, append: composed.bundle.append, sha256: composed.sha256, settings: this.agent(agentId), fragment: this.fragment });
  }
}
