// A module that answers without any instrumentation: no model spans.
export default async function agent(input) {
  return `I would look up the weather for: ${input.prompt}`;
}
