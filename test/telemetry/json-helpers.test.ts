import { describe, expect, it } from 'vitest';
import { decodeJsonish, tryParseJson } from '../../src/telemetry/conventions/_json.js';

/** What the helper promises: JSON.parse's value, or undefined where JSON.parse throws. */
function reference(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

describe('tryParseJson', () => {
  it('agrees with JSON.parse on values, prose and every first character', () => {
    const texts = [
      '{"a":1}',
      ' \t\r\n[1,2]',
      '"quoted"',
      '-1.5',
      '0',
      '42',
      'true',
      'false',
      'null',
      'tru',
      'nul',
      'is nginx up on web-01?',
      '',
      '   ',
      '\u00a0{"a":1}',
      '\ufeff{}',
      '{broken',
      "'single'",
      'NaN',
      'Infinity',
      '+1',
      '.5',
      'undefined',
    ];
    for (let c = 0; c < 128; c++) texts.push(String.fromCharCode(c), `${String.fromCharCode(c)}1`, ` ${String.fromCharCode(c)}"x"`);
    for (const t of texts) expect(tryParseJson(t), JSON.stringify(t)).toEqual(reference(t));
  });

  it('decodeJsonish keeps prose as it is and unwraps double-encoded JSON', () => {
    expect(decodeJsonish('is nginx up?')).toBe('is nginx up?');
    expect(decodeJsonish(JSON.stringify(JSON.stringify({ a: 1 })))).toEqual({ a: 1 });
    expect(decodeJsonish('"plain"')).toBe('plain');
  });
});
