// Preloaded with `node --import`: prints the process's peak RSS (bytes) on stderr at exit.
import { writeSync } from 'node:fs';
process.on('exit', () => {
  writeSync(2, `\nBENCH_MAX_RSS ${process.resourceUsage().maxRSS * 1024}\n`);
});
