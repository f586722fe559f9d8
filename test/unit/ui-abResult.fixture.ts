/** A well-formed A/B result (GPU 10x faster, outputs equal), for the protocol and UI tests. */
import type { ABResult } from '../../src/kernel/protocol';

export function side(overrides: Record<string, unknown> = {}) {
  return {
    status: 'ok',
    first_run_s: 0.5,
    median_s: 0.1,
    iqr_s: 0.01,
    min_s: 0.09,
    runs: 20,
    times_s: [0.1, 0.11],
    device_s: null,
    transfer_s: null,
    peak_device_bytes: null,
    error: null,
    ...overrides
  };
}

export function abResult(overrides: Record<string, unknown> = {}): ABResult {
  return {
    version: 1,
    baseline: side(),
    candidate: side({ median_s: 0.01, device_s: 0.004 }),
    speedup: { end_to_end: 10, device: 25, ci95: [9, 11] },
    match: {
      status: 'equal',
      outputs: [{ name: 'y', status: 'equal', method: 'allclose', max_abs_err: 1e-7, max_rel_err: 1e-6, detail: null }]
    },
    device: { index: 0, name: 'NVIDIA H200', memory_bytes: 141e9, compute_capability: '9.0' },
    versions: { cupy: '13.6.0' },
    verdict: 'gpu_faster',
    reason: null,
    warnings: [],
    stale: false,
    ...overrides
  } as ABResult;
}

