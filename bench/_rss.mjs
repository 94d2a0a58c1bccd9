// Preloaded with `node --import`: prints the process's peak RSS (bytes) and CPU time (user + system,
// microseconds) on stderr at exit. CPU time is steadier than wall time on a shared machine.
import { writeSync } from 'node:fs';
process.on('exit', () => {
  const u = process.resourceUsage();
  writeSync(2, `\nBENCH_MAX_RSS ${u.maxRSS * 1024}\nBENCH_CPU_US ${u.userCPUTime + u.systemCPUTime}\n`);
});
