/**
 * `npm run bench [-- attempts|attempts-start|checkpoints|import|ingest|keep|open|pool|search|ssh|start|turns|ui]`:
 * runs the benchmarks and prints their figures (`attempts-start` and `keep` are parts of `attempts` alone).
 */
import { attemptsBenchmark, attemptsStartBenchmark, keepBenchmark } from './attempts.js';
import { checkpointsBenchmark } from './checkpoints.js';
import { importJsonlBenchmark } from './importJsonl.js';
import { ingestBenchmark } from './ingest.js';
import { openBenchmark } from './open.js';
import { poolBenchmark } from './pool.js';
import { searchBenchmark } from './search.js';
import { sshBenchmark } from './ssh.js';
import { startBenchmark } from './start.js';
import { turnsBenchmark } from './turns.js';
import { uiBenchmark } from './ui.js';

const all: Record<string, () => void | Promise<void>> = {
  attempts: attemptsBenchmark,
  'attempts-start': attemptsStartBenchmark,
  checkpoints: checkpointsBenchmark,
  import: importJsonlBenchmark,
  ingest: ingestBenchmark,
  keep: keepBenchmark,
  open: openBenchmark,
  pool: poolBenchmark,
  search: searchBenchmark,
  ssh: sshBenchmark,
  start: startBenchmark,
  turns: turnsBenchmark,
  ui: uiBenchmark,
};
const chosen = process.argv.slice(2).filter((name) => name in all);
console.log(`Baton benchmarks on ${process.platform} ${process.arch}, Node ${process.version}`);
for (const name of chosen.length > 0 ? chosen : Object.keys(all).filter((name) => name !== 'keep' && name !== 'attempts-start')) {
  await all[name]!();
}
