/**
 * How often a cell's own functions run per run of the cell (rules/arrays/function-runs.ts), which
 * the work estimate multiplies their bodies by.
 */
import type { PythonParser, SyntaxNode } from '../../src/analysis/parser';
import { functionRuns } from '../../src/analysis/rules/arrays/function-runs';
import { field } from '../../src/analysis/syntax';
import { parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

/**
 * Runs of each function of `source` by name (absent: counted once): the body of a loop over
 * `range(k)` runs k times, the element of a comprehension over `range(k)` k times, anything else
 * once per run of its parent.
 */
function runsByName(source: string): Record<string, number> {
  const tree = p.parse(source);
  const count = (n: SyntaxNode | null): number => Number(/range\((\d+)\)/.exec(n?.text ?? '')?.[1] ?? 10);
  const runsPer = (parent: SyntaxNode, child: SyntaxNode): number =>
    parent.type === 'for_statement' && child.fieldName === 'body'
      ? count(field(parent, 'right'))
      : parent.type === 'list_comprehension' && child.fieldName === 'body'
        ? count(parent.namedChildren.find(c => c.type === 'for_in_clause') ?? null)
        : 1;
  const runs = functionRuns(tree.rootNode, runsPer);
  const out: Record<string, number> = {};
  for (const s of tree.rootNode.namedChildren) {
    const name = s.type === 'function_definition' ? field(s, 'name')?.text : undefined;
    if (name !== undefined && runs.has(s.id)) {
      out[name] = runs.get(s.id) as number;
    }
  }
  return out;
}

describe('functionRuns', () => {
  it('adds up the calls, each times the loops around it (nested loops multiply)', () => {
    expect(runsByName('def f(x):\n    return x\n\nf(1)\nfor i in range(3):\n    for j in range(4):\n        f(i)\n')).toEqual({ f: 13 });
  });

  it('multiplies a call in another function by that function’s runs', () => {
    const src = 'def f(x):\n    return x\n\ndef g(x):\n    return f(f(x))\n\nfor _ in range(5):\n    g(1)\n';
    expect(runsByName(src)).toEqual({ f: 10, g: 5 });
  });

  it('multiplies a call by what its parents say: a comprehension element once per item', () => {
    const src = 'def f(x):\n    return x\n\nys = [f(k) for k in range(6)]\nfor i in range(2):\n    zs = [f(k) for k in range(3)]\n';
    expect(runsByName(src)).toEqual({ f: 12 });
  });

  it('leaves out what it cannot count: recursion, mutual recursion, a name defined twice, a function not called', () => {
    const src = [
      'def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n',
      'def even(n):\n    return n == 0 or odd(n - 1)\n',
      'def odd(n):\n    return n != 0 and even(n - 1)\n',
      'def h(x):\n    return x\n',
      'def h(x):\n    return -x\n',
      'def unused(x):\n    return x\n',
      'fact(5)\neven(4)\nh(1)\n'
    ].join('\n');
    // fact and even once each from the top level (their own cycles add nothing), odd through even
    expect(runsByName(src)).toEqual({ fact: 1, even: 1, odd: 1 });
  });

  it('is empty for a cell that defines no function', () => {
    expect(functionRuns(p.parse('x = 1\nfor _ in range(3):\n    x += 1\n').rootNode, () => 10).size).toBe(0);
  });
});
