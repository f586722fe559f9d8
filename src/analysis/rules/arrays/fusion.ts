/**
 * Elementwise-chain fusion: finds chains of elementwise operations on large arrays and turns
 * each into one `@cp.fuse()` function, so the GPU reads the inputs once and writes the result
 * once instead of making one pass (and one temporary) per operator.
 *
 * A chain is an expression tree of arithmetic operators, comparisons and elementwise ufuncs
 * (optionally ending in one full reduction CuPy can fuse: sum, prod, max, min) with at least
 * three operations. Anything else inside it (a slice `u[1:-1]`, a method call, a scalar name)
 * is evaluated outside and passed in as an argument.
 */
import { ELEMENTWISE_UFUNCS, FUSABLE_REDUCTIONS } from '../../apis/cupy';
import { applyEdits } from '../../edits';
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, kids, operatorOf, unparen, walk } from '../../syntax';
import type { TextEdit } from '../../types';
import { ValueInfo } from '../../values';

/** Ufuncs known to work inside `cupy.fuse` (checked on cupy 14.2). */
const FUSABLE_UFUNCS: ReadonlySet<string> = new Set(
  [...ELEMENTWISE_UFUNCS].filter(n => !['clip', 'angle', 'real', 'imag', 'conj', 'conjugate', 'heaviside', 'fix'].includes(n))
);
const FUSABLE_BINARY = new Set(['+', '-', '*', '/', '//', '%', '**', '<', '>', '<=', '>=', '==', '!=', '&', '|', '^']);

export interface ElementwiseChain {
  /** The expression replaced by a call of the fused function. */
  node: SyntaxNode;
  /** The name the chain is assigned to (for naming the function), if any. */
  target: string | null;
  /** Operations inside (each was one pass and one launch). */
  ops: number;
  transcendental: number;
  /** Ends in a reduction (the result is a scalar-size array). */
  reduction: string | null;
  /** Sub-expressions evaluated outside and passed in, in order. */
  params: { node: SyntaxNode; name: string }[];
  /** The value of the chain (for sizes). */
  value: ValueInfo;
}

/** Finds fusable chains in the cell (outermost only, assignment right-hand sides and returns). */
export function findElementwiseChains(root: SyntaxNode, model: NotebookModel, cell: CellModel, resolveUfunc: (n: SyntaxNode) => string | null): ElementwiseChain[] {
  const chains: ElementwiseChain[] = [];
  walk(root, n => {
    if (n.type === 'function_definition' || n.type === 'lambda') {
      return false;
    }
    let expr: SyntaxNode | null = null;
    let target: string | null = null;
    if (n.type === 'assignment') {
      expr = field(n, 'right');
      const left = field(n, 'left');
      target = left?.type === 'identifier' ? left.text : left?.type === 'subscript' ? field(left, 'value')?.text ?? null : null;
    } else if (n.type === 'augmented_assignment') {
      expr = field(n, 'right');
      target = field(n, 'left')?.text ?? null;
    }
    if (!expr) {
      return true;
    }
    const chain = analyseChain(expr, model, cell, resolveUfunc);
    if (chain && chain.ops >= 3) {
      chains.push({ ...chain, target });
      return false;
    }
    return true;
  });
  return chains;
}

function analyseChain(
  expr: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  resolveUfunc: (n: SyntaxNode) => string | null
): Omit<ElementwiseChain, 'target'> | null {
  const value = model.inferValue(expr, cell);
  if (value.kind !== 'ndarray') {
    return null;
  }
  let ops = 0;
  let transcendental = 0;
  let reduction: string | null = null;
  const params: { node: SyntaxNode; name: string }[] = [];
  const paramFor = (node: SyntaxNode): void => {
    const n = unparen(node);
    const text = n.text;
    if (params.some(p => p.node.text === text)) {
      return;
    }
    const name = n.type === 'identifier' ? n.text : `arg${params.length}`;
    params.push({ node: n, name });
  };
  /** Returns false when the node cannot be part of a fused kernel at all. */
  const visit = (node: SyntaxNode, top: boolean): boolean => {
    const n = unparen(node);
    switch (n.type) {
      case 'integer':
      case 'float':
      case 'true':
      case 'false':
        return true;
      case 'binary_operator': {
        const op = operatorOf(n);
        if (!FUSABLE_BINARY.has(op)) {
          paramFor(n);
          return true;
        }
        ops += 1;
        if (op === '**' && !/^[234]$/.test(field(n, 'right')?.text ?? '')) {
          transcendental += 1;
        }
        return visit(field(n, 'left')!, false) && visit(field(n, 'right')!, false);
      }
      case 'unary_operator': {
        ops += 1;
        return visit(field(n, 'argument')!, false);
      }
      case 'comparison_operator': {
        const parts = kids(n);
        if (parts.length !== 2) {
          paramFor(n);
          return true;
        }
        ops += 1;
        return visit(parts[0], false) && visit(parts[1], false);
      }
      case 'call': {
        const fn = field(n, 'function');
        const ufunc = fn ? resolveUfunc(fn) : null;
        const { positional, keywords } = callArguments(n);
        if (ufunc && FUSABLE_UFUNCS.has(ufunc) && keywords.size === 0) {
          ops += 1;
          if (/^(sin|cos|tan|arc|sinh|cosh|tanh|exp|log|sqrt|cbrt|power|hypot)/.test(ufunc)) {
            transcendental += 1;
          }
          return positional.every(a => visit(a, false));
        }
        if (ufunc && top && FUSABLE_REDUCTIONS.has(ufunc) && positional.length === 1 && keywords.size === 0) {
          reduction = ufunc;
          ops += 1;
          return visit(positional[0], false);
        }
        paramFor(n);
        return true;
      }
      case 'attribute': {
        // np.pi and friends stay inline; other attributes are evaluated outside
        if (model.qualifiedName(n)?.startsWith('numpy.')) {
          return true;
        }
        paramFor(n);
        return true;
      }
      default:
        paramFor(n);
        return true;
    }
  };
  if (!visit(expr, true)) {
    return null;
  }
  // at least one array input, or the kernel is pointless
  const arrayParams = params.filter(p => model.inferValue(p.node, cell).kind === 'ndarray');
  if (arrayParams.length === 0) {
    return null;
  }
  return { node: expr, ops, transcendental, reduction, params, value };
}

/**
 * Applies fusion on top of the plain CuPy edits: each chain's range is replaced by a call of a
 * fused function defined in the prologue. Edits inside a chain are dropped from the plain
 * list and re-applied to the pieces they belong to (arguments keep device names, the body gets
 * `cp.` functions).
 */
export function fuseChains(
  source: string,
  plain: TextEdit[],
  chains: ElementwiseChain[],
  cp: string,
  usedNames: ReadonlySet<string>
): { edits: TextEdit[]; definitions: string[] } {
  const inside = (e: TextEdit, n: SyntaxNode): boolean => e.start >= n.startIndex && e.end <= n.endIndex && !(e.start === n.startIndex && e.end === n.startIndex) && !(e.start === n.endIndex && e.end === n.endIndex);
  const edits = plain.filter(e => !chains.some(c => inside(e, c.node)));
  const definitions: string[] = [];
  const taken = new Set(usedNames);
  for (const chain of chains) {
    const base = `${chain.target ?? 'expr'}_fused`.replace(/[^\w]/g, '_');
    let fname = base;
    for (let k = 2; taken.has(fname); k++) {
      fname = `${base}${k}`;
    }
    taken.add(fname);
    const sub = (node: SyntaxNode, replacements: { node: SyntaxNode; text: string }[]): string => {
      const local = plain
        .filter(e => e.start >= node.startIndex && e.end <= node.endIndex && !(e.start === e.end && (e.start === node.startIndex || e.start === node.endIndex)))
        .filter(e => !replacements.some(r => e.start >= r.node.startIndex && e.end <= r.node.endIndex))
        .map(e => ({ start: e.start - node.startIndex, end: e.end - node.startIndex, text: e.text }));
      const reps = replacements
        .filter(r => r.node.startIndex >= node.startIndex && r.node.endIndex <= node.endIndex)
        .map(r => ({ start: r.node.startIndex - node.startIndex, end: r.node.endIndex - node.startIndex, text: r.text }));
      return applyEdits(source.slice(node.startIndex, node.endIndex), [...local, ...reps]);
    };
    // every occurrence of a param's text inside the chain becomes the param name
    const occurrences: { node: SyntaxNode; text: string }[] = [];
    walk(chain.node, n => {
      const p = chain.params.find(q => q.node.text === unparen(n).text && (n.type === unparen(n).type) && n.type !== 'integer' && n.type !== 'float');
      if (p && n.id !== chain.node.id) {
        occurrences.push({ node: n, text: p.name });
        return false;
      }
      return true;
    });
    const body = sub(chain.node, occurrences);
    const args = chain.params.map(p => sub(p.node, []));
    definitions.push(`@${cp}.fuse()\ndef ${fname}(${chain.params.map(p => p.name).join(', ')}):\n    return ${body}\n`);
    edits.push({ start: chain.node.startIndex, end: chain.node.endIndex, text: `${fname}(${args.join(', ')})` });
  }
  return { edits, definitions };
}
