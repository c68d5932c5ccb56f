/** `npm run bench [-- ingest|open|search]`: runs the benchmarks and prints their figures. */
import { ingestBenchmark } from './ingest.js';
import { openBenchmark } from './open.js';
import { searchBenchmark } from './search.js';

const all = { ingest: ingestBenchmark, open: openBenchmark, search: searchBenchmark };
const chosen = process.argv.slice(2).filter((name): name is keyof typeof all => name in all);
console.log(`Baton benchmarks on ${process.platform} ${process.arch}, Node ${process.version}`);
for (const name of chosen.length > 0 ? chosen : (Object.keys(all) as Array<keyof typeof all>)) {
  all[name]();
}
