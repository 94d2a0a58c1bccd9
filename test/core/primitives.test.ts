// Each primitive of src/core/ has one rule; these tests pin it (STYLE.md: one idea, one owner).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/core/atomic-write.js';
import { escapeAttr, escapeCell, escapeXml } from '../../src/core/escape.js';
import { createResultsCollector, scoreMeta } from '../../src/app/score-traces.js';
import { renderJUnit } from '../../src/report/junit.js';
import { canonicalJson, sortKeys } from '../../src/core/canonical-json.js';
import { createLimiter, runPool } from '../../src/core/concurrency.js';
import { closestName, didYouMean } from '../../src/core/did-you-mean.js';
import { EQUALITY_MODES, valuesEqual } from '../../src/core/equality.js';
import { isRecord } from '../../src/core/is-record.js';
import { escapesBase, isInside } from '../../src/core/path-inside.js';
import { isSecretName, redactSecrets, redactUrl, redactUrlsInText } from '../../src/core/redact.js';
import { compileRegex, regexError, regexSearch } from '../../src/core/regex.js';
import { isBearerToken, sameSecret } from '../../src/core/token.js';
import { isRetryableStatus, retryAfterMs, retryDelayMs } from '../../src/core/retry.js';
import { inShard, parseShard, shardOf, SHARD_HELP } from '../../src/core/shard.js';
import { totalTokens, withTotal } from '../../src/core/tokens.js';
import { AUTONOMY_LEVELS, TOOL_MODES, VERDICT_CATEGORIES, isAutonomy, isToolMode } from '../../src/core/vocabulary.js';
import { writtenLine } from '../helpers/verdict-lines.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth, so key order never changes the text', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(canonicalJson({ x: { z: 1, y: 2 } })).toBe(canonicalJson({ x: { y: 2, z: 1 } }));
  });
  it('drops undefined members and renders undefined as "null"', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(sortKeys([{ b: 1, a: 2 }])).toEqual([{ a: 2, b: 1 }]);
  });
});

describe('valuesEqual', () => {
  it.each([
    { name: 'a numeric string equals its number', a: '3', b: 3, want: true },
    { name: 'strings compare trimmed and case-insensitively', a: ' Prod ', b: 'prod', want: true },
    { name: '"true" equals true', a: 'true', b: true, want: true },
    // Regression: the old argValuesEqual read '' as 0 through Number('').
    { name: 'an empty string is not 0', a: '', b: 0, want: false },
    { name: 'a blank string is not 0', a: '  ', b: 0, want: false },
    { name: 'objects compare whatever the key order', a: { a: 1, b: [1, '2'] }, b: { b: ['1', 2], a: '1' }, want: true },
    { name: 'two numeric strings do not compare as numbers', a: '12345678901234567890', b: '12345678901234567891', want: false },
    { name: 'null equals a missing value', a: null, b: undefined, want: true },
    { name: 'an array is not an object', a: [], b: {}, want: false },
  ])('tolerant: $name', ({ a, b, want }) => {
    expect(valuesEqual(a, b)).toBe(want);
    expect(valuesEqual(b, a)).toBe(want);
  });

  it('text mode is turnstone\'s "same string value": 3 equals "3", case matters, key order does not', () => {
    expect(valuesEqual('3', 3, 'text')).toBe(true);
    expect(valuesEqual('Prod', 'prod', 'text')).toBe(false);
    expect(valuesEqual({ a: 1, b: 2 }, { b: 2, a: 1 }, 'text')).toBe(true);
  });

  it('strict mode wants the same JSON value (key order aside)', () => {
    expect(valuesEqual('3', 3, 'strict')).toBe(false);
    expect(valuesEqual({ a: [1, { c: 2, d: 3 }] }, { a: [1, { d: 3, c: 2 }] }, 'strict')).toBe(true);
  });

  it("bfcl mode is BFCL's checker: punctuation, spaces and case ignored in strings and list items; numbers by value", () => {
    expect(valuesEqual('New York, NY', 'new york ny', 'bfcl')).toBe(true);
    expect(valuesEqual('April 1, 2024', 'april 1 2024', 'bfcl')).toBe(true);
    expect(valuesEqual(['Boston, MA', 3], ['boston ma', 3], 'bfcl')).toBe(true);
    expect(valuesEqual([1, 3, 5], [5, 3, 1], 'bfcl')).toBe(false);
    expect(valuesEqual(5, 5.0, 'bfcl')).toBe(true);
    expect(valuesEqual('3', 3, 'bfcl')).toBe(false);
    expect(valuesEqual('Boston', 'Boston, MA', 'bfcl')).toBe(false);
  });

  it('names its modes', () => {
    expect(EQUALITY_MODES).toEqual(['tolerant', 'text', 'strict', 'bfcl']);
  });
});

describe('closestName / didYouMean', () => {
  it.each([
    { name: 'sevice_status', candidates: ['service_status', 'service_restart'], want: 'service_status' },
    { name: 'restart-service', candidates: ['service-restart', 'deploy'], want: 'service-restart' },
    { name: 'expect_arg', candidates: ['expect_args', 'expect_tool'], want: 'expect_args' },
    { name: 'aa', candidates: ['a', 'b'], want: 'a' },
    { name: 'replicas', candidates: ['replica_count', 'namespace'], want: 'replica_count' },
    // Regression: "did you mean send_email" for read_file.
    { name: 'read_file', candidates: ['send_email', 'list_dir'], want: undefined },
    { name: 'ab', candidates: ['xy'], want: undefined },
  ])('$name → $want', ({ name, candidates, want }) => {
    expect(closestName(name, candidates)).toBe(want);
  });
  it('formats the suggestion, or nothing', () => {
    expect(didYouMean('tgs', ['tags'])).toBe('; did you mean "tags"?');
    expect(didYouMean('read_file', ['send_email'])).toBe('');
  });
});

describe('redaction', () => {
  it('replaces user-info and secret query parameters of a URL, and leaves a clean URL as typed', () => {
    expect(redactUrl('https://bob:s3cret@llm.example.com/v1?api-key=k&v=1')).toBe('https://***:***@llm.example.com/v1?api-key=***&v=1');
    expect(redactUrl('http://127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000/v1');
    expect(redactUrl('not a url')).toBe('not a url');
    expect(redactUrl(undefined)).toBeUndefined();
  });
  it('replaces secret environment values in text', () => {
    expect(isSecretName('OPENAI_API_KEY')).toBe(true);
    expect(isSecretName('HOME')).toBe(false);
    expect(redactSecrets('key sk-test-secret at /root', { OPENAI_API_KEY: 'sk-test-secret', HOME: '/root' })).toBe('key *** at /root');
  });
});

describe('writeFileAtomic', () => {
  it('creates parent directories, replaces the file whole and leaves no temp file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'atomic-'));
    try {
      const file = join(dir, 'a', 'b.json');
      writeFileAtomic(file, 'one');
      writeFileAtomic(file, 'two');
      expect(readFileSync(file, 'utf8')).toBe('two');
      expect(readdirSync(join(dir, 'a'))).toEqual(['b.json']);
      // One path for both writers: a rename that fails (the target is a folder) leaves no temp file.
      mkdirSync(join(dir, 'a', 'dir.json'));
      expect(() => writeFileAtomic(join(dir, 'a', 'dir.json'), 'x')).toThrow(/EISDIR|EPERM|ENOTEMPTY|EEXIST/);
      expect(readdirSync(join(dir, 'a')).sort()).toEqual(['b.json', 'dir.json']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('redactUrlsInText', () => {
  it('redacts every URL in a line as redactUrl does, keeping sentence punctuation', () => {
    expect(redactUrlsInText('POST https://u:pw@h/v1 failed.')).toBe('POST https://***:***@h/v1 failed.');
    expect(redactUrlsInText('see (http://h/x?token=abc), then')).toBe('see (http://h/x?token=***), then');
    expect(redactUrlsInText('no url here')).toBe('no url here');
  });
});

describe('shared-secret checks (receivers over HTTP and gRPC, the console)', () => {
  it('takes the bearer scheme in any case, the token exactly, one space between', () => {
    expect(isBearerToken('Bearer s3cret', 's3cret')).toBe(true);
    expect(isBearerToken('bearer s3cret', 's3cret')).toBe(true);
    expect(isBearerToken('BEARER s3cret', 's3cret')).toBe(true);
    expect(isBearerToken('Bearer S3cret', 's3cret')).toBe(false);
    expect(isBearerToken('Bearer  s3cret', 's3cret')).toBe(false);
    expect(isBearerToken('Basic s3cret', 's3cret')).toBe(false);
    expect(isBearerToken(undefined, 's3cret')).toBe(false);
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abcd', 'abc')).toBe(false);
  });
});

describe('retry policy', () => {
  it.each([
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
    [529, true],
    [400, false],
    [401, false],
    [404, false],
    [422, false],
  ])('status %i retryable: %s', (status, want) => {
    expect(isRetryableStatus(status)).toBe(want);
  });
  it('takes API-specific "not yet" statuses on top of the rule (LangSmith feedback: 404, 425)', () => {
    expect(isRetryableStatus(404, { alsoRetry: [404, 425] })).toBe(true);
    expect(isRetryableStatus(425, { alsoRetry: [404, 425] })).toBe(true);
    expect(isRetryableStatus(503, { alsoRetry: [404] })).toBe(true);
    expect(isRetryableStatus(401, { alsoRetry: [404, 425] })).toBe(false);
  });
  it('backs off exponentially with jitter, honours Retry-After, and caps at maxMs', () => {
    const opts = { baseMs: 1000, maxMs: 30_000, random: () => 0 };
    expect([1, 2, 3].map((a) => retryDelayMs(a, opts))).toEqual([500, 1000, 2000]);
    expect(retryDelayMs(1, { ...opts, random: () => 0.999 })).toBe(1000);
    expect(retryDelayMs(1, opts, 7000)).toBe(7000);
    expect(retryDelayMs(10, opts)).toBe(30_000);
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(retryAfterMs({ 'retry-after-ms': '150', 'retry-after': '9' })).toBe(150);
  });
});

describe('concurrency', () => {
  it('never lets more than max hold the limiter and grants in arrival order', async () => {
    const limiter = createLimiter(2);
    const order: number[] = [];
    let active = 0;
    let peak = 0;
    await Promise.all(
      [0, 1, 2, 3, 4].map(async (i) => {
        await limiter.acquire();
        order.push(i);
        active++;
        peak = Math.max(peak, active);
        await Promise.resolve();
        active--;
        limiter.release();
      }),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });
  it('drops a waiter whose signal aborts', async () => {
    const limiter = createLimiter(1);
    await limiter.acquire();
    const ac = new AbortController();
    const waiting = limiter.acquire(ac.signal);
    ac.abort();
    await expect(waiting).rejects.toThrow('aborted');
  });
  it('runPool runs every item with bounded width and rethrows the first error at the end', async () => {
    const seen: number[] = [];
    await expect(
      runPool([1, 2, 3, 4], 2, async (n) => {
        seen.push(n);
        if (n === 2) throw new Error('two');
      }),
    ).rejects.toThrow('two');
    expect(seen.sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
  });
  it('runPool takes a generator lazily: an item is made only when a lane is free for it', async () => {
    let made = 0;
    let ended = 0;
    let mostAhead = 0;
    function* items(): Generator<number> {
      for (let i = 0; i < 50; i++) {
        made++;
        mostAhead = Math.max(mostAhead, made - ended);
        yield i;
      }
    }
    const seen: number[] = [];
    await runPool(items(), 3, async (n, index) => {
      expect(index).toBe(n);
      await new Promise((r) => setImmediate(r));
      seen.push(n);
      ended++;
    });
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(mostAhead).toBeLessThanOrEqual(3);
    function* broken(): Generator<number> {
      yield 1;
      throw new Error('no more');
    }
    await expect(runPool(broken(), 2, async () => {})).rejects.toThrow('no more');
  });
});

describe('regex', () => {
  it('compiles each pattern once (linear-time RE2) and searches anywhere', () => {
    expect(compileRegex('a+b')).toBe(compileRegex('a+b'));
    expect(regexSearch('svc-\\d+', 'restart svc-12 now')).toEqual({ ok: true });
    expect(regexError('(a')).toMatch(/missing/);
    expect(regexError('(?=x)')).toBeDefined();
    expect(regexSearch('(a', 'x').error).toMatch(/^invalid pattern \/\(a\//);
  });
});

describe('--shard i/n', () => {
  it('counts shards from 1 and puts every key in exactly one shard, the same on every call', () => {
    for (const n of [1, 2, 3, 7]) {
      for (const key of ['a', 'b', 'case-1', '0af7651916cd43dd8448eb211c80319c']) {
        const s = shardOf(key, n);
        expect(s).toBeGreaterThanOrEqual(1);
        expect(s).toBeLessThanOrEqual(n);
        expect([...Array(n).keys()].filter((i) => inShard(key, { index: i + 1, count: n }))).toEqual([s - 1]);
      }
    }
    // Pinned: SHA-256("case-1") starts 0xba225b98, and 0xba225b98 mod 4 = 0 → shard 1. Changing the
    // hash or the base would move every CI shard.
    expect(shardOf('case-1', 4)).toBe(1);
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
  });
  it.each(['0/2', '3/2', '0/0', '1', '-1/2', 'a/b'])('rejects %s as a usage error', (spec) => {
    expect(() => parseShard(spec)).toThrow(/--shard: expected i\/n with 1 ≤ i ≤ n/);
  });
  it('says that shards count from 1 when given the old 0-based spelling', () => {
    expect(() => parseShard('0/2')).toThrow(/shards count from 1/);
    expect(SHARD_HELP).toMatch(/1-based/);
  });
});

describe('token totals', () => {
  it('uses the reported total, else prompt + completion, else nothing', () => {
    expect(totalTokens({ promptTokens: 3, completionTokens: 4, totalTokens: 9 })).toBe(9);
    expect(totalTokens({ promptTokens: 3 })).toBe(3);
    expect(totalTokens({})).toBeUndefined();
    expect(totalTokens(undefined)).toBeUndefined();
    expect(withTotal({ promptTokens: 3, completionTokens: 4 })).toEqual({ promptTokens: 3, completionTokens: 4, totalTokens: 7 });
  });
});

describe('isRecord', () => {
  it('accepts plain objects only: not null, arrays or dates (TOML dates parse to Date)', () => {
    expect([{}, { a: 1 }, null, [], new Date(0), 'x', 1].map(isRecord)).toEqual([true, true, false, false, false, false, false]);
  });
});

describe('vocabularies', () => {
  it('lists each closed set once', () => {
    expect(TOOL_MODES).toEqual(['dedup', 'per_host', 'search']);
    expect(AUTONOMY_LEVELS).toEqual(['autonomous', 'confirm', 'manual']);
    expect(VERDICT_CATEGORIES[0]).toBe('pass');
    expect(isToolMode('per_host') && !isToolMode('bogus')).toBe(true);
    expect(isAutonomy('confirm') && !isAutonomy('auto')).toBe(true);
  });
});

describe('markup escaping', () => {
  it('escapes XML text and attributes one way for every renderer', () => {
    expect(escapeXml('a<b & "c" \u0001')).toBe('a&lt;b &amp; &quot;c&quot; \uFFFD');
    expect(escapeAttr('two\nlines')).toBe('two&#10;lines');
    expect(escapeCell('a|b\nc <x>')).toBe('a\\|b c &lt;x&gt;');
  });
  it('score --output junit uses it (it used to drop control characters and keep newlines in attributes)', () => {
    // score renders the results document with report/junit.ts; its case ids and reasons come from traces.
    const line = writtenLine({
      traceId: 't1',
      rootSpanId: 'r1',
      case: 'c<1>',
      suite: 'c<1>',
      sample: 0,
      mode: 'decision',
      producers: [],
      pass: false,
      category: 'wrong_tool',
      reason: 'used "x"\nthen y',
      calls: [],
    });
    const collector = createResultsCollector([], { rows: 'trace' });
    collector.addLine(line);
    const xml = renderJUnit(collector.document(scoreMeta('2026-01-01T00:00:00Z', 'score', 1), 1));
    expect(xml).toContain('<testsuite name="c&lt;1&gt;"');
    expect(xml).toContain('used &quot;x&quot;&#10;then y"');
  });
});

describe('isInside', () => {
  it('keeps the base and what lies under it, refuses parents, siblings and absolute climbs', () => {
    const base = join(tmpdir(), 'p');
    expect(isInside(base, base)).toBe(true);
    expect(isInside(base, join(base, 'src', 'a.ts'))).toBe(true);
    expect(isInside(base, join(base, '..notes'))).toBe(true);
    expect(isInside(base, join(base, '..'))).toBe(false);
    expect(isInside(base, join(tmpdir(), 'p2', 'a'))).toBe(false);
    expect(escapesBase(join('..', 'x'))).toBe(true);
    expect(escapesBase(join('a', 'b'))).toBe(false);
  });
});
