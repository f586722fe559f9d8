/** canonicalText (canonical.ts): what the incremental test compares results by. */
import { canonicalText } from './canonical';

class Point {
  constructor(
    readonly x: number,
    readonly y: number
  ) {}
}

describe('canonicalText', () => {
  it('is the same for values toStrictEqual takes as equal: key order, Map and Set order', () => {
    const a = { b: 1, a: [1, { c: 'x' }], m: new Map<string, unknown>([['p', 1], ['q', new Set([3, { z: 1 }])]]) };
    const b = { a: [1, { c: 'x' }], m: new Map<string, unknown>([['q', new Set([{ z: 1 }, 3])], ['p', 1]]), b: 1 };
    expect(a).toStrictEqual(b);
    expect(canonicalText(a)).toBe(canonicalText(b));
  });

  it.each([
    ['a key holding undefined, a missing key', { a: undefined }, {}],
    ['an undefined item, a hole', [undefined], new Array(1)],
    ['-0, 0', { v: -0 }, { v: 0 }],
    ['NaN, null', [NaN], [null]],
    ['Infinity, null', [Infinity], [null]],
    ['a class instance, a plain object', new Point(1, 2), { x: 1, y: 2 }],
    ['array order', [1, 2], [2, 1]],
    ['array length', [1], [1, undefined]],
    ['a Map value', new Map([['k', 1]]), new Map([['k', 2]])],
    ['a Map key', new Map([['k', 1]]), new Map([['j', 1]])],
    ['a Set member', new Set([1, 2]), new Set([1, 3])],
    ['a string, a number', { v: '1' }, { v: 1 }],
    ['a line of a text', { s: 'a\nb\nc' }, { s: 'a\nB\nc' }],
    ['a trailing newline', { s: 'a\n' }, { s: 'a' }]
  ])('tells apart %s, as toStrictEqual does', (_what, a, b) => {
    expect(a).not.toStrictEqual(b);
    expect(canonicalText(a)).not.toBe(canonicalText(b));
  });

  it('names where a difference is, one line per value', () => {
    const a = { suggestions: [{ rule: 'GPU101', candidate: 'x = cp.ones(3)\ny = x + 1\nprint(y)' }] };
    const b = { suggestions: [{ rule: 'GPU101', candidate: 'x = cp.ones(3)\ny = x + 2\nprint(y)' }] };
    const la = canonicalText(a).split('\n');
    const lb = canonicalText(b).split('\n');
    expect(la.length).toBe(lb.length);
    const changed = la.filter((l, k) => l !== lb[k]);
    expect(changed).toEqual(['$.suggestions[0].candidate | "y = x + 1"']);
  });

  it('walks any depth, and marks cycles', () => {
    type Link = { next: Link | null; v: number };
    const chain = (n: number, last: number): Link => {
      let head: Link = { next: null, v: last };
      for (let k = 0; k < n; k++) {
        head = { next: head, v: k };
      }
      return head;
    };
    const a = chain(100_000, 1);
    expect(canonicalText(a)).toBe(canonicalText(chain(100_000, 1)));
    expect(canonicalText(a)).not.toBe(canonicalText(chain(100_000, 2)));
    const c: { self?: unknown; m: Map<string, unknown> } = { m: new Map() };
    c.self = c;
    c.m.set('back', c.m);
    const text = canonicalText(c);
    expect(text).toContain('$.self: [Circular $]');
    expect(text).toContain('$.m<"back">: [Circular $.m]');
  });
});
