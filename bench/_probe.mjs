// Preloaded with `node --import` into every measured process (bench only, never src/): at exit it prints
// on stderr the process's peak RSS (bytes), its CPU time (user + system, µs) and the longest event-loop
// block it saw: perf_hooks.monitorEventLoopDelay at 10 ms resolution (the histogram's max, which includes
// up to one resolution of timer slack), and the block that runs into exit (which no later tick samples),
// measured from the last tick of a 10 ms unref'd interval.
import { writeSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
let lastTick = performance.now();
setInterval(() => (lastTick = performance.now()), 10).unref();
process.on('exit', () => {
  const tailMs = performance.now() - lastTick - 10;
  delay.disable();
  const u = process.resourceUsage();
  const loopMaxMs = Math.max(delay.max / 1e6, tailMs);
  writeSync(2, `\nBENCH_MAX_RSS ${u.maxRSS * 1024}\nBENCH_CPU_US ${u.userCPUTime + u.systemCPUTime}\nBENCH_LOOP_MAX_MS ${loopMaxMs.toFixed(1)}\n`);
});
