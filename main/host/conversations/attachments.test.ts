import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachmentBlocks, prepareAttachments } from './attachments.js';

const made: string[] = [];
afterEach(() => made.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function folder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'baton-attach-'));
  made.push(dir);
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src', 'notes.md'), 'hello');
  return dir;
}

describe('attachments', () => {
  it('links a file of the working folder, and refuses one outside it (by path or by link)', () => {
    const cwd = folder();
    const outside = folder();
    symlinkSync(path.join(outside, 'src', 'notes.md'), path.join(cwd, 'escape.md'));
    const [ready] = prepareAttachments([{ type: 'file', path: 'src/notes.md' }], cwd);
    expect(ready!.record).toMatchObject({ type: 'file', name: 'src/notes.md', size: 5 });
    expect(attachmentBlocks([ready!], { agentName: 'A', image: false, embeddedContext: false })).toEqual([
      { type: 'resource_link', uri: ready!.uri, name: 'src/notes.md', size: 5 },
    ]);
    expect(() => prepareAttachments([{ type: 'file', path: '../x' }], cwd)).toThrow(/not in the working folder/);
    expect(() => prepareAttachments([{ type: 'file', path: 'escape.md' }], cwd)).toThrow(/not a file inside the working folder/);
    expect(() => prepareAttachments([{ type: 'file', path: 'src' }], cwd)).toThrow(/not a file inside/);
  });

  it('sends an image and a document only to an agent that takes them, else the typed refusal naming both', () => {
    const cwd = folder();
    const ready = prepareAttachments(
      [
        { type: 'image', name: 'shot.png', mimeType: 'image/png', data: Buffer.from('png bytes').toString('base64') },
        { type: 'document', name: 'log.txt', mimeType: 'text/plain', text: 'line' },
      ],
      cwd,
    );
    expect(ready.map((entry) => entry.record)).toMatchObject([
      { type: 'image', name: 'shot.png', size: 9 },
      { type: 'document', name: 'log.txt', size: 4 },
    ]);
    expect(attachmentBlocks(ready, { agentName: 'A', image: true, embeddedContext: true })).toMatchObject([
      { type: 'image', mimeType: 'image/png' },
      { type: 'resource', resource: { text: 'line' } },
    ]);
    expect(() => attachmentBlocks(ready, { agentName: 'Gemini', image: false, embeddedContext: true })).toThrow(
      expect.objectContaining({
        code: 'UnsupportedInput',
        message: expect.stringMatching(/^Gemini cannot take the image shot\.png: it does not take images/),
      }),
    );
    expect(() => attachmentBlocks(ready.slice(1), { agentName: 'Gemini', image: true, embeddedContext: false })).toThrow(
      /Gemini cannot take the attached file log\.txt/,
    );
  });
});
