/** The frontend's checks of what the kernel sends (src/kernel/protocol.ts). */
import {
  compareVersions,
  ProtocolError,
  validateABResult,
  validateResponse
} from '../../src/kernel/protocol';
import { abResult, side } from './ui-abResult.fixture';

const environment = { gpus: [], libraries: [], problems: [], calibration: null, python: '3.11', driver_version: null, runtime_version: null };

describe('validateResponse', () => {
  test('accepts each well-formed reply type', () => {
    const ok = [
      { v: 1, id: 'a', type: 'hello_reply', protocol: 1, shim_version: '0.1.0', environment },
      { v: 1, id: 'a', type: 'doctor_reply', environment },
      { v: 1, id: 'a', type: 'inspect_reply', values: { x: null } },
      { v: 1, id: 'a', type: 'ok' },
      { v: 1, id: 'a', type: 'progress', phase: 'baseline', runs_done: 3, elapsed_s: 0.5, budget_s: 3 },
      { v: 1, id: 'a', type: 'ab_result', result: abResult() },
      { v: 1, id: 'a', type: 'error', code: 'bad_field', message: 'budget_s: expected a finite number' }
    ];
    for (const message of ok) {
      expect(validateResponse(message).type).toBe(message.type);
    }
  });

  test.each([
    ['not an object', 'hello'],
    ['another protocol version', { v: 2, id: 'a', type: 'ok' }],
    ['no id', { v: 1, type: 'ok' }],
    ['an unknown type', { v: 1, id: 'a', type: 'surprise' }],
    ['a hello without environment', { v: 1, id: 'a', type: 'hello_reply', protocol: 1, shim_version: '0.1.0' }],
    ['progress with a NaN', { v: 1, id: 'a', type: 'progress', runs_done: NaN, elapsed_s: 0, budget_s: 3 }],
    ['an error without message', { v: 1, id: 'a', type: 'error', code: 'x' }],
    ['a result with a bad verdict', { v: 1, id: 'a', type: 'ab_result', result: abResult({ verdict: 'great' }) }]
  ])('rejects %s', (_, message) => {
    expect(() => validateResponse(message)).toThrow(ProtocolError);
  });
});

describe('validateABResult', () => {
  test('accepts the no-GPU verdict with an unmeasured candidate', () => {
    const result = abResult({
      verdict: 'no_gpu',
      reason: 'cupy is not installed',
      candidate: side({ status: 'skipped', median_s: null, first_run_s: null, runs: 0, times_s: [] }),
      speedup: { end_to_end: null, device: null, ci95: null },
      match: { status: 'unverified', outputs: [] },
      device: null
    });
    expect(validateABResult(result).verdict).toBe('no_gpu');
  });

  test('names the malformed field', () => {
    expect(() => validateABResult(abResult({ baseline: side({ runs: 'many' }) }))).toThrow(/baseline/);
    expect(() => validateABResult(abResult({ speedup: { end_to_end: 1, device: null, ci95: [1] } }))).toThrow(/ci95/);
    expect(() => validateABResult(abResult({ stale: 'no' }))).toThrow(/stale/);
    expect(() => validateABResult({ ...abResult(), version: 2 })).toThrow(/version/);
  });
});

test('compareVersions orders dotted versions numerically', () => {
  expect(compareVersions('0.1.0', '0.1.0')).toBe(0);
  expect(compareVersions('0.10.0', '0.9.9')).toBe(1);
  expect(compareVersions('0.1', '0.1.1')).toBe(-1);
  expect(compareVersions('1.0.0+dev', '1.0.0')).toBe(0);
});
