// The realistic workload of the run benchmarks, shared by the generator, the fake model and the checks:
// an OpenAI tools file of five tools (JSON Schemas with 2–3 required parameters, an enum and a nested
// object each), and per case a prompt, an `expect_tool` and three `expect_args` (a plain value, a
// `$one_of`, a `$regex`). The fake model answers case i with `replyFor(i)`: six cases in ten pass, four
// fail (wrong tool, a wrong value, a missing required argument, a value outside the enum), so the run
// writes both verdicts and `--validate-args` has work to do.

const obj = (properties, required) => ({ type: 'object', properties, required });
const fn = (name, description, parameters) => ({ type: 'function', function: { name, description, parameters } });

export const TOOLS = [
  fn(
    'get_weather',
    'Current weather and forecast for a city.',
    obj(
      {
        city: { type: 'string', description: 'City name, e.g. Paris' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        options: {
          type: 'object',
          description: 'Forecast options',
          properties: { days: { type: 'integer', minimum: 1, maximum: 7 }, hourly: { type: 'boolean' } },
        },
      },
      ['city', 'unit'],
    ),
  ),
  fn(
    'create_ticket',
    'Open a support ticket.',
    obj(
      {
        title: { type: 'string' },
        priority: { type: 'string', enum: ['low', 'medium', 'high', 'urgent'] },
        team: { type: 'string', description: 'Owning team' },
        reporter: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' } } },
      },
      ['title', 'priority', 'team'],
    ),
  ),
  fn(
    'search_flights',
    'Search flights between two airports.',
    obj(
      {
        origin: { type: 'string', description: 'IATA code' },
        destination: { type: 'string', description: 'IATA code' },
        cabin: { type: 'string', enum: ['economy', 'premium', 'business', 'first'] },
        passengers: { type: 'object', properties: { adults: { type: 'integer', minimum: 1 }, children: { type: 'integer', minimum: 0 } } },
      },
      ['origin', 'destination', 'cabin'],
    ),
  ),
  fn(
    'restart_service',
    'Restart a systemd service on a host.',
    obj(
      {
        service: { type: 'string' },
        host: { type: 'string' },
        mode: { type: 'string', enum: ['graceful', 'hard'] },
        options: { type: 'object', properties: { timeout_s: { type: 'integer', minimum: 1 }, drain: { type: 'boolean' } } },
      },
      ['service', 'host'],
    ),
  ),
  fn(
    'send_email',
    'Send an email.',
    obj(
      {
        to: { type: 'string', description: 'Recipient address' },
        subject: { type: 'string' },
        importance: { type: 'string', enum: ['low', 'normal', 'high'] },
        sender: { type: 'object', properties: { name: { type: 'string' }, address: { type: 'string' } } },
      },
      ['to', 'subject'],
    ),
  ),
];

const CITIES = ['Paris', 'Lisbon', 'Oslo', 'Kyoto'];
const HOSTS = ['web-01', 'web-02', 'db-01'];

/** Case i: its prompt (carrying `(#i)` so the fake model knows which case it answers), tool, args. */
export function caseOf(i) {
  const k = i % 5;
  const c = CITIES[i % 4];
  const h = HOSTS[i % 3];
  switch (k) {
    case 0:
      return {
        tool: 'get_weather',
        prompt: `What is the weather in ${c} this week, in celsius? (#${i})`,
        expect: { city: c, unit: { $one_of: ['celsius', 'metric'] }, options: { $regex: '"days":\\s*[1-7]' } },
        good: { city: c, unit: 'celsius', options: { days: 7, hourly: false } },
        wrongKey: 'unit',
        wrongValue: 'fahrenheit',
        required: 'city',
        enumKey: 'unit',
      };
    case 1:
      return {
        tool: 'create_ticket',
        prompt: `Open a high priority ticket for the payments team: checkout fails for ${c} users (#${i})`,
        expect: { team: 'payments', priority: { $one_of: ['high', 'urgent'] }, title: { $regex: '(?i)checkout' } },
        good: { title: `Checkout fails for ${c} users`, priority: 'high', team: 'payments', reporter: { name: 'bench', email: 'bench@example.com' } },
        wrongKey: 'priority',
        wrongValue: 'low',
        required: 'team',
        enumKey: 'priority',
      };
    case 2:
      return {
        tool: 'search_flights',
        prompt: `Find business class flights from LIS to ${c === 'Lisbon' ? 'OSL' : 'CDG'} for two adults (#${i})`,
        expect: { origin: 'LIS', cabin: { $one_of: ['business', 'first'] }, destination: { $regex: '^[A-Z]{3}$' } },
        good: { origin: 'LIS', destination: c === 'Lisbon' ? 'OSL' : 'CDG', cabin: 'business', passengers: { adults: 2, children: 0 } },
        wrongKey: 'cabin',
        wrongValue: 'economy',
        required: 'origin',
        enumKey: 'cabin',
      };
    case 3:
      return {
        tool: 'restart_service',
        prompt: `Gracefully restart nginx on ${h} (#${i})`,
        expect: { host: h, mode: { $one_of: ['graceful'] }, service: { $regex: '^nginx' } },
        good: { service: 'nginx', host: h, mode: 'graceful', options: { timeout_s: 30, drain: true } },
        wrongKey: 'mode',
        wrongValue: 'hard',
        required: 'host',
        enumKey: 'mode',
      };
    default:
      return {
        tool: 'send_email',
        prompt: `Email ops@example.com that the ${c} deploy is done (#${i})`,
        expect: { to: 'ops@example.com', importance: { $one_of: ['normal', 'high'] }, subject: { $regex: `(?i)${c}` } },
        good: { to: 'ops@example.com', subject: `${c} deploy done`, importance: 'normal', sender: { name: 'bench', address: 'bench@example.com' } },
        wrongKey: 'importance',
        wrongValue: 'low',
        required: 'to',
        enumKey: 'importance',
      };
  }
}

/** What the fake model does for case i (by i / 5 mod 10, so every tool meets every outcome). */
export function outcomeOf(i) {
  const o = Math.floor(i / 5) % 10;
  return o < 6 ? 'pass' : o === 6 ? 'wrong_tool' : o === 7 ? 'wrong_value' : o === 8 ? 'missing_required' : 'bad_choice';
}

/** Cases among [0, n) the model answers correctly: the passes every run of n cases must report. */
export function expectedPasses(n) {
  let passes = 0;
  for (let i = 0; i < n; i++) if (outcomeOf(i) === 'pass') passes++;
  return passes;
}

/** The tool call (name, JSON arguments) the fake model returns for case i. */
export function replyFor(i) {
  const c = caseOf(i);
  const outcome = outcomeOf(i);
  const args = { ...c.good };
  let name = c.tool;
  if (outcome === 'wrong_tool') name = TOOLS[(TOOLS.findIndex((t) => t.function.name === c.tool) + 1) % TOOLS.length].function.name;
  else if (outcome === 'wrong_value') args[c.wrongKey] = c.wrongValue;
  else if (outcome === 'missing_required') delete args[c.required];
  else if (outcome === 'bad_choice') args[c.enumKey] = 'extreme';
  return { name, arguments: JSON.stringify(args) };
}

const tomlString = (s) => JSON.stringify(s);
const tomlValue = (v) => {
  if (typeof v === 'string') return tomlString(v);
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(', ')}]`;
  return `{ ${Object.entries(v)
    .map(([k, x]) => `${k.startsWith('$') ? tomlString(k) : k} = ${tomlValue(x)}`)
    .join(', ')} }`;
};

export const SYSTEM_PROMPT = 'You are an operations and travel assistant. Call exactly one tool with complete arguments.';

/** A runspec file of one `[[suite]]` holding cases [from, to), as a user writes it. */
export function suiteText(from, to, name = 'bench') {
  const parts = [`# Generated by bench/_cases.mjs: cases ${from}..${to - 1}.\n[[suite]]\nname = ${tomlString(name)}\nsystem = ${tomlString(SYSTEM_PROMPT)}\n`];
  for (let i = from; i < to; i++) {
    const c = caseOf(i);
    parts.push(
      `[[suite.eval]]\nid = "case-${i}"\nprompt = ${tomlString(c.prompt)}\nexpect_tool = ${tomlString(c.tool)}\nexpect_args = ${tomlValue(c.expect)}\ntags = ["bench", ${tomlString(c.tool)}]\n`,
    );
  }
  return parts.join('\n');
}
