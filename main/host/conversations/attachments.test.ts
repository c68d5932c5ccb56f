import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachmentBlocks, prepareAttachments, type AttachmentMachine } from './attachments.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import { definedEnv } from '../process/env.js';

const here = new LocalMachine(definedEnv(process.env));

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
  it('links a file of the working folder, and refuses one outside it (by path or by link)', async () => {
    const cwd = folder();
    const outside = folder();
    symlinkSync(path.join(outside, 'src', 'notes.md'), path.join(cwd, 'escape.md'));
    const [ready] = await prepareAttachments([{ type: 'file', path: 'src/notes.md' }], cwd, here);
    expect(ready!.record).toMatchObject({ type: 'file', name: 'src/notes.md', size: 5 });
    expect(attachmentBlocks([ready!], { agentName: 'A', image: false, embeddedContext: false })).toEqual([
      { type: 'resource_link', uri: ready!.uri, name: 'src/notes.md', size: 5 },
    ]);
    await expect(prepareAttachments([{ type: 'file', path: '../x' }], cwd, here)).rejects.toThrow(/not in the working folder/);
    await expect(prepareAttachments([{ type: 'file', path: 'escape.md' }], cwd, here)).rejects.toThrow(
      /not a file inside the working folder/,
    );
    await expect(prepareAttachments([{ type: 'file', path: 'src' }], cwd, here)).rejects.toThrow(/not a file inside/);
  });

  it("looks a mentioned file up on the working folder's machine, not on this computer", async () => {
    // A machine whose folder /srv/work holds src/app.ts (and nothing of it exists here).
    const asked: string[] = [];
    const there: AttachmentMachine = {
      platform: { os: 'linux', arch: 'x64' },
      realpath: (file) => {
        asked.push(file);
        return ['/srv/work', '/srv/work/src/app.ts'].includes(file) ? Promise.resolve(file) : Promise.reject(new Error('ENOENT'));
      },
      stat: (file) => Promise.resolve({ kind: file.endsWith('.ts') ? 'file' : 'folder', size: 42, mode: 0o100644, uid: 1000, gid: 1000 }),
    };
    const [ready] = await prepareAttachments([{ type: 'file', path: 'src/app.ts' }], '/srv/work', there);
    expect(ready!.record).toEqual({ type: 'file', name: 'src/app.ts', uri: 'file:///srv/work/src/app.ts', size: 42 });
    expect(asked).toEqual(['/srv/work', '/srv/work/src/app.ts']);
    await expect(prepareAttachments([{ type: 'file', path: 'src/gone.ts' }], '/srv/work', there)).rejects.toThrow(
      'The file "src/gone.ts" is not in the working folder /srv/work.',
    );
  });

  it('sends an image and a document only to an agent that takes them, else the typed refusal naming both', async () => {
    const cwd = folder();
    const ready = await prepareAttachments(
      [
        { type: 'image', name: 'shot.png', mimeType: 'image/png', data: Buffer.from('png bytes').toString('base64') },
        { type: 'document', name: 'log.txt', mimeType: 'text/plain', text: 'line' },
      ],
      cwd,
      here,
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
