/**
 * Every cell of examples/demo.ipynb, through the engine: the exact rule ids per cell, and no
 * candidate that runs Python once per element of a device array (a comprehension, map or loop
 * over a CuPy array is not a GPU rewrite: it wants a kernel, GPU2xx).
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { analyzeNotebook } from '../../src/analysis/engine';
import type { PythonParser, SyntaxNode } from '../../src/analysis/parser';
import type { CellInput } from '../../src/analysis/types';
import { parser } from './helpers';

interface NotebookJSON {
  cells: { id?: string; cell_type: string; source: string | string[] }[];
}

function demoCells(): CellInput[] {
  const nb = JSON.parse(readFileSync(join(__dirname, '../../examples/demo.ipynb'), 'utf8')) as NotebookJSON;
  return nb.cells.map((cell, index) => ({
    id: cell.id ?? `cell-${index}`,
    index,
    kind: cell.cell_type === 'code' ? 'code' : cell.cell_type === 'markdown' ? 'markdown' : 'raw',
    source: Array.isArray(cell.source) ? cell.source.join('') : cell.source
  }));
}

/** What a cell's source looks like: the rules each kind of demo cell must (or must not) get. */
function expectedFor(source: string): string[] {
  if (/^x = np\.random\.rand\(/m.test(source)) {
    return ['suggest GPU104']; // 20M draws cast to float32: generated on the device
  }
  if (/^y = np\.sqrt\(x \* x/m.test(source)) {
    return ['suggest GPU103']; // elementwise chain: one fused kernel
  }
  if (/escape_time\(complex/.test(source)) {
    return ['refuse GPU101']; // per-element Python function: a kernel's job, never GPU101
  }
  if (/^%%gpuoptimize/.test(source) && /^# %% gpu$/m.test(source)) {
    return ['diagnostic']; // holds its own GPU version: benchmarked by the magic, not rewritten
  }
  return []; // imports, %load_ext, pandas (a later family)
}

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

test('every demo cell gets exactly the expected rules', () => {
  const cells = demoCells();
  const result = analyzeNotebook(cells, { minSpeedup: 1 });
  const got = new Map<number, string[]>();
  const add = (i: number, what: string): void => {
    got.set(i, [...(got.get(i) ?? []), what].sort());
  };
  result.suggestions.forEach(s => add(s.cellIndex, `suggest ${s.rule}`));
  result.refusals.forEach(r => add(r.cellIndex, `refuse ${r.rule}`));
  result.diagnostics.forEach(d => add(d.cellIndex, 'diagnostic'));
  const expected = new Map<number, string[]>();
  for (const c of cells) {
    const e = c.kind === 'code' ? expectedFor(c.source) : [];
    if (e.length > 0) {
      expected.set(c.index, e.sort());
    }
  }
  // the demo keeps its families: if a cell is added, this table has to learn it
  expect(expected.size).toBe(4);
  expect(Object.fromEntries(got)).toEqual(Object.fromEntries(expected));

  const refusal = result.refusals.find(r => r.rule === 'GPU101')!;
  expect(refusal.reason).toContain('per-element Python loop/function');
  expect(refusal.reason).toContain('@cuda.jit');
  expect(refusal.reason).toContain("@vectorize(target='cuda')");
});

test('no demo candidate loops in Python over a device array', () => {
  const result = analyzeNotebook(demoCells(), { minSpeedup: 1 });
  expect(result.suggestions.length).toBeGreaterThan(0);
  for (const s of result.suggestions) {
    const tree = p.parse(s.candidate);
    try {
      const offenders: string[] = [];
      const rec = (n: SyntaxNode): void => {
        let iterable: SyntaxNode | null = null;
        if (n.type === 'for_in_clause' || n.type === 'for_statement') {
          iterable = n.childForFieldName('right');
        } else if (n.type === 'call' && ['map', 'filter'].includes(n.childForFieldName('function')?.text ?? '')) {
          iterable = n.childForFieldName('arguments');
        }
        // a device array: a CuPy call or a device copy (`x_gpu`) as the iterable
        if (iterable && /\bcp\.(?!asnumpy)|\w+_gpu\d*\b/.test(iterable.text) && !/^cp\.asnumpy\(/.test(iterable.text)) {
          offenders.push(n.text);
        }
        for (const c of n.children) {
          if (c) {
            rec(c);
          }
        }
      };
      rec(tree.rootNode);
      expect({ rule: s.rule, cell: s.cellIndex, offenders }).toEqual({ rule: s.rule, cell: s.cellIndex, offenders: [] });
    } finally {
      tree.delete();
    }
  }
});
