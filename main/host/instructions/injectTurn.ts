/**
 * What the selected injectors give one turn: the prompt blocks that go ahead of the person's
 * message (embedded resources where the agent takes them, else delimited text where the person
 * allowed that, else the typed refusal), and the events that record each contribution apart
 * from the person's message.
 */
import { UnsupportedInputError } from '../../../app/errors.js';
import type { EventDraft } from '../../../app/events/index.js';
import { delimitedContext, injectorUri, perTurnText, type Injector } from '../../../app/instructions/injectors.js';
import type { AgentInstructionSettings, PartLevel } from '../../../app/instructions/delivery.js';
import type { PromptBlock } from '../acp/AgentConnection.js';
import { sha256Hex } from '../sha256.js';

/** The blocks for the prompt and the events for the transcript. */
export type TurnInjection = { blocks: PromptBlock[]; drafts: EventDraft[] };

/** Builds one turn's injection; throws the typed refusal when the agent cannot take per-turn context. */
export function injectTurn(options: {
  agentName: string;
  injectors: readonly Injector[];
  turnId: string;
  /** The turn's number in the conversation (for the blocks' URIs). */
  turnNumber: number;
  /** No earlier turn of the conversation reached an agent. */
  first: boolean;
  message: string;
  /** The agent advertises `promptCapabilities.embeddedContext`. */
  embeddedContext: boolean;
  settings: Pick<AgentInstructionSettings, 'contextAsText'>;
  /** Where the bundle's additions landed for this agent (every-turn instructions travel with them). */
  appendLevel: PartLevel | undefined;
}): TurnInjection {
  const { agentName, injectors, turnId, turnNumber, first, message, embeddedContext, settings, appendLevel } = options;
  const blocks: PromptBlock[] = [];
  const drafts: EventDraft[] = [];
  for (const injector of injectors) {
    // Every-turn instructions went into the session's bundle; recorded at the level they reached.
    if (
      injector.when === 'every_turn' &&
      injector.instructions.trim() !== '' &&
      (appendLevel?.kind === 'system-added' || appendLevel?.kind === 'developer')
    ) {
      const text = injector.instructions.trim();
      drafts.push({
        type: 'context.injected',
        payload: {
          turnId,
          injector: injector.name,
          timing: injector.when,
          origin: injector.origin,
          level: appendLevel.kind === 'developer' ? 'developer' : 'system',
          sha256: sha256Hex(text),
          text,
        },
      });
    }
    const text = perTurnText(injector, { first, message });
    if (text === null) {
      continue;
    }
    const uri = injectorUri(injector.name, turnNumber);
    if (embeddedContext) {
      blocks.push({ type: 'resource', resource: { uri, mimeType: 'text/markdown', text } });
    } else if (settings.contextAsText) {
      blocks.push({ type: 'text', text: delimitedContext(uri, text) });
    } else {
      throw new UnsupportedInputError(
        agentName,
        `context from the injector "${injector.name}"`,
        `it does not take embedded context in a prompt (promptCapabilities.embeddedContext); in Instructions, let per-turn context reach ${agentName} as labelled text, or deselect the injector`,
      );
    }
    drafts.push({
      type: 'context.injected',
      payload: {
        turnId,
        injector: injector.name,
        timing: injector.when,
        origin: injector.origin,
        level: embeddedContext ? 'per-turn resource' : 'per-turn text',
        sha256: sha256Hex(text),
        text,
        uri,
      },
    });
  }
  return { blocks, drafts };
}
