/**
 * Cells whose array sizes the analysis cannot know (data read from a file; the CLI has no kernel
 * to ask) in the whole-notebook plan, judged per session: such a cell stays on the host, with the
 * reason, unless it reads arrays resident on the device (a host version would copy them back); and
 * a file an earlier cell wrote with np.save is sized as what it saved.
 */
import { hostReasonsInWords, rewriteNotebook } from '../../src/analysis/plan';
import { parser, cellsOf, checkPlanFixture, planFixtureCells } from './helpers';

beforeAll(async () => {
  await parser();
});

const fixture = planFixtureCells;
const summary = (plan: ReturnType<typeof rewriteNotebook>, index: number): string => plan.changes.find(c => c.cellIndex === index)?.summary ?? '';
const unknown = (source: string): RegExp =>
  new RegExp(`^stays on the host: the sizes of its arrays are not known here \\(${source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\), so there is no figure that its GPU version would pay, and it reads no array the GPU cells before it leave on the device`);

describe('whole-notebook plan: cells of unknown size', () => {
  it('keeps a cell reading a file on the host, saying why', () => {
    const plan = rewriteNotebook(fixture('unknown-size-stays'));
    expect(plan.gpuCells).not.toContain(1);
    expect(summary(plan, 1)).toMatch(unknown('`sig` is read from a file by `np.load(...)` (here)'));
    expect(plan.changes.find(c => c.cellIndex === 1)?.stays).toBe('unknown-size');
    expect(hostReasonsInWords(plan.changes)).toBe('cell 1: array sizes unknown and no input on the device');
  });

  it('moves one that reads a resident array, saying so; the same data read from the file stays', () => {
    const plan = rewriteNotebook(fixture('unknown-size-reads-resident'));
    expect(plan.gpuCells).toEqual(expect.arrayContaining([1, 2]));
    expect(summary(plan, 2)).toBe('runs on the GPU (array sizes unknown here; moved since it reads w, resident on the device, which a host version would copy back)');
    expect(plan.figures!.unpriced).toEqual([2]);
    expect(plan.gpuCells).not.toContain(3);
    expect(summary(plan, 3)).toMatch(unknown('`u` is read from a file by `np.load(...)` (here)'));
  });

  it('names the call an unsized value comes from where no file is read (not "read from a file")', () => {
    const plan = rewriteNotebook(cellsOf('import numpy as np\nimport mylib', 'x = np.asarray(mylib.make(2_000_000), dtype=np.float32)\ny = np.sort(x)\nprint(float(y[0]))'));
    expect(plan.gpuCells).not.toContain(1);
    expect(summary(plan, 1)).toMatch(unknown('`x` holds what `np.asarray(...)` gives (here), a value whose size the analysis does not model'));
    const masked = rewriteNotebook(cellsOf('import numpy as np\nimport mylib', 'ev = np.asarray(mylib.events(), dtype=np.float64)\nsel = ev[ev > 0.5]\ny = np.sort(sel)\nprint(float(y[0]))'));
    expect(summary(masked, 1)).toMatch(unknown('`ev` holds what `np.asarray(...)` gives (here), a value whose size the analysis does not model'));
  });

  it("moves it as before with session 'warm'", () => {
    const plan = rewriteNotebook(fixture('unknown-size-stays'), { session: 'warm' });
    expect(plan.gpuCells).toContain(1);
  });

  it('sizes np.load of a file an earlier cell np.save-d, and judges the cell by its figures', () => {
    const plan = rewriteNotebook(fixture('saved-file-sized'));
    expect(plan.gpuCells).toContain(1);
    expect(plan.figures!.unpriced).toEqual([]);
    // 1,000 values: too small to pay, said with its figure (not "sizes unknown")
    expect(plan.gpuCells).not.toContain(2);
    expect(summary(plan, 2)).toMatch(/^stays on the host: predicted 0\.\d+x on the GPU \([\d.]+ .s on the CPU, ~[\d.]+ .s there\), under the 1\.50x a GPU cell must reach$/);
    expect(plan.changes.find(c => c.cellIndex === 2)?.stays).toBe('below-minimum');
  });
});

describe('plan fixtures, per session (test/fixtures/plan/<case>/: notebook.py -> rewritten.py)', () => {
  const cases: [string, string, number[]][] = [
    ['unknown-size-stays', 'a cell of unknown size (a file read) reading nothing resident stays on the host', []],
    ['unknown-size-reads-resident', 'a cell of unknown size reading a resident array moves; one reading the file again stays', [0, 1, 2]],
    ['saved-file-sized', "np.load of a file an earlier cell np.save-d is sized as what it saved: the big cell moves, the small one stays", [1]]
  ];
  it.each(cases)('%s: %s', (name, _what, gpuCells) => {
    expect(checkPlanFixture(name).gpuCells).toEqual(gpuCells);
  });
});
