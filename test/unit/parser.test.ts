import { parser } from './helpers';
import { getParser, isParserReady } from '../../src/analysis/parser';

describe('parser', () => {
  it('parses Python in Node with the real tree-sitter wasm', async () => {
    const p = await parser();
    const tree = p.parse('import numpy as np\nx = np.zeros((4, 4))\n');
    expect(tree.rootNode.type).toBe('module');
    expect(tree.rootNode.hasError).toBe(false);
    expect(tree.rootNode.namedChildren.map(c => c?.type)).toEqual(['import_statement', 'expression_statement']);
  });

  it('initialises once and reuses the parser', async () => {
    const a = await parser();
    const b = await parser();
    expect(a).toBe(b);
    expect(isParserReady()).toBe(true);
    expect(getParser()).toBe(a);
  });

  it('reports offsets in JavaScript string units, even after non-ASCII text', async () => {
    const p = await parser();
    const src = "label = 'température 😀'\ny = np.sin(x)\n";
    const tree = p.parse(src);
    const second = tree.rootNode.namedChild(1)!;
    expect(src.slice(second.startIndex, second.endIndex)).toBe('y = np.sin(x)');
  });

  it('recovers from syntax errors instead of throwing', async () => {
    const p = await parser();
    const tree = p.parse('def f(:\n  return 1\n');
    expect(tree.rootNode.hasError).toBe(true);
  });
});
