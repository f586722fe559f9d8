/**
 * Set-up loops (cupy-rewrite.ts setupLoops) stay NumPy on the host: what the rewrite says about
 * them. The candidates themselves are the rule fixtures' flag-setup-loop-* expected.py.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { parser, ruleFixtures } from './helpers';

beforeAll(async () => {
  await parser();
});

const notesOf = (name: string): string[] => {
  const fx = ruleFixtures('GPU101').find(f => f.name === name)!;
  const result = analyzeNotebook(fx.cells, { runtime: fx.runtime });
  return result.suggestions.find(s => s.rule === 'GPU101' && s.cellIndex === fx.target)!.notes;
};

describe('set-up loops kept on the host', () => {
  it('an if in the kept host loop tests a host value: no device control-flow note', () => {
    const notes = notesOf('flag-setup-loop-condition-on-host');
    expect(notes.some(n => n.includes('is set-up work'))).toBe(true);
    expect(notes.some(n => n.includes('tests a device value'))).toBe(false);
  });

  it('a loop binding scalar locals is still set-up work', () => {
    expect(notesOf('flag-setup-loop-scalar-locals').some(n => n.startsWith('The loop filling `fb` (64 iterations'))).toBe(true);
  });
});
