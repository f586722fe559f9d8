/**
 * fusion.ts: the syntax-only bound findElementwiseChains asks before analysing an expression
 * (opsBound never counts fewer operations than analyseChain, or a chain would be missed), and
 * the notes of a chain a scalar keeps from its typed kernel (TypedParams.refused).
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser, SyntaxNode } from '../../src/analysis/parser';
import { analyseChain, opsBound } from '../../src/analysis/rules/arrays/fusion';
import { walk } from '../../src/analysis/syntax';
import { cellsOf, parser, ruleFixtures } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

describe('opsBound', () => {
  it('is at least the operations analyseChain counts (up to 3), for every expression of every rule fixture', () => {
    let chains = 0;
    let expressions = 0;
    const below: string[] = [];
    for (const rule of ['GPU101', 'GPU102', 'GPU103', 'GPU104']) {
      for (const fixture of ruleFixtures(rule)) {
        const cache = new CellCache(p);
        const model = new NotebookModel(fixture.cells.map(c => cache.get(c)), fixture.runtime ?? {});
        // cupy-rewrite.ts's resolveUfunc
        const resolveUfunc = (fn: SyntaxNode): string | null => {
          const q = model.qualifiedName(fn);
          return q && q.startsWith('numpy.') && q.indexOf('.', 'numpy.'.length) < 0 ? q.slice('numpy.'.length) : null;
        };
        for (const cell of model.cells) {
          if (!cell.tree) {
            continue;
          }
          walk(cell.tree.rootNode, n => {
            const expr = n.type === 'call' ? n : n.type === 'assignment' || n.type === 'augmented_assignment' ? n.childForFieldName('right') : null;
            if (expr) {
              expressions += 1;
              const chain = analyseChain(expr, null, model, cell, resolveUfunc);
              if (chain) {
                chains += chain.ops >= 3 ? 1 : 0;
                if (opsBound(expr, true, resolveUfunc) < Math.min(3, chain.ops)) {
                  below.push(`${fixture.name}: ${expr.text}`);
                }
              }
            }
          });
        }
      }
    }
    expect(below).toEqual([]);
    expect(chains).toBeGreaterThan(50);
    expect(expressions).toBeGreaterThan(900);
  });
});

describe('a chain a scalar keeps from its typed kernel: the note names the scalar', () => {
  const setup = 'import numpy as np\nrng = np.random.default_rng(1)\nu = rng.random(20_000_000, dtype=np.float32)\ndt = f()\nk = 2**60\nh = float(f())\nc = 0.3';
  const notes = (target: string): string => analyzeNotebook(cellsOf(setup, target)).suggestions.find(x => x.rule === 'GPU103')!.notes.join('\n');

  it('a name the analysis infers nothing for', () => {
    expect(notes('v = dt * u * u + c')).toContain('The analysis infers nothing for `dt`');
  });

  it('a Python int beyond 2^53', () => {
    expect(notes('v = k * u * u + c')).toContain('`k` is a Python int the analysis cannot show to lie within 2^53');
  });

  it('the first scalar that refuses, in the order of the parameters', () => {
    const both = notes('v = h * 0.5 * u + dt * u * u');
    expect(both).toContain('cannot tell whether `h * 0.5` is a Python number');
    expect(both).not.toContain('infers nothing');
  });

  it('none when the chain has no C form anyway (`np.maximum`, NaN-propagating)', () => {
    expect(notes('v = np.maximum(dt * u, u) * u + u')).not.toMatch(/typed kernel|float32 kernel/);
  });
});
