/**
 * Attachments of the message being written: files of the working folder mentioned with @, images
 * pasted, dropped or picked, and other files picked or dropped (sent as their text). Shown as a list
 * above the message box, each with its remove button; sent with the message.
 */
import { MAX_DOCUMENT_TEXT, MAX_IMAGE_BASE64 } from '../../../app/prompt/attachments.js';
import { useBaton } from '../../store/index.js';
import { useAsked } from '../../components/Suggestions.js';
import type { ComposerAttachment } from '../../store/types.js';

let nextId = 0;
const newId = (): string => `attachment-${(nextId += 1)}`;

/** An attachment made from a picked, pasted or dropped file; rejects with a sentence when it cannot be one. */
export async function fileAttachment(file: File): Promise<ComposerAttachment> {
  if (file.type.startsWith('image/')) {
    const data = await new Promise<string>((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
      reader.onerror = () => reject(new Error(`Could not read ${file.name || 'the image'}.`));
      reader.readAsDataURL(file);
    });
    if (data.length > MAX_IMAGE_BASE64) {
      throw new Error(`${file.name || 'The image'} is too large to attach (at most about 7 MB).`);
    }
    const name = file.name || `pasted-image.${file.type.split('/')[1] ?? 'png'}`;
    return {
      id: newId(),
      label: name,
      attachment: { type: 'image', name, mimeType: file.type, data },
      previewUrl: `data:${file.type};base64,${data}`,
    };
  }
  if (file.size > MAX_DOCUMENT_TEXT) {
    throw new Error(`${file.name} is too large to attach (at most 1 MB of text); mention it with @ if it is in the working folder.`);
  }
  const text = await file.text();
  if (text.includes('\u0000')) {
    throw new Error(`${file.name} is not a text file; only images and text files can be attached.`);
  }
  return { id: newId(), label: file.name, attachment: { type: 'document', name: file.name, mimeType: file.type || 'text/plain', text } };
}

/** A file of the working folder, mentioned with @. */
export function mentionAttachment(path: string): ComposerAttachment {
  return { id: newId(), label: `@${path}`, attachment: { type: 'file', path } };
}

/** The list of attachments, each removable. */
export function AttachmentList({ attachments, remove }: { attachments: readonly ComposerAttachment[]; remove: (id: string) => void }) {
  if (attachments.length === 0) {
    return null;
  }
  return (
    <ul className="attachments" aria-label="Attachments">
      {attachments.map((entry) => (
        <li key={entry.id} className="attachment">
          {entry.previewUrl ? (
            <img src={entry.previewUrl} alt="" className="attachment-preview" />
          ) : (
            <span aria-hidden="true">{entry.attachment.type === 'file' ? '📄' : '📎'}</span>
          )}
          <span className="attachment-name">{entry.label}</span>
          <button type="button" aria-label={`Remove ${entry.label}`} onClick={() => remove(entry.id)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The @ being typed at the caret, if any: its start and the text after it. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const match = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  return match ? { start: caret - match[2]!.length - 1, query: match[2]! } : undefined;
}

/** Files of the working folder (on `machineId`, this computer when absent) matching a mention's query (asked of the host). */
export function useFolderFiles(cwd: string, machineId: string | undefined, query: string | undefined): string[] {
  const folder = cwd.trim();
  const findFiles = useBaton((state) => state.findFiles);
  return useAsked(query === undefined || !folder ? undefined : `${machineId ?? ''}\n${folder}\n${query}`, () =>
    findFiles(folder, query ?? '', machineId),
  );
}
