/**
 * Component sizes (`ndi.sum(mask, labels, range(1, n + 1))` after `labels, n = ndi.label(mask)`)
 * rewritten as a `cp.bincount` of the labels (rules/arrays/cupy-rewrite.ts componentSizeRewrites),
 * and the forms that keep cupyx's sum because a bincount would not give the same values.
 */
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { analyseArrayCell } from '../../src/analysis/rules/arrays/cupy-rewrite';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

const SETUP = 'import numpy as np\nimport scipy.ndimage as ndi\nimg = np.random.default_rng(0).random((4096, 4096))\nmask0 = img > 0.5';

/** The candidate of the cell after SETUP (a later cell prints `out`). */
function candidate(cell: string): string {
  const cache = new CellCache(p);
  const model = new NotebookModel(cellsOf(SETUP, cell, 'print(out[:3])').map(c => cache.get(c)));
  const a = analyseArrayCell(model.cells[1], model);
  expect(a?.refusal).toBeUndefined();
  return a!.candidate;
}

const BINCOUNT = /out = cp\.bincount\(labels\.ravel\(\), minlength=n \+ 1\)\[1:\]\.astype\(cp\.float64\)/;

describe('component sizes become a bincount of the labels', () => {
  it.each([
    ['range index', 'mask = img > 0.5\nlabels, n = ndi.label(mask)\nout = ndi.sum(mask, labels, range(1, n + 1))'],
    ['np.arange index, sum_labels, keywords', 'mask = img > 0.5\nlabels, n = ndi.label(mask)\nout = ndi.sum_labels(mask, labels=labels, index=np.arange(1, 1 + n))'],
    ['a mask from an earlier cell (its device copy)', 'labels, n = ndi.label(mask0)\nout = ndi.sum(mask0, labels, range(1, n + 1))']
  ])('%s', (_what, cell) => {
    expect(candidate(cell.replace(/mask0/g, 'mask0'))).toMatch(cell.includes('mask0') ? /out = cp\.bincount\(labels\.ravel\(\), minlength=n \+ 1\)/ : BINCOUNT);
  });

  it('another bool mask over the same labels: the bincount of the labels where it is True', () => {
    const c = candidate('mask = img > 0.5\nlabels, n = ndi.label(mask)\nout = ndi.sum(img > 0.9, labels, range(1, n + 1))');
    expect(c).toMatch(/out = cp\.bincount\(cp\.where\(img_gpu > 0\.9, labels, 0\)\.ravel\(\), minlength=n \+ 1\)\[1:\]\.astype\(cp\.float64\)/);
  });
});

describe('forms that keep cupyx (a bincount would not give the same values)', () => {
  it.each([
    ['labels 0..n (the background too)', 'mask = img > 0.5\nlabels, n = ndi.label(mask)\nout = ndi.sum(mask, labels, range(0, n + 1))'],
    ['labels 1..n-1', 'mask = img > 0.5\nlabels, n = ndi.label(mask)\nout = ndi.sum(mask, labels, range(1, n))'],
    ['a float input (a sum of values, not a count)', 'mask = img > 0.5\nlabels, n = ndi.label(mask)\nout = ndi.sum(img, labels, range(1, n + 1))'],
    ['labels rebound in between', 'mask = img > 0.5\nlabels, n = ndi.label(mask)\nlabels = labels[::-1]\nout = ndi.sum(mask, labels, range(1, n + 1))'],
    ['labels changed in place', 'mask = img > 0.5\nlabels, n = ndi.label(mask)\nlabels[labels == 1] = 0\nout = ndi.sum(mask, labels, range(1, n + 1))'],
    ['a count from another label call', 'mask = img > 0.5\nlabels, n = ndi.label(mask)\nother, m = ndi.label(img > 0.7)\nout = ndi.sum(mask, labels, range(1, m + 1))'],
    ['label with a structure', 'mask = img > 0.5\nlabels, n = ndi.label(mask, np.ones((3, 3)))\nout = ndi.sum(mask, labels, range(1, n + 1))'],
    ['labels from a loop', 'mask = img > 0.5\nfor t in (0.5,):\n    labels, n = ndi.label(img > t)\nout = ndi.sum(mask, labels, range(1, n + 1))']
  ])('%s', (_what, cell) => {
    const c = candidate(cell);
    expect(c).not.toMatch(/bincount/);
    expect(c).toMatch(/cupyx\.scipy\.ndimage\.sum\(/);
  });
});
