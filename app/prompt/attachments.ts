/**
 * What the person attaches to a message, besides its text: files of the working folder mentioned
 * with @ (sent as `resource_link`, which every ACP agent takes), images (sent as `image`, only to
 * an agent that advertises `promptCapabilities.image`), and documents picked or dropped (their
 * text, sent as an embedded `resource`, only with `promptCapabilities.embeddedContext`).
 */
import { z } from 'zod';

/** Base64 of at most about 7.5 MB of image. */
export const MAX_IMAGE_BASE64 = 10_000_000;
/** At most 1 MB of document text. */
export const MAX_DOCUMENT_TEXT = 1_000_000;
/** At most this many attachments a message. */
export const MAX_ATTACHMENTS = 20;

/** One attachment as the window sends it. */
export const attachmentSchema = z.discriminatedUnion('type', [
  /** A file in the working folder, by its path relative to it. */
  z.object({ type: z.literal('file'), path: z.string().min(1).max(4096) }),
  z.object({
    type: z.literal('image'),
    name: z.string().min(1).max(255),
    mimeType: z.string().regex(/^image\/[\w.+-]+$/),
    data: z.string().min(1).max(MAX_IMAGE_BASE64),
  }),
  z.object({
    type: z.literal('document'),
    name: z.string().min(1).max(255),
    mimeType: z.string().max(255),
    text: z.string().max(MAX_DOCUMENT_TEXT),
  }),
]);
export type Attachment = z.infer<typeof attachmentSchema>;

/** What the transcript keeps of an attachment: what it was, never an image's bytes. */
export const attachmentRecordSchema = z.object({
  type: z.enum(['file', 'image', 'document']),
  name: z.string(),
  /** The file's URI, for a file of the working folder. */
  uri: z.string().optional(),
  mimeType: z.string().optional(),
  /** Bytes (a document's text as UTF-8, an image decoded). */
  size: z.number().int().nonnegative().optional(),
  sha256: z.string().optional(),
});
export type AttachmentRecord = z.infer<typeof attachmentRecordSchema>;

/** The words for an attachment in messages: "the image photo.png". */
export function attachmentWords(record: Pick<AttachmentRecord, 'type' | 'name'>): string {
  return record.type === 'image'
    ? `the image ${record.name}`
    : record.type === 'document'
      ? `the attached file ${record.name}`
      : `the file ${record.name}`;
}
