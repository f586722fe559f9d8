/**
 * Literal-only pieces of a kernel's expression are computed as Python computes them (ints exact,
 * floats in double) and written as the one value NumPy casts to the array's dtype (NEP 50).
 */
import type { PythonParser } from '../../src/analysis/parser';
import { cNumber, pythonConstant, PyNumber } from '../../src/analysis/rules/arrays/fusion';
import { parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

function constant(expr: string): PyNumber | 'refused' | null {
  const tree = p.parse(`${expr}\n`);
  const stmt = tree.rootNode.namedChild(0)!;
  return pythonConstant(stmt.namedChild(0)!, n => (n.text === 'np.pi' ? Math.PI : undefined));
}

describe('pythonConstant', () => {
  it('folds floats in double and ints exactly, as CPython does', () => {
    expect(constant('0.1 * 0.1')).toEqual({ float: 0.1 * 0.1 });
    expect(constant('2 * np.pi')).toEqual({ float: 2 * Math.PI });
    expect(constant('(-1)')).toEqual({ int: -1n });
    expect(constant('+2')).toEqual({ int: 2n });
    expect(constant('1 / 3')).toEqual({ float: 1 / 3 });
    expect(constant('-7 // 2')).toEqual({ int: -4n });
    expect(constant('-7 % 2')).toEqual({ int: 1n });
    expect(constant('2 ** 60 * 3')).toEqual({ int: 3n * 2n ** 60n });
    expect(constant('0x10 + 1_000')).toEqual({ int: 1016n });
  });

  it('is null for anything that reads a name, and refuses what it does not reproduce exactly', () => {
    expect(constant('0.1 * u')).toBeNull();
    expect(constant('u * 0.1 * 0.1')).toBeNull(); // (u * 0.1) * 0.1: nothing to fold at the top
    expect(constant('1 / 0')).toBe('refused'); // ZeroDivisionError in Python
    expect(constant('0.5 ** 2')).toBe('refused'); // C pow
    expect(constant('2 ** 60 + 0.5')).toBe('refused'); // an int beyond 2^53 meeting a float
    expect(constant('1e308 * 10')).toBe('refused'); // inf
    expect(constant('1j * 2')).toBe('refused');
  });

  it('refuses imaginary and non-finite literals, reads every int base with underscores', () => {
    // Python: 1j * 2 == 2j, 2 * 1.5J == 3j (complex: no float value at all)
    expect(constant('2 * 1.5J')).toBe('refused');
    expect(constant('-1j')).toBe('refused');
    expect(constant('1e3j + 1')).toBe('refused');
    // Python: 1e400 == inf (not folded: a kernel would need inf, and -1e400 - 1e400 is nan)
    expect(constant('1e400')).toBe('refused');
    expect(constant('-1e400 * 0.5')).toBe('refused');
    // Python: 0b1_01 + 0o1_7 + 0x_ff == 275, 0X1F == 31, 0O17 == 15, 0B11 == 3, 1_0.5e1_0 == 105000000000.0
    expect(constant('0b1_01 + 0o1_7 + 0x_ff')).toEqual({ int: 275n });
    expect(constant('0X1F + 0O17 + 0B11')).toEqual({ int: 49n });
    expect(constant('1_0.5e1_0')).toEqual({ float: 105000000000 });
    // Python: 10 ** 30 is exact; no float literal stands for it exactly in a float kernel here
    expect(constant('10 ** 30')).toEqual({ int: 10n ** 30n });
    expect(cNumber({ int: 10n ** 30n }, 'float32')).toBeNull();
    expect(cNumber({ int: 10n ** 30n }, 'float64')).toBeNull();
  });
});

describe('cNumber', () => {
  it('writes float32 values as the float32 NumPy casts the double to', () => {
    expect(cNumber({ float: 0.1 * 0.1 }, 'float32')).toBe('0.01f'); // fround(0.010000000000000002)
    expect(cNumber({ float: 1 / 3 }, 'float32')).toBe('0.33333334f');
    expect(cNumber({ int: 4n }, 'float32')).toBe('4.0f');
    expect(cNumber({ float: 1e-6 }, 'float32')).toBe('1e-6f');
    expect(cNumber({ float: -0 }, 'float32')).toBe('-0.0f');
    expect(cNumber({ float: 1e39 }, 'float32')).toBeNull(); // beyond float32
    expect(cNumber({ int: 2n ** 60n }, 'float32')).toBeNull();
  });

  it('writes float64 values with the digits that read back as the same double', () => {
    expect(cNumber({ float: 0.1 * 0.1 }, 'float64')).toBe('0.010000000000000002');
    expect(cNumber({ float: 0.25 }, 'float64')).toBe('0.25');
    expect(cNumber({ int: 2n }, 'float64')).toBe('2.0');
    expect(Number(cNumber({ float: Math.PI }, 'float64'))).toBe(Math.PI);
  });
});
