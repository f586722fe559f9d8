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

  it('frees the device copy of a host array that keeps its host array (no copy back), and copies it in again where it is used', () => {
    const cells = cellsOf(
      'import numpy as np\nN = 50_000_000\nx = np.ones(N)',
      'y = np.sqrt(x * x + 1.0) * np.exp(-x)',
      'import math\nprint(math.fsum(x[:1000]))',
      'z = np.sin(y) * np.cos(y) + 1.0',
      'w = np.sqrt(x * x + 1.0) * np.exp(-x)'
    );
    const plan = rewriteNotebook(cells, { device: SMALL });
    expect(plan.gpuCells).toEqual([1, 3, 4]);
    // x keeps its host array (cell 2 reads it), beside its device copy x_gpu
    expect(plan.cells[1].source).toMatch(/^x_gpu = cp\.asarray\(x\)\n/);
    expect(plan.cells[2].source).toBe('import math\nprint(math.fsum(x[:1000]))');
    // cell 3 needs y and z: x's device copy is freed, nothing copied back
    expect(plan.cells[3].source).toMatch(/^del x_gpu  # makes room on the device \(x is on the host too\)\n/);
    expect(plan.transfers.filter(t => t.cellIndex === 3)).toEqual([]);
    expect(plan.changes.find(c => c.cellIndex === 3)?.summary).toBe('runs on the GPU; first frees the device copy of x (room on the device; the host array stays)');
    // cell 4 copies x in again
    expect(plan.cells[4].source).toMatch(/x = cp\.asarray\(x\)\n/);
  });

  it('never frees or moves back an array a notebook function reads as a global (a later call would find it gone, or on the host beside device arguments)', () => {
    const cells = cellsOf(
      'import numpy as np\nN = 50_000_000\nx = np.ones(N)',
      'def f(a):\n    return a * x\n\ny = np.sqrt(x * x + 1.0) * np.exp(-x)',
      'import math\nprint(math.fsum(x[:1000]))',
      'z = np.sin(y) * np.cos(y) + 1.0',
      'w = np.sqrt(f(y) + 1.0) * np.exp(-y)'
    );
    const plan = rewriteNotebook(cells, { device: SMALL });
    // f reads x when it runs: x is rebound (no x_gpu beside the host array, which f would not see)
    expect(plan.cells[1].source).toMatch(/^x = cp\.asarray\(x\)\ndef f\(a\):\n    return a \* x\n/);
    expect(plan.cells.map(c => c.source).join('\n')).not.toMatch(/x_gpu|del x\b/);
    // cell 3 cannot make room without x (y, z and x: 1.2 GB): it stays on the host, x stays resident
    expect(plan.gpuCells).toEqual([1]);
    expect(plan.cells[3].source).not.toMatch(/x = cp\.asnumpy\(x\)/);
    expect(plan.changes.find(c => c.cellIndex === 3)?.summary).toContain('the resident x (400.0 MB, read by a notebook function as a global, which stays on the device)');
    // cell 4 calls f on the host: x comes back at its top, so f computes with host arrays only
    expect(plan.cells[4].source).toMatch(/^x = cp\.asnumpy\(x\)\nw = np\.sqrt\(f\(y_host\) \+ 1\.0\) \* np\.exp\(-y_host\)$/);
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
        stays: 'memory',
        summary: "stays on the host: its arrays (800.0 MB) do not fit in 80% of the device's 536.9 MB (room kept for CuPy's memory pool, temporaries and library workspaces)"
      }
    ]);
  });

  describe('names that share one array count once', () => {
    // x is 400 MB; `v = x` is the same array, `v = x[1:]` a view of it: no more bytes
    const aliased = (bind: string, last: string) =>
      cellsOf('import numpy as np\nN = 50_000_000', 'x = np.random.rand(N)', `${bind}\ny = np.sqrt(x * x + 1.0) * np.exp(-x)`, last, 'print(v[:3], z[:3])');

    it('runs a cell that binds an alias and makes one array (800 MB, not 1.2 GB) on the GPU', () => {
      const plan = rewriteNotebook(aliased('v = x', 'z = np.sin(y) * np.cos(y) + 1.0'), { device: SMALL });
      expect(plan.gpuCells).toEqual([1, 2, 3]);
      expect(plan.cells[2].source).toBe('v = x\ny = y_kernel(x)');
      expect(plan.changes.find(c => c.cellIndex === 2)?.summary).toBe('runs on the GPU');
    });

    it('moves an aliased array back to the host as one array, the alias rebound to it', () => {
      const plan = rewriteNotebook(aliased('v = x', 'z = np.sin(y) * np.cos(y) + 1.0'), { device: SMALL });
      // cell 3 needs y and z (800 MB): x (= v, 400 MB) leaves, once, and v stays the same array as x
      expect(plan.cells[3].source).toBe('x = cp.asnumpy(x)  # makes room on the device\nv = x  # the same array\nz = z_kernel(y)');
      expect(plan.transfers.filter(t => t.cellIndex === 3).map(t => `${t.name} ${t.direction}`)).toEqual(['x to-host', 'v to-host']);
    });

    it('counts an alias made in an earlier cell once', () => {
      const plan = rewriteNotebook(aliased('v = x', 'w = np.sqrt(x * v + 1.0)\nz = w'), { device: SMALL });
      // cell 3 holds x = v (made in cell 2) and w = z: 800 MB, not 1.6 GB; y (400 MB) makes room
      expect(plan.gpuCells).toEqual([1, 2, 3]);
      expect(plan.cells[3].source).toMatch(/^y = cp\.asnumpy\(y\)  # makes room on the device\n/);
    });

    it('keeps a cell on the host when a resident view would have to leave apart from its array, saying why', () => {
      const plan = rewriteNotebook(aliased('v = x[1:]', 'z = np.sin(y) * np.cos(y) + 1.0'), { device: SMALL });
      // cell 2 fits (x and its view: 400 MB, y 400 MB); cell 3 would need x to leave, which v views
      expect(plan.gpuCells).toEqual([1, 2]);
      expect(plan.changes.find(c => c.cellIndex === 3)?.summary).toBe(
        "stays on the host: its arrays (800.0 MB) and the resident x, v (400.0 MB, views of one array, which cannot go back to the host apart) do not fit in 80% of the device's 1.1 GB (room kept for CuPy's memory pool, temporaries and library workspaces); copies y to the host as y_host for host code (the device array stays)"
      );
    });

    it('counts a fancy-indexed copy and a name rebound in the cell as arrays of their own', () => {
      const fancy = rewriteNotebook(aliased('v = x[np.arange(N)]', 'z = np.sin(y) * np.cos(y) + 1.0'), { device: SMALL });
      // x, the copy v and y: 1.2 GB
      expect(fancy.changes.find(c => c.cellIndex === 2)?.summary).toMatch(/^stays on the host: its arrays \(1\.2 GB\) do not fit/);
      const rebound = rewriteNotebook(aliased('v = x\nv = np.exp(v)', 'z = np.sin(y) * np.cos(y) + 1.0'), { device: SMALL });
      expect(rebound.changes.find(c => c.cellIndex === 2)?.summary).toMatch(/^stays on the host: its arrays \(1\.2 GB\) do not fit/);
    });
  });
});
