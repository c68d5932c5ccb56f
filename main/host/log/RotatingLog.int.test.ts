import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { LOG_FOLDER, RotatingLog } from './RotatingLog.js';

describe('the rotating log', () => {
  it('writes one line per message and keeps a bounded number of files', () => {
    const dataDir = tempDir('log');
    const log = new RotatingLog(dataDir, 200, 3);
    for (let index = 0; index < 40; index += 1) {
      log.write(`event ${index}\nwith a second line`);
    }
    const files = readdirSync(path.join(dataDir, LOG_FOLDER)).sort();
    expect(files).toEqual(['baton.1.log', 'baton.2.log', 'baton.log']);
    const last = readFileSync(log.file, 'utf8').trim().split('\n');
    expect(last.at(-1)).toMatch(/^\d{4}-\d\d-\d\dT\S+ event 39 with a second line$/);
    for (const file of files) {
      expect(readFileSync(path.join(dataDir, LOG_FOLDER, file)).length).toBeLessThanOrEqual(200);
    }
    expect(existsSync(path.join(dataDir, LOG_FOLDER, 'baton.3.log'))).toBe(false);
  });
});
