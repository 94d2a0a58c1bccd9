// A module whose import reports an error through the OpenTelemetry diag logger (as instrumentation does when
// it cannot patch something): the run passes it on as a warning instead of swallowing it.
import { diag } from '@opentelemetry/api';

diag.error('weather-agent instrumentation: cannot patch the model client');

export default async function agent() {
  return { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] };
}
