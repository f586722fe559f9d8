/**
 * Runs every rule's fixtures (test/fixtures/rules/<ID>/<case>/): flag cases must produce the
 * expected candidate, refuse cases a refusal with the stated reason, others nothing at all.
 */
import { writeFileSync } from 'fs';
import { join } from 'path';
import { analyzeNotebook } from '../../src/analysis/engine';
import { NOT_A_SPEEDUP } from '../../src/analysis/costmodel';
import { RULES } from '../../src/analysis/rules/registry';
import { parser, ruleFixtures } from './helpers';

beforeAll(async () => {
  await parser();
});

const DUMP = process.env.DUMP_FIXTURES === '1';
/** Like ruff's snapshot review: UPDATE_FIXTURES=1 rewrites expected.py of flag-* cases (review the diff!). */
const UPDATE = process.env.UPDATE_FIXTURES === '1';

for (const rule of RULES) {
  const fixtures = ruleFixtures(rule.id);
  describe(`${rule.id} ${rule.title}`, () => {
    it('has fixtures, flagged and not', () => {
      expect(fixtures.some(f => f.expected !== undefined)).toBe(true);
      expect(fixtures.some(f => f.expected === undefined)).toBe(true);
    });

    for (const fx of fixtures) {
      it(fx.name, () => {
        expect(fx.target).toBeGreaterThanOrEqual(0);
        const result = analyzeNotebook(fx.cells, { runtime: fx.runtime });
        const mine = result.suggestions.filter(s => s.rule === rule.id && s.cellIndex === fx.target);
        const refused = result.refusals.filter(r => r.rule === rule.id && r.cellIndex === fx.target);
        if (DUMP) {
          // eslint-disable-next-line no-console
          console.log(`== ${rule.id}/${fx.name}\n${mine.map(s => `${s.candidate}\n-- ${s.predicted_speedup}x ${s.prediction.reason}\n${s.notes.join('\n')}`).join('\n')}${refused.map(r => `REFUSED: ${r.reason}`).join('\n')}\n${result.diagnostics.map(d => d.message).join('\n')}`);
        }
        if (UPDATE && fx.name.startsWith('flag-') && mine.length === 1) {
          writeFileSync(join(fx.dir, 'expected.py'), mine[0].candidate + '\n');
          fx.expected = mine[0].candidate;
        }
        if (fx.expected !== undefined || fx.name.startsWith('flag-')) {
          expect(refused).toEqual([]);
          expect(mine).toHaveLength(1);
          expect(mine[0].candidate).toBe(fx.expected);
          if (mine[0].prediction.speedup < NOT_A_SPEEDUP) {
            // kept because it pays with the data on the device; never presented as a speedup
            expect(mine[0].prediction.reason).toMatch(/not a speedup as a single cell/);
            expect(mine[0].explanation).toMatch(/As a single cell this is not a speedup/);
            expect(mine[0].prediction.residentSpeedup).toBeGreaterThan(NOT_A_SPEEDUP);
          } else {
            expect(mine[0].predicted_speedup).toBeGreaterThan(1);
          }
          expect(mine[0].library).toBe(rule.library);
        } else if (fx.refusal !== undefined) {
          expect(mine).toEqual([]);
          expect(refused.map(r => r.reason).join('\n')).toContain(fx.refusal);
        } else {
          expect(mine).toEqual([]);
          expect(refused).toEqual([]);
        }
      });
    }
  });
}
