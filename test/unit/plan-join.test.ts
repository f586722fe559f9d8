/**
 * The whole-notebook plan decides cells jointly (plan.ts `joinDeferred`): a first use (a cupyx
 * function and its submodule's import, a CUDA library, a kernel) is loaded once per session, so a
 * cell is not kept on the host for a load another GPU cell makes anyway, and cells that only pay
 * together (sharing a load neither saves enough to pay for alone) move together.
 */
import { FIRST_USE_H200, firstCopyInCharge, firstUseCharge } from '../../src/analysis/apis/first-use';
import { hostReasonsInWords, rewriteNotebook } from '../../src/analysis/plan';
import { cellsOf, parser, checkPlanFixture } from './helpers';

beforeAll(async () => {
  await parser();
});

const setup = (n: number, m = n): string =>
  // (arrays made without a kernel worth moving: the setup cell stays on the host)
  `import numpy as np\nfrom scipy import ndimage as ndi\nimg = np.ones((${n}, ${n}), dtype=np.float32)\nbig = np.ones((${m}, ${m}), dtype=np.float32)`;
const shift = (name: string, of: string, s: string): string => `${name} = ndi.shift(${of}, ${s}, order=1)\nprint(float(${name}[0, 0]))`;
const summary = (plan: ReturnType<typeof rewriteNotebook>, index: number): string => plan.changes.find(c => c.cellIndex === index)?.summary ?? '';

describe('whole-notebook plan: cells decided jointly', () => {
  it('moves two cells that each cannot pay for loading cupyx.scipy.ndimage.shift, but together save more than 50 ms each', () => {
    const plan = rewriteNotebook(cellsOf(setup(2176), shift('a', 'img', '(1.5, 2.5)'), shift('b', 'img', '(-3.5, 0.5)')));
    expect(plan.gpuCells).toEqual([1, 2]);
    expect(summary(plan, 1)).toMatch(/^runs on the GPU together with cell 2: both need the import of cupyx\.scipy\.ndimage, cupyx\.scipy\.ndimage\.shift, loaded once, and together they save ~[\d.]+ ms per session, which neither does alone/);
    // the second says so too (it moved with the group); the load is charged once, to the first,
    // in the whole-notebook figure too
    expect(summary(plan, 2)).toMatch(/^runs on the GPU together with cell 1: both need the import of cupyx\.scipy\.ndimage/);
    const f = plan.figures!;
    const loads = firstUseCharge({ keys: ['submodule:cupyx.scipy', 'submodule:scipy.ndimage', 'cupyx:scipy.ndimage.shift'] })!.warm;
    expect(f.freshSessionSeconds - f.gpuSeconds - f.importSeconds).toBeGreaterThanOrEqual(loads - 1e-9);
    expect(f.freshSessionSeconds - f.gpuSeconds - f.importSeconds).toBeLessThan(loads + 0.05);
  });

  it('keeps the pair on the host when together they save under 50 ms, each with its own reason', () => {
    const plan = rewriteNotebook(cellsOf(setup(1536), shift('a', 'img', '(1.5, 2.5)'), shift('b', 'img', '(-3.5, 0.5)')));
    expect(plan.gpuCells).not.toContain(1);
    expect(plan.gpuCells).not.toContain(2);
    expect(summary(plan, 1)).toMatch(/^stays on the host: its [\d.]+ ms on the CPU cannot pay for loading cupyx\.scipy\.ndimage\.shift/);
    expect(summary(plan, 2)).toMatch(/^stays on the host: its [\d.]+ ms on the CPU cannot pay for loading cupyx\.scipy\.ndimage\.shift/);
    expect(hostReasonsInWords(plan.changes)).toBe('cells 1, 2: under 50 ms saved per session once first uses are loaded');
  });

  it('keeps one such cell on the host alone', () => {
    const plan = rewriteNotebook(cellsOf(setup(2176), shift('a', 'img', '(1.5, 2.5)')));
    expect(plan.gpuCells).not.toContain(1);
    expect(summary(plan, 1)).toMatch(/^stays on the host: [\d.]+ ms on the GPU in a fresh kernel against [\d.]+ ms on the CPU \(loading cupyx\.scipy\.ndimage\.shift included.*: it saves under 50 ms per session/);
  });

  it('moves an earlier cell whose load a later GPU cell makes anyway, when it then saves 50 ms', () => {
    // cell 1 (2048², ~90 ms on the CPU) before cell 2 (8192², over a second): cell 2 loads shift anyway
    const plan = rewriteNotebook(cellsOf(setup(2048, 8192), shift('a', 'img', '(1.5, 2.5)'), shift('b', 'big', '(-3.5, 0.5)')));
    expect(plan.gpuCells).toEqual(expect.arrayContaining([1, 2]));
    expect(summary(plan, 1)).toMatch(/^runs on the GPU with cell 2, which needs the import of cupyx\.scipy\.ndimage, cupyx\.scipy\.ndimage\.shift too: loaded once, this cell saves ~[\d.]+ ms per session \(alone it would not pay for the loading\)/);
    // the load is charged once, to cell 1 now: cell 2 is not charged it again
    const shiftLoad = FIRST_USE_H200.cupyxFunctions['scipy.ndimage.shift'].warm + FIRST_USE_H200.submodules['scipy.ndimage'];
    const f = plan.figures!;
    // (less the session's first copies in, charged once on the largest: big, 256 MiB)
    const firstCopy = firstCopyInCharge([8192 * 8192 * 4]);
    expect(f.freshSessionSeconds - f.gpuSeconds - f.importSeconds - firstCopy).toBeLessThan(2 * shiftLoad);
  });

  it('keeps that earlier cell on the host when even with the load paid it saves under 50 ms', () => {
    const plan = rewriteNotebook(cellsOf(setup(1024, 8192), shift('a', 'img', '(1.5, 2.5)'), shift('b', 'big', '(-3.5, 0.5)')));
    expect(plan.gpuCells).toContain(2);
    expect(plan.gpuCells).not.toContain(1);
    expect(summary(plan, 1)).toMatch(/^stays on the host: /);
  });

  it("changes nothing with session 'warm' (no first-use charges to share)", () => {
    const plan = rewriteNotebook(cellsOf(setup(3072), shift('a', 'img', '(1.5, 2.5)'), shift('b', 'img', '(-3.5, 0.5)')), { session: 'warm' });
    expect(plan.gpuCells).toEqual(expect.arrayContaining([1, 2]));
    expect(summary(plan, 1)).not.toMatch(/together|charged once/);
  });
});

describe('plan fixtures, per session (test/fixtures/plan/<case>/: notebook.py -> rewritten.py)', () => {
  const cases: [string, string, number[]][] = [
    ['first-use-shared', 'two cells sharing a first use neither pays alone move together; a smaller cell whose first uses they load moves too', [1, 2, 3]],
    ['first-use-shared-too-small', 'cells sharing a first use that even together do not save 50 ms a cell stay on the host', []],
    ['host-copy-taken-back', 'a host cell the first uses keep on the host copies lab (lab_host); a later pandas cell that brings lab back for good takes that copy (lab = lab_host): no second copy', [2]],
    ['host-copy-taken-back-changed', 'the same, with a GPU cell binding lab again in between: the pandas cell copies the new lab back', [2, 4]]
  ];
  it.each(cases)('%s: %s', (name, _what, gpuCells) => {
    expect(checkPlanFixture(name).gpuCells).toEqual(gpuCells);
  });
});
