/**
 * Slice stencils written with NumPy views, recognised exactly and turned into one CUDA kernel:
 *
 * ```python
 * lap = np.zeros_like(u)
 * lap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
 * ```
 *
 * Written op by op (or fused into a temporary), this makes three passes: `zeros_like` writes the
 * output, the expression reads five shifted views and writes a temporary, the slice assignment
 * copies it. The kernel below writes every output element once (interior formula, zero border),
 * one thread per element, the fastest-varying thread index (x) on the last, contiguous axis so
 * neighbouring threads load neighbouring addresses (coalesced). `--fmad=false` keeps NumPy's
 * rounding (no fused multiply-add), so results match bit for bit.
 *
 * Recognised: a 1-D or 2-D float32/float64 array `u` of known shape; `out = np.zeros_like(u)`
 * immediately followed by `out[1:-1(, 1:-1)] = <expr>` where `<expr>` combines views
 * `u[a:b(, c:d)]` shifted by at most one (`:-2`, `1:-1`, `2:` per axis), numeric literals, `+`,
 * `-`, `*`, `/`, unary minus and parentheses. Anything else keeps the generic rewrite.
 */
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, kids, operatorOf } from '../../syntax';
import { cFloatLiteral } from './fusion';

export interface SliceStencil {
  /** From the start of the zeros_like statement to the end of the slice assignment. */
  start: number;
  end: number;
  /** The expression node (its chain is replaced by the kernel). */
  expr: SyntaxNode;
  out: string;
  input: string;
  dtype: 'float32' | 'float64';
  ndim: 1 | 2;
  /** The C expression of the interior value. */
  body: string;
  /** Number of shifted views read (for the explanation). */
  taps: number;
}

const AXIS_OFFSET: Record<string, number> = { ':-2': -1, '1:-1': 0, '2:': 1 };

function sliceOffsets(sub: SyntaxNode, ndim: number): number[] | null {
  const parts = sub.type === 'subscript' ? kids(sub).filter(k => k.id !== field(sub, 'value')?.id) : [];
  if (parts.length !== ndim || parts.some(p => p.type !== 'slice')) {
    return null;
  }
  const offs = parts.map(p => AXIS_OFFSET[p.text.replace(/\s+/g, '')]);
  return offs.some(o => o === undefined) ? null : offs;
}

/** Finds the pattern among the cell's top-level statements. */
export function findSliceStencil(root: SyntaxNode, model: NotebookModel, cell: CellModel): SliceStencil | null {
  const stmts = kids(root).filter(s => s.type !== 'comment');
  for (let k = 0; k + 1 < stmts.length; k++) {
    const a = stmts[k].type === 'expression_statement' ? kids(stmts[k])[0] : null;
    const b = stmts[k + 1].type === 'expression_statement' ? kids(stmts[k + 1])[0] : null;
    if (a?.type !== 'assignment' || b?.type !== 'assignment') {
      continue;
    }
    const out = field(a, 'left');
    const zeros = field(a, 'right');
    if (out?.type !== 'identifier' || zeros?.type !== 'call' || model.qualifiedName(field(zeros, 'function')!) !== 'numpy.zeros_like') {
      continue;
    }
    const zargs = callArguments(zeros);
    const input = zargs.positional[0];
    if (!input || input.type !== 'identifier' || zargs.positional.length !== 1 || zargs.keywords.size > 0) {
      continue;
    }
    const v = model.valueBefore(input.text, cell, zeros.startIndex);
    const dtype = v.dtype === 'float32' || v.dtype === 'float64' ? v.dtype : null;
    const ndim = v.shape?.length;
    if (v.kind !== 'ndarray' || !dtype || (ndim !== 1 && ndim !== 2) || input.text === out.text) {
      continue;
    }
    const target = field(b, 'left');
    const expr = field(b, 'right');
    if (target?.type !== 'subscript' || field(target, 'value')?.text !== out.text || !expr) {
      continue;
    }
    const interior = sliceOffsets(target, ndim);
    if (!interior || interior.some(o => o !== 0)) {
      continue;
    }
    let taps = 0;
    const offsetText = (offs: number[]): string => {
      const terms: string[] = [];
      if (ndim === 2 && offs[0] !== 0) {
        terms.push(offs[0] < 0 ? '- m' : '+ m');
      }
      const last = offs[offs.length - 1];
      if (last !== 0) {
        terms.push(last < 0 ? '- 1' : '+ 1');
      }
      return terms.length ? `k ${terms.join(' ')}` : 'k';
    };
    const emit = (n: SyntaxNode): string | null => {
      switch (n.type) {
        case 'integer':
        case 'float':
          return cFloatLiteral(n.text, dtype);
        case 'parenthesized_expression': {
          const inner = n.namedChild(0);
          const t = inner ? emit(inner) : null;
          return t === null ? null : `(${t})`;
        }
        case 'unary_operator': {
          const arg = field(n, 'argument');
          const t = arg ? emit(arg) : null;
          return t === null || operatorOf(n) !== '-' ? null : `-${t}`;
        }
        case 'binary_operator': {
          const op = operatorOf(n);
          const l = field(n, 'left');
          const r = field(n, 'right');
          const lt = l ? emit(l) : null;
          const rt = r ? emit(r) : null;
          return lt === null || rt === null || !['+', '-', '*', '/'].includes(op) ? null : `${lt} ${op} ${rt}`;
        }
        case 'subscript': {
          if (field(n, 'value')?.text !== input.text) {
            return null;
          }
          const offs = sliceOffsets(n, ndim);
          if (!offs) {
            return null;
          }
          taps += 1;
          return `u[${offsetText(offs)}]`;
        }
        default:
          return null;
      }
    };
    const body = emit(expr);
    if (body === null || taps < 2) {
      continue;
    }
    return { start: stmts[k].startIndex, end: stmts[k + 1].endIndex, expr, out: out.text, input: input.text, dtype, ndim, body, taps };
  }
  return null;
}

/** The RawKernel definition and the statements that replace the two original ones. */
export function stencilCode(s: SliceStencil, kernelName: string, inputText: string, cp: string): { definition: string; call: string } {
  const ct = s.dtype === 'float32' ? 'float' : 'double';
  const zero = s.dtype === 'float32' ? '0.0f' : '0.0';
  const kernel =
    s.ndim === 2
      ? [
          `extern "C" __global__ void ${kernelName}(const ${ct}* u, ${ct}* out, int n, int m) {`,
          '    // one thread per output element; x, the fastest-varying index, runs along the',
          '    // contiguous last axis, so neighbouring threads read neighbouring addresses',
          '    int j = blockIdx.x * blockDim.x + threadIdx.x;',
          '    int i = blockIdx.y * blockDim.y + threadIdx.y;',
          '    if (i >= n || j >= m) return;',
          '    size_t k = (size_t)i * m + j;',
          `    ${ct} v = ${zero};`,
          '    if (i > 0 && i < n - 1 && j > 0 && j < m - 1) {',
          `        v = ${s.body};`,
          '    }',
          '    out[k] = v;',
          '}'
        ]
      : [
          `extern "C" __global__ void ${kernelName}(const ${ct}* u, ${ct}* out, long long n) {`,
          '    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;',
          '    if (k >= n) return;',
          `    ${ct} v = ${zero};`,
          '    if (k > 0 && k < n - 1) {',
          `        v = ${s.body};`,
          '    }',
          '    out[k] = v;',
          '}'
        ];
  const definition = `${kernelName} = ${cp}.RawKernel(r'''\n${kernel.join('\n')}\n''', '${kernelName}', options=('--fmad=false',))\n`;
  const dt = `${cp}.${s.dtype}`;
  const o = s.out;
  const launch =
    s.ndim === 2
      ? `${kernelName}(((${o}.shape[1] + 31) // 32, (${o}.shape[0] + 7) // 8), (32, 8),\n${' '.repeat(kernelName.length + 1)}(${cp}.ascontiguousarray(${inputText}, dtype=${dt}), ${o}, ${cp}.int32(${o}.shape[0]), ${cp}.int32(${o}.shape[1])))`
      : `${kernelName}(((${o}.size + 255) // 256,), (256,), (${cp}.ascontiguousarray(${inputText}, dtype=${dt}), ${o}, ${cp}.int64(${o}.size)))`;
  // the whole output (border included) is written by the kernel: no zero fill needed
  const call = `${o} = ${cp}.empty(${inputText}.shape, dtype=${dt})\n${launch}`;
  return { definition, call };
}
