/**
 * Attachments on their way to an agent: checked when the message is sent (a mentioned file must be
 * inside the working folder and exist), recorded on the turn, and turned into prompt blocks once
 * the agent's capabilities are known — or refused with the typed error when it cannot take them.
 */
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidRequestError, UnsupportedInputError } from '../../../app/errors.js';
import { attachmentWords, type Attachment, type AttachmentRecord } from '../../../app/prompt/attachments.js';
import type { PromptBlock } from '../acp/AgentConnection.js';
import { sha256Hex } from '../sha256.js';
import { isInside } from '../files/isInside.js';

/** An attachment checked and ready: what to record and what to send. */
export type ReadyAttachment = { record: AttachmentRecord; attachment: Attachment; uri?: string };

/** Checks the attachments of a message sent in `cwd`; throws InvalidRequest naming the first bad one. */
export function prepareAttachments(attachments: readonly Attachment[], cwd: string): ReadyAttachment[] {
  let root: string | undefined;
  return attachments.map((attachment) => {
    switch (attachment.type) {
      case 'file': {
        let real: string;
        try {
          root ??= realpathSync(cwd);
          real = realpathSync(path.resolve(root, attachment.path));
        } catch {
          throw new InvalidRequestError(`The file "${attachment.path}" is not in the working folder ${cwd}.`);
        }
        const relative = path.relative(root, real);
        const stats = statSync(real);
        if (!isInside(root, real) || !stats.isFile()) {
          throw new InvalidRequestError(`"${attachment.path}" is not a file inside the working folder ${cwd}.`);
        }
        const uri = pathToFileURL(real).href;
        return { attachment, uri, record: { type: 'file', name: relative.split(path.sep).join('/'), uri, size: stats.size } };
      }
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
  });
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
