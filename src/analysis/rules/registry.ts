/**
 * All rules, in the order the engine asks them. Within a family the most specific rule comes
 * first: the first rule that claims a cell speaks for it (one suggestion per family per cell).
 * Adding a rule = a file, its fixtures, and a line here.
 */
import { fuseElementwise } from './arrays/fuse-elementwise';
import { numpyToCupy } from './arrays/numpy-to-cupy';
import { randomOnDevice } from './arrays/random-on-device';
import { scipyToCupyx } from './arrays/scipy-to-cupyx';
import type { Rule } from './types';

export const RULES: readonly Rule[] = [scipyToCupyx, fuseElementwise, randomOnDevice, numpyToCupy];

export function ruleById(id: string): Rule | undefined {
  return RULES.find(r => r.id === id);
}
