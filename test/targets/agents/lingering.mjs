// A module whose spans keep arriving after it returns (a background loop under the case's root): the
// case's trace never goes quiet, so the run judges it at the trace timeout.
import { context } from '@opentelemetry/api';

export default async function agent(input, ctx) {
  const parent = context.active();
  let n = 0;
  const timer = setInterval(() => {
    ctx.tracer.startSpan(`background ${n}`, {}, parent).end();
    if (++n >= 200) clearInterval(timer);
  }, 5);
  return 'started';
}
