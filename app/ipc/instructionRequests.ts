/**
 * Requests about standing instructions: the person's own and a conversation's, profiles, trusted folders, per-agent settings, the preview.
 */
import { z } from 'zod';
import { instructionIntentSchema, instructionSourceSchema, instructionTextSchema } from '../instructions/bundle.js';
import { agentInstructionSettingsSchema, instructionCapabilitySchema, partLevelSchema } from '../instructions/delivery.js';
import { injectorChoiceSchema, injectorOriginSchema, injectorTimingSchema } from '../instructions/injectors.js';

/** What the Instructions dialog shows for one agent. */
export const instructionPreviewSchema = z.object({
  agentId: z.string(),
  agentName: z.string(),
  /** Each part the person wrote, in composition order, with where it lands. */
  parts: z.array(
    z.object({
      source: instructionSourceSchema,
      sourceName: z.string(),
      name: z.string().optional(),
      intent: instructionIntentSchema,
      text: z.string(),
      level: partLevelSchema,
      label: z.string(),
      sha256: z.string(),
    }),
  ),
  /** What the selected injectors give single turns (on the prompt, ahead of the person's message). */
  perTurn: z.array(
    z.object({
      name: z.string(),
      timing: injectorTimingSchema,
      when: z.string(),
      text: z.string(),
      level: partLevelSchema,
      label: z.string(),
      sha256: z.string(),
    }),
  ),
  /** The injectors this conversation can select, the ones that cannot be read, and its switch. */
  injectors: z.object({
    available: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        timing: injectorTimingSchema,
        timingName: z.string(),
        origin: injectorOriginSchema,
        folder: z.string(),
        /** Manifest keys that contribute nothing (tools, permissions, code…). */
        ignored: z.array(z.string()),
        selected: z.boolean(),
      }),
    ),
    broken: z.array(
      z.object({ name: z.string(), origin: injectorOriginSchema, folder: z.string(), problem: z.string(), selected: z.boolean() }),
    ),
    off: z.boolean(),
  }),
  /** sha256 of the bundle (recorded on every turn that runs under it). */
  sha256: z.string(),
  /** Baton's own short note: delivered, skipped (no channel), or off. */
  fragment: z.enum(['delivered', 'skipped', 'off']),
  fragmentNote: z.string().optional(),
  settings: agentInstructionSettingsSchema,
  channels: instructionCapabilitySchema,
  /** True when one of this agent's channels is a command-line argument. */
  commandLine: z.boolean(),
  /** Why a turn with these texts would be refused, when it would. */
  refusal: z.string().nullable(),
  /** The agent's saved profile and its revision (0: never written). */
  profile: z.object({ text: z.string(), intent: instructionIntentSchema, revision: z.number().int() }),
  /** The working folder's `.baton/instructions.md`: what it says now, what was trusted, how it stands. */
  project: z.object({
    state: z.enum(['none', 'untrusted', 'changed', 'trusted']),
    folder: z.string().nullable(),
    text: z.string().nullable(),
    sha256: z.string().nullable(),
    problem: z.string().nullable(),
    trustedText: z.string().nullable(),
    /**
     * The injectors under `.agents/instructions/` as they are now: each folder, the files it contributes with their text, or why it cannot
     * be used.
     */
    injectors: z.array(
      z.object({ dir: z.string(), files: z.array(z.object({ file: z.string(), text: z.string() })), problem: z.string().nullable() }),
    ),
    /** Since the folder was trusted: each file added, changed or removed. */
    changes: z.array(z.string()),
  }),
});

/** One of {@link instructionPreviewSchema}. */
export type InstructionPreview = z.infer<typeof instructionPreviewSchema>;

/** The instructions' requests of the host API contract. */
export const instructionRequests = {
  /** The person's own instructions, and a conversation's when one is named. */
  getInstructions: {
    params: z.object({ conversationId: z.string().optional() }),
    result: z.object({
      person: instructionTextSchema,
      conversation: instructionTextSchema.nullable(),
      injectors: injectorChoiceSchema.nullable(),
    }),
  },
  /** Saves the person's own instructions and/or a conversation's (they apply from its next turn). */
  saveInstructions: {
    params: z.object({
      person: instructionTextSchema.optional(),
      conversationId: z.string().optional(),
      conversation: instructionTextSchema.optional(),
      injectors: injectorChoiceSchema.optional(),
    }),
    result: z.object({}),
  },
  /** Where the given texts would land with one agent, without saving anything. */
  previewInstructions: {
    params: z.object({
      agentId: z.string().min(1),
      person: instructionTextSchema,
      conversation: instructionTextSchema.nullable(),
      profile: instructionTextSchema.optional(),
      cwd: z.string().optional(),
      /** The machine `cwd` is on (absent: this computer). */
      machineId: z.string().min(1).max(400).optional(),
      injectors: injectorChoiceSchema.optional(),
    }),
    result: z.object({ preview: instructionPreviewSchema }),
  },
  /** Saves a new revision of an agent's profile. */
  saveAgentProfile: {
    params: z.object({ agentId: z.string().min(1), profile: instructionTextSchema }),
    result: z.object({ revision: z.number().int() }),
  },
  /** Trusts the working folder's `.baton/instructions.md` as read (its digest must still match), or stops trusting it. */
  setFolderTrust: {
    params: z.object({
      cwd: z.string().min(1),
      /** The machine `cwd` is on (absent: this computer). */
      machineId: z.string().min(1).max(400).optional(),
      trusted: z.boolean(),
      sha256: z.string().optional(),
    }),
    result: z.object({}),
  },
  /** The person's choices for one agent: Baton's delivery off, command-line channels accepted. */
  setAgentInstructionSettings: {
    params: z.object({ agentId: z.string().min(1), settings: agentInstructionSettingsSchema.partial() }),
    result: z.object({}),
  },
} as const;
