/**
 * The Node the project asks for (package.json `engines`) is one every package it installs takes:
 * npm warns (EBADENGINE) for each package whose own `engines` the project's range goes beyond,
 * and the README names the same range, with why.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const own = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: Record<string, string> | string[] }>;
};

describe('the Node the project needs', () => {
  it('is within the Node range of every installed package', () => {
    const beyond = Object.entries(lock.packages).flatMap(([name, entry]) => {
      const node = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
      return name === '' || node === undefined || semver.subset(own.engines.node, node) ? [] : [`${name} needs ${node}`];
    });
    expect(beyond).toEqual([]);
  });

  it('is the lock file’s and the README’s', () => {
    expect(lock.packages['']).toMatchObject({ engines: { node: own.engines.node } });
    expect(readFileSync(path.join(root, 'README.md'), 'utf8')).toContain(`\`${own.engines.node}\``);
  });
});
