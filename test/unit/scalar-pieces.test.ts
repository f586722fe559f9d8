/**
 * Pieces of a kernel's expression made of scalars only (`dt * 0.5` of `dt * 0.5 * u`): Python
 * computes them first, and NumPy (NEP 50) casts the result once to the array's dtype, unless it
 * is a NumPy scalar that promotes the array (float64 with a float32 array).
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { kernelTakesScalar, scalarKind, scalarPiece, ScalarKind } from '../../src/analysis/rules/arrays/fusion';
import type { SyntaxNode } from '../../src/analysis/parser';
import type { RuntimeValueInfo } from '../../src/analysis/types';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

/** The kind scalarPiece gives the right-hand side of the target cell's last line (null: not a piece). */
function pieceKind(setup: string, expr: string, runtime: Record<string, RuntimeValueInfo> = {}): ScalarKind | null {
  const cache = new CellCache(p);
  const cells = cellsOf(setup, `x = ${expr}`);
  const m = new NotebookModel(cells.map(c => cache.get(c)), runtime);
  const cell = m.cells[1];
  const stmt = cell.tree!.rootNode.namedChild(0)!.namedChild(0)!;
  const right = stmt.childForFieldName('right') as SyntaxNode;
  return scalarPiece(right, m, cell)?.kind ?? null;
}

const SETUP = 'import numpy as np\nu = np.zeros(10, dtype=np.float32)\ndt = 0.1\nn = 3\nh = np.float64(0.5)\nm = u.mean()';

describe('scalarPiece', () => {
  it('takes Python numbers and their arithmetic as one weak piece', () => {
    expect(pieceKind(SETUP, 'dt')).toBe('python');
    expect(pieceKind(SETUP, 'dt * 0.5')).toBe('python');
    expect(pieceKind(SETUP, '(dt / n) ** 2 * np.pi')).toBe('python');
    expect(pieceKind(SETUP, '-dt')).toBe('python');
    expect(pieceKind(SETUP, 'u.size * dt')).toBe('python'); // ndarray.size is a Python int
  });

  it('is null for literals only (folded), an array, or anything with an array in it', () => {
    expect(pieceKind(SETUP, '0.1 * 0.1')).toBeNull();
    expect(pieceKind(SETUP, 'u')).toBeNull();
    expect(pieceKind(SETUP, 'dt * u')).toBeNull();
    expect(pieceKind(SETUP, 'm * dt')).toBeNull(); // u.mean(): a 0-d array value to the engine
    expect(pieceKind(SETUP, 'dt < 1')).toBeNull();
  });

  it('does not take a NumPy scalar for a Python number', () => {
    // h = np.float64(0.5): a NumPy float64 scalar (strong under NEP 50), not a weak Python float
    expect(pieceKind(SETUP, 'h')).toBe('real');
    expect(pieceKind(SETUP, 'float(h)')).toBe('unknown');
  });

  it('reads the kernel\'s report: Python float, NumPy float32, NumPy float64', () => {
    const rt = (type: string, dtype?: string): Record<string, RuntimeValueInfo> => ({ s: { type, ...(dtype ? { dtype, shape: [] } : {}) } });
    expect(pieceKind('s = f()', 's * 0.5', rt('float'))).toBe('python');
    expect(pieceKind('s = f()', 's * 0.5', rt('numpy.float32', 'float32'))).toBe('float32');
    expect(pieceKind('s = f()', 's * 0.5', rt('numpy.float64', 'float64'))).toBe('real');
    expect(pieceKind('s = f()', 's * 0.5', rt('numpy.int64', 'int64'))).toBe('real');
    expect(pieceKind('s = f()', 's * 0.5', rt('decimal.Decimal'))).toBeNull();
  });
});

describe('scalarPiece: complex and NumPy-constructed scalars', () => {
  it('gives a complex piece the complex kind (NumPy: float32 array * complex -> complex64)', () => {
    expect(pieceKind(SETUP, 'dt * 1j')).toBe('complex');
    expect(pieceKind(SETUP, '(dt + 1J)')).toBe('complex');
    expect(pieceKind(SETUP, 'dt * 2.5j * n')).toBe('complex');
    expect(pieceKind(SETUP, 'complex(dt, 0)')).toBe('complex');
    expect(pieceKind(SETUP, 'np.complex64(dt)')).toBe('complex');
    expect(pieceKind('z = f()', 'z * 0.5', { z: { type: 'complex' } })).toBe('complex');
    expect(pieceKind(SETUP, '1j * 2')).toBeNull(); // literals only: pythonConstant refuses them
    // a user's own `complex` is not the builtin
    expect(pieceKind(`${SETUP}\ndef complex(a, b):\n    return a`, 'complex(dt, 0)')).not.toBe('complex');
  });

  it('types np.float32(<real scalar>) as a NumPy float32, np.float64(...) as a NumPy float64', () => {
    // NumPy: np.float32(0.2) * 0.5 is np.float32 (NEP 50), and with float32 arrays stays float32
    expect(pieceKind(SETUP, 'np.float32(0.2)')).toBe('float32');
    expect(pieceKind(SETUP, 'np.float32(0.2) * 0.5')).toBe('float32');
    expect(pieceKind(SETUP, 'np.single(dt) * n')).toBe('float32');
    expect(pieceKind(SETUP, 'np.float64(0.2)')).toBe('real');
    expect(pieceKind(SETUP, 'np.float32(0.2) * np.float64(2)')).toBe('real');
    expect(pieceKind(SETUP, 'np.float32(0.2) * 1j')).toBe('complex');
    expect(pieceKind(SETUP, 'np.float32(1j)')).toBeNull(); // TypeError in NumPy
    expect(pieceKind(SETUP, 'np.float32([0.2, 0.3])')).toBeNull(); // an array
    expect(pieceKind(SETUP, 'np.float32(u)')).toBeNull();
  });
});

describe('scalarPiece: Python ints beyond 2^53', () => {
  it('keeps a wide Python int out of typed kernels (CuPy packs it as int64/uint64 first)', () => {
    // NumPy: float32 array * 10**30 is float32 1e30; a CuPy kernel argument 10**30 raises OverflowError
    const big = `${SETUP}\nbig = 10 ** 30`;
    expect(pieceKind(big, 'big')).toBe('wide-int');
    expect(pieceKind(big, 'big * n')).toBe('wide-int');
    expect(pieceKind(big, 'big * dt')).toBe('python'); // a Python float, computed by the cell
    expect(pieceKind(SETUP, 'n * 2 ** 20')).toBe('python');
    expect(kernelTakesScalar('wide-int', 'float64')).toBe(false);
  });
});

describe('kernelTakesScalar', () => {
  it('keeps a float32 kernel only where NumPy keeps float32', () => {
    expect(kernelTakesScalar('python', 'float32')).toBe(true);
    expect(kernelTakesScalar('float32', 'float32')).toBe(true);
    expect(kernelTakesScalar('real', 'float32')).toBe(false); // float32 array * np.float64 -> float64
    expect(kernelTakesScalar('real', 'float64')).toBe(true);
    expect(kernelTakesScalar('unknown', 'float64')).toBe(false);
    expect(kernelTakesScalar('complex', 'float32')).toBe(false);
    expect(kernelTakesScalar('complex', 'float64')).toBe(false);
  });

  it('scalarKind of a value the engine inferred', () => {
    expect(scalarKind({ kind: 'scalar', value: 0.1, dtype: 'float64', origin: 'literal' })).toBe('python');
    expect(scalarKind({ kind: 'scalar', dtype: 'float64', origin: 'inferred' })).toBe('unknown');
    expect(scalarKind({ kind: 'ndarray', dtype: 'float64', origin: 'inferred' })).toBeNull();
  });
});

describe('a chain a scalar keeps from its typed kernel', () => {
  const setup = 'import numpy as np\nrng = np.random.default_rng(1)\nu = rng.random(20_000_000, dtype=np.float32)\ndt = f()';
  const notesOf = (runtime: Record<string, RuntimeValueInfo>): { candidate: string; notes: string[] } => {
    const s = analyzeNotebook(cellsOf(setup, 'v = dt * 0.5 * u * u + 0.3'), { runtime }).suggestions.find(x => x.rule === 'GPU103')!;
    return { candidate: s.candidate, notes: s.notes };
  };

  it('says so: a NumPy float64 scalar with float32 arrays (NumPy computes float64)', () => {
    const s = notesOf({ dt: { type: 'numpy.float64', dtype: 'float64', shape: [] } });
    expect(s.candidate).toContain('@cp.fuse()');
    expect(s.notes.join('\n')).toMatch(/`dt \* 0\.5` is a NumPy scalar other than float32.*float64/);
  });

  it('says so: a scalar the analysis cannot tell from a NumPy one', () => {
    const s = notesOf({});
    expect(s.candidate).toContain('@cp.fuse()');
    expect(s.notes.join('\n')).not.toMatch(/NumPy scalar other than/);
    const unknown = analyzeNotebook(cellsOf(`${setup}\nh = float(f())`, 'v = h * 0.5 * u * u + 0.3')).suggestions.find(x => x.rule === 'GPU103')!;
    expect(unknown.notes.join('\n')).toMatch(/cannot tell whether `h \* 0\.5` is a Python number/);
  });

  it('is typed, without such a note, for a Python float or a NumPy float32', () => {
    for (const rt of [{ type: 'float' }, { type: 'numpy.float32', dtype: 'float32', shape: [] }]) {
      const s = notesOf({ dt: rt });
      expect(s.candidate).toContain("'float32 arg0, float32 u', 'float32 v'");
      expect(s.candidate).toContain('v_kernel(dt * 0.5, u_gpu)');
      expect(s.notes.join('\n')).not.toMatch(/typed kernel|float32 kernel/);
    }
  });
});

describe('a complex scalar never enters a float kernel', () => {
  const setup = 'import numpy as np\nrng = np.random.default_rng(1)\nu = rng.random(20_000_000, dtype=np.float32)\nx = rng.random((4096, 4096), dtype=np.float32)\ndt = 0.1\nc = 0.3';
  const gpu103 = (target: string, runtime: Record<string, RuntimeValueInfo> = {}): { candidate: string; notes: string } => {
    const s = analyzeNotebook(cellsOf(setup, target), { runtime }).suggestions.find(x => x.rule === 'GPU103')!;
    return { candidate: s.candidate, notes: s.notes.join('\n') };
  };

  it('a complex piece gets cp.fuse and a note (NumPy computes complex64)', () => {
    for (const [target, piece] of [
      ['v = dt * 1j * u * u + c', '1j'],
      ['v = (dt + 1j) * u * u + c', '1j'],
      ['v = 1j * u * u + c', '1j'],
      ['v = complex(dt, 0) * u * u + c', 'complex(dt, 0)']
    ]) {
      const s = gpu103(target);
      expect(s.candidate).toContain('@cp.fuse()');
      expect(s.candidate).not.toMatch(/ElementwiseKernel|float32 /);
      expect(s.notes).toContain(`\`${piece}\` is complex`);
    }
    const rt = gpu103('v = z * u * u + c', { z: { type: 'complex' } });
    expect(rt.candidate).toContain('@cp.fuse()');
    expect(rt.notes).toContain('`z` is complex');
  });

  it('no float reduction kernel or stencil launcher casts a complex coefficient with cp.float32', () => {
    for (const target of ['t = np.sum(dt * 1j * u * u)', 'y = dt * 1j * (x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:] - 4 * x[1:-1, 1:-1])']) {
      const s = gpu103(target);
      expect(s.candidate).not.toMatch(/cp\.float32\(|RawKernel|ReductionKernel|ElementwiseKernel/);
      expect(s.notes).toContain('`1j` is complex');
    }
  });
});

describe('a NumPy float32 scalar made by np.float32(...)', () => {
  const setup = 'import numpy as np\nrng = np.random.default_rng(1)\nu = rng.random(20_000_000, dtype=np.float32)\ns = np.float32(0.2)\nc = 0.3';
  const gpu103 = (target: string, runtime: Record<string, RuntimeValueInfo> = {}): { candidate: string; notes: string } => {
    const s = analyzeNotebook(cellsOf(setup, target), { runtime }).suggestions.find(x => x.rule === 'GPU103')!;
    return { candidate: s.candidate, notes: s.notes.join('\n') };
  };

  it('written in the chain: one typed float32 kernel (NumPy keeps float32)', () => {
    const s = gpu103('v = np.float32(0.2) * 0.5 * u * u + c');
    expect(s.candidate).toContain("'float32 arg0, float32 u, float32 c', 'float32 v'");
    expect(s.candidate).toContain('v_kernel(np.float32(0.2) * 0.5, u_gpu, c)');
    expect(s.notes).not.toMatch(/typed kernel|float32 kernel/);
  });

  it('written in the chain as np.float64(...): no float32 kernel, and the note says why', () => {
    const s = gpu103('v = np.float64(0.2) * u * u + c');
    expect(s.candidate).toContain('@cp.fuse()');
    expect(s.notes).toMatch(/`np\.float64\(0\.2\)` is a NumPy scalar other than float32/);
  });

  it('bound to a name in another cell: a NumPy float32 scalar to the model, typed; and with the kernel report', () => {
    const s = gpu103('v = s * u * u + c');
    expect(s.candidate).toContain("'float32 s, float32 u, float32 c', 'float32 v'");
    expect(s.notes).not.toMatch(/typed kernel|float32 kernel/);
    const rt = gpu103('v = s * u * u + c', { s: { type: 'numpy.float32', dtype: 'float32', shape: [] } });
    expect(rt.candidate).toContain("'float32 s, float32 u, float32 c', 'float32 v'");
    expect(rt.notes).not.toMatch(/typed kernel|float32 kernel/);
  });
});
