/**
 * Attachments on their way to an agent: checked when the message is sent (a mentioned file must be
 * inside the working folder and exist), recorded on the turn, and turned into prompt blocks once
 * the agent's capabilities are known — or refused with the typed error when it cannot take them.
 */
import { pathToFileURL } from 'node:url';
import { InvalidRequestError, UnsupportedInputError } from '../../../app/errors.js';
import { attachmentWords, type Attachment, type AttachmentRecord } from '../../../app/prompt/attachments.js';
import type { PromptBlock } from '../acp/AgentConnection.js';
import { sha256Hex } from '../sha256.js';
import { isInside } from '../files/isInside.js';
import { pathsOf, type Machine } from '../machine/Machine.js';

/** An attachment checked and ready: what to record and what to send. */
export type ReadyAttachment = { record: AttachmentRecord; attachment: Attachment; uri?: string };

/** The machine a mentioned file is looked up on: the working folder's. */
export type AttachmentMachine = Pick<Machine, 'realpath' | 'stat' | 'platform'>;

/**
 * Checks the attachments of a message sent in `cwd` on `machine` (a mentioned file is looked up
 * there, where the agent reads it); rejects with InvalidRequest naming the first bad one.
 */
export async function prepareAttachments(
  attachments: readonly Attachment[],
  cwd: string,
  machine: AttachmentMachine,
): Promise<ReadyAttachment[]> {
  const paths = pathsOf(machine);
  let root: string | undefined;
  const ready: ReadyAttachment[] = [];
  for (const attachment of attachments) {
    switch (attachment.type) {
      case 'file': {
        let real: string;
        try {
          root ??= await machine.realpath(cwd);
          real = await machine.realpath(paths.resolve(root, attachment.path));
        } catch {
          throw new InvalidRequestError(`The file "${attachment.path}" is not in the working folder ${cwd}.`);
        }
        const relative = paths.relative(root, real);
        const stats = await machine.stat(real).catch(() => undefined);
        if (!isInside(root, real, paths.sep) || stats?.kind !== 'file') {
          throw new InvalidRequestError(`"${attachment.path}" is not a file inside the working folder ${cwd}.`);
        }
        const uri = fileUri(real, machine.platform.os);
        ready.push({ attachment, uri, record: { type: 'file', name: relative.split(paths.sep).join('/'), uri, size: stats.size } });
        break;
      }
      default:
        ready.push(inline(attachment));
    }
  }
  return ready;
}

/** The file: URI of a path on a machine of `os` (a POSIX one's too when this computer runs Windows). */
function fileUri(real: string, os: NodeJS.Platform): string {
  if ((os === 'win32') === (process.platform === 'win32')) {
    return pathToFileURL(real).href;
  }
  return `file://${real.split('/').map(encodeURIComponent).join('/')}`;
}

/** An image or a document: sent as it came, recorded by its size and digest. */
function inline(attachment: Exclude<Attachment, { type: 'file' }>): ReadyAttachment {
  switch (attachment.type) {
    case 'image': {
      const bytes = Buffer.from(attachment.data, 'base64');
      return {
        attachment,
        record: { type: 'image', name: attachment.name, mimeType: attachment.mimeType, size: bytes.length, sha256: sha256Hex(bytes) },
      };
    }
    case 'document':
      return {
        attachment,
        record: {
          type: 'document',
          name: attachment.name,
          mimeType: attachment.mimeType,
          size: Buffer.byteLength(attachment.text),
          sha256: sha256Hex(attachment.text),
        },
      };
  }
}

/** What the agent says it takes in a prompt. */
export type PromptAbility = { agentName: string; image: boolean; embeddedContext: boolean };

/** The prompt blocks of the attachments, or the typed refusal for the first one the agent cannot take. */
export function attachmentBlocks(ready: readonly ReadyAttachment[], ability: PromptAbility): PromptBlock[] {
  return ready.map(({ attachment, record, uri }) => {
    switch (attachment.type) {
      case 'file':
        return { type: 'resource_link', uri: uri!, name: record.name, ...(record.size !== undefined ? { size: record.size } : {}) };
      case 'image':
        if (!ability.image) {
          throw new UnsupportedInputError(
            ability.agentName,
            attachmentWords(record),
            'it does not take images in a prompt (promptCapabilities.image); send the message without it, or pick an agent that does',
          );
        }
        return { type: 'image', mimeType: attachment.mimeType, data: attachment.data };
      case 'document':
        if (!ability.embeddedContext) {
          throw new UnsupportedInputError(
            ability.agentName,
            attachmentWords(record),
            'it does not take attached files in a prompt (promptCapabilities.embeddedContext); mention a file of the working folder with @ instead',
          );
        }
        return {
          type: 'resource',
          resource: {
            uri: `baton://attachment/${encodeURIComponent(attachment.name)}`,
            mimeType: attachment.mimeType || 'text/plain',
            text: attachment.text,
          },
        };
    }
  });
}
