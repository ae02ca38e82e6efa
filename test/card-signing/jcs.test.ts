/**
 * RFC 8785's own examples, checked against the canonicalizer the card signatures use (ADR 0053, ADR 0072):
 * Appendix B's number serialization samples, §3.2.2's structure and string escapes, §3.2.3's property sorting
 * by UTF-16 code units (a surrogate pair sorts before U+FB33), and values with no canonical form.
 */
import { describe, expect, it } from 'vitest';
import { CanonicalFormError, canonicalJson } from '../../src/card-signing/jcs.js';

function fromIeee(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('RFC 8785 canonical JSON', () => {
  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('Appendix B: IEEE 754 %s is written %s', (hex, expected) => {
    expect(canonicalJson(fromIeee(hex))).toBe(expected);
  });

  it.each([['7fffffffffffffff'], ['7ff0000000000000'], ['fff0000000000000']])(
    'Appendix B: %s (NaN or an infinity) has no canonical form',
    (hex) => {
      expect(() => canonicalJson(fromIeee(hex))).toThrow(CanonicalFormError);
    },
  );

  it('§3.2.2: the sample object, with its number and string escapes', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        '"string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        '"literals": [null, true, false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('§3.2.3: properties sorted by UTF-16 code units, so the emoji sorts before U+FB33', () => {
    const input = JSON.parse(
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh",' +
        '"1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control",' +
        '"\\u00f6": "Latin Small Letter O With Diaeresis"}',
    ) as Record<string, string>;
    // Object.values would reorder integer-like keys, so read the order from the text itself.
    const text = canonicalJson(input);
    const positions = Object.values(input).map((v) => [v, text.indexOf(v)] as const);
    positions.sort((a, b) => a[1] - b[1]);
    expect(positions.map(([v]) => v)).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
  });

  it('§3.2.3: a key with U+FF01 sorts after one with an astral character (code point order would not)', () => {
    expect(canonicalJson({ '\uff01': 1, '\u{1f600}': 2 })).toBe('{"\u{1f600}":2,"\uff01":1}');
  });

  it('§3.2.2.2: non-ASCII is written as UTF-8, U+2028 and DEL literally, C0 controls as lowercase \\u escapes', () => {
    expect(canonicalJson('Café \u2028\u007f\u001f\u0008')).toBe('"Café \u2028\u007f\\u001f\\b"');
  });

  it('refuses a lone surrogate in a value or a key', () => {
    expect(() => canonicalJson({ name: 'a\ud800' })).toThrow(CanonicalFormError);
    expect(() => canonicalJson({ '\udc00': 1 })).toThrow(CanonicalFormError);
  });

  it('writes -0 as 0 and drops nothing from arrays or nested objects', () => {
    expect(canonicalJson({ b: [-0, { d: 1, c: [] }], a: {} })).toBe('{"a":{},"b":[0,{"c":[],"d":1}]}');
  });
});
