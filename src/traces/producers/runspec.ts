// Our own traces (runspec-eval run): `runspec.eval.*` attributes on the root and tool spans.
import { isRunspecTrace } from '../../telemetry/conventions/runspec.js';
import type { ProducerFamily } from './family.js';

export const runspecFamily: ProducerFamily = {
  name: 'runspec',
  recognise: (spans) => isRunspecTrace(spans),
  contentSwitch: '[telemetry] capture_content = true',
};
