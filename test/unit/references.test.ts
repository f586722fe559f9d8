/** Every reference a rule or an explanation cites must exist as an anchor in references/. */
import { readFileSync, existsSync } from 'fs';
import { join } from 'path';
import { CUPY_GENERATOR_METHODS, CUPY_NUMPY_FUNCTIONS } from '../../src/analysis/apis/cupy';
import { CUPYX_SCIPY } from '../../src/analysis/apis/cupyx';
import { analyzeNotebook } from '../../src/analysis/engine';
import { RULES } from '../../src/analysis/rules/registry';
import { parser, ruleFixtures } from './helpers';

const ROOT = join(__dirname, '..', '..');

function anchorExists(ref: string): boolean {
  const [file, anchor] = ref.split('#');
  const path = join(ROOT, file);
  if (!existsSync(path)) {
    return false;
  }
  return !anchor || readFileSync(path, 'utf8').includes(`<a id="${anchor}"></a>`);
}

beforeAll(async () => {
  await parser();
});

it('each rule cites an existing reference section', () => {
  for (const rule of RULES) {
    expect([rule.id, anchorExists(rule.reference)]).toEqual([rule.id, true]);
  }
});

it('every link in every fixture suggestion\'s explanation resolves', () => {
  for (const rule of RULES) {
    for (const fx of ruleFixtures(rule.id)) {
      for (const s of analyzeNotebook(fx.cells, { runtime: fx.runtime }).suggestions) {
        const links = [...s.explanation.matchAll(/\]\((references\/[^)]+)\)/g)].map(m => m[1]);
        expect(links.length).toBeGreaterThan(0);
        for (const link of [...links, s.reference]) {
          expect([link, anchorExists(link)]).toEqual([link, true]);
        }
      }
    }
  }
});

it('the GPU name check (names.json) lists what the allow-lists hold today', () => {
  // test/fixtures/cupy-api/check_names.py verifies names.json on the GPU host; keep it in sync
  const names = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/cupy-api/names.json'), 'utf8')) as Record<string, unknown>;
  expect(new Set(names.numpy as string[])).toEqual(new Set(CUPY_NUMPY_FUNCTIONS));
  expect(new Set(names.generator as string[])).toEqual(new Set(CUPY_GENERATOR_METHODS));
  expect(Object.keys(names.scipy as object).sort()).toEqual([...CUPYX_SCIPY.keys()].sort());
});
