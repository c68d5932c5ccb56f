/** The update policy: which packaged feeds and platforms may install an update by themselves. */
import { describe, expect, it } from 'vitest';
import { parseUpdateConfig, updateRefusal } from './updatePolicy.js';

describe('updates', () => {
  it('are refused without a feed, over plain HTTP, or on Windows without a signing publisher', () => {
    expect(updateRefusal('win32', null)).toContain('without an update feed');
    expect(updateRefusal('darwin', { provider: 'generic', url: 'http://updates.example/baton' })).toContain('not HTTPS');
    expect(updateRefusal('win32', { provider: 'generic', url: 'https://updates.example/baton' })).toContain('names no signing publisher');
    expect(updateRefusal('linux', { provider: 'generic', url: 'https://updates.example/baton' })).toContain('no signature');
  });

  it('go ahead where the signature is checked', () => {
    expect(
      updateRefusal('win32', { provider: 'generic', url: 'https://updates.example/baton', publisherName: ['Baton contributors'] }),
    ).toBeNull();
    expect(updateRefusal('darwin', { provider: 'generic', url: 'https://updates.example/baton' })).toBeNull();
  });

  it("reads electron-builder's app-update.yml", () => {
    const config = parseUpdateConfig(
      "provider: generic\nurl: 'https://updates.example/baton'\npublisherName:\n  - Baton contributors\nupdaterCacheDirName: baton-updater\n",
    );
    expect(config).toEqual({ provider: 'generic', url: 'https://updates.example/baton', publisherName: ['Baton contributors'] });
  });
});
