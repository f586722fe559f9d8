/**
 * The whole-notebook plan keeps what it leaves on the device within 80% of the device's memory
 * (plan.ts, makeRoom): the largest resident arrays a GPU cell does not use go back to the host
 * at its top; a cell whose own arrays do not fit stays on the host, with the reason.
 */
import { DEFAULT_DEVICE_PROFILE } from '../../src/analysis/costmodel';
import { rewriteNotebook } from '../../src/analysis/plan';
import type { DeviceProfile } from '../../src/analysis/types';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

/** A device with 1 GiB of memory: 80% is 859 MB. */
const SMALL: DeviceProfile = { ...DEFAULT_DEVICE_PROFILE, name: 'small test GPU', memoryBytes: 2 ** 30 };

// 50M float64: 400 MB each
const notebook = () =>
  cellsOf(
    'import numpy as np\nN = 50_000_000',
    'x = np.random.rand(N)',
    'y = np.sqrt(x * x + 1.0) * np.exp(-x)',
    'z = np.sin(y) * np.cos(y) + 1.0',
    'w = np.sqrt(x * x + 1.0) * np.exp(-x)'
  );

describe('residency plan and device memory', () => {
  it('keeps everything resident on a device it fits on (the H200 default)', () => {
    const plan = rewriteNotebook(notebook());
    expect(plan.gpuCells).toEqual([1, 2, 3, 4]);
    expect(plan.transfers).toEqual([]);
  });

  it('moves the largest resident array a cell does not use back to the host at its top, and in again where it is used', () => {
    const plan = rewriteNotebook(notebook(), { device: SMALL });
    expect(plan.gpuCells).toEqual([1, 2, 3, 4]);
    // cell 3 needs y and z (800 MB); x (400 MB) more would pass 859 MB
    expect(plan.cells[3].source).toMatch(/^x = cp\.asnumpy\(x\)  # makes room on the device\n/);
    expect(plan.transfers.filter(t => t.cellIndex === 3)).toEqual([{ cellIndex: 3, name: 'x', direction: 'to-host', reason: 'makes room on the device for cell 3' }]);
    expect(plan.changes.find(c => c.cellIndex === 3)?.summary).toContain('first moves x back to the host (room on the device)');
    // cell 4 uses x again (x and w: 800 MB): y and z leave, x moves in
    expect(plan.cells[4].source).toMatch(/^y = cp\.asnumpy\(y\)  # makes room on the device\nz = cp\.asnumpy\(z\)  # makes room on the device\nx = cp\.asarray\(x\)\n/);
    expect(plan.transfers.filter(t => t.cellIndex === 4).map(t => `${t.name} ${t.direction}`)).toEqual(['y to-host', 'z to-host', 'x to-device']);
  });

  it('keeps a cell on the host when its own arrays do not fit, saying why', () => {
    const tiny: DeviceProfile = { ...SMALL, memoryBytes: 2 ** 29 };
    const plan = rewriteNotebook(cellsOf('import numpy as np\nx = np.ones(50_000_000)', 'y = np.sqrt(x * x + 1.0) * np.exp(-x)'), { device: tiny });
    expect(plan.gpuCells).toEqual([]);
    expect(plan.cells[1].source).toBe('y = np.sqrt(x * x + 1.0) * np.exp(-x)');
    expect(plan.changes).toEqual([
      {
        cellIndex: 1,
        cellId: 'c1',
        summary: "stays on the host: its arrays (800.0 MB) do not fit in 80% of the device's 536.9 MB (room kept for CuPy's memory pool, temporaries and library workspaces)"
      }
    ]);
  });
});
