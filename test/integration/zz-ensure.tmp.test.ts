import { it, expect } from 'vitest';
import { ensureCollector } from './setup/collector.js';
it('builds', async () => {
  const t = Date.now();
  const b = await ensureCollector();
  console.log('ENSURE', JSON.stringify(b), Date.now() - t);
  expect(b.buildMs).toBeGreaterThan(0);
}, 45 * 60_000);
