/**
 * The kernel's device in the panel: the profile built from the doctor's report (kept across a
 * kernel restart's uncalibrated hello), the analysis engine and the whole-notebook rewriter
 * pricing cells with it, and the card's note when the figures are the H200's.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { DEFAULT_DEVICE_PROFILE, MEASURED_H200, predict, predictResident, type WorkEstimate } from '../../src/analysis/costmodel';
import type { CellInput } from '../../src/analysis/types';
import type { Environment } from '../../src/kernel/protocol';
import { nextDeviceProfile, predictionDeviceNote, sameDeviceProfile } from '../../src/ui/device';
import { createEngineFactory, createPlanRewriter } from '../../src/ui/engine';
import { parser, percentCells } from './helpers';

beforeAll(async () => {
  // The UI engine's initParser resolves to this parser (one per process).
  await parser();
});

const env = (over: Partial<Environment> = {}): Environment => ({
  gpus: [{ index: 0, name: 'NVIDIA L4', memory_bytes: 24 * 2 ** 30, compute_capability: '8.9' }],
  driver_version: null,
  runtime_version: null,
  libraries: [],
  problems: [],
  calibration: null,
  python: '3.12',
  ...over
});
const CALIBRATED = { host_bandwidth: 9e9, device_bandwidth: 2.5e11, host_to_device: 2.4e9, launch_overhead_s: 2e-5 };

const work: WorkEstimate = {
  elements: 50_000_000,
  itemBytes: 4,
  passes: 4,
  transcendentalOps: 1,
  flops: 0,
  launches: 4,
  hostToDeviceBytes: 4e8,
  deviceToHostBytes: 2e8
};

describe('predictionDeviceNote', () => {
  test('says "predicted for an H200" when the figures are the test machine’s', () => {
    const note = predictionDeviceNote(predict(work));
    expect(note?.text).toBe('predicted for an H200');
    expect(note?.title).toMatch(/measured on the NVIDIA H200 test machine/);
  });

  test('a kernel without a GPU is not told to check its GPU', () => {
    expect(predictionDeviceNote(predict(work))?.title).toMatch(/Check the kernel’s GPU/);
    const none = predictionDeviceNote(predict(work), true);
    expect(none?.text).toBe('predicted for an H200');
    expect(none?.title).toMatch(/reports no GPU/);
    expect(none?.title).not.toMatch(/Check/);
  });

  test('says "H200 rates" when only the kernel GPU’s memory is known, naming the H200 figures used', () => {
    const device = nextDeviceProfile(env(), null)!;
    const note = predictionDeviceNote(predict(work, device));
    expect(note?.text).toBe('H200 rates');
    expect(note?.title).toMatch(/NVIDIA L4 with the device bandwidth, host–device copy rates and launch cost measured on the NVIDIA H200/);
    // resident: no copies, so only the bandwidth and launch cost are named
    expect(predictionDeviceNote(predictResident(work, device))?.title).toMatch(/with the device bandwidth and launch cost measured/);
  });

  test('a partial calibration names exactly the figures that are the H200’s', () => {
    const device = nextDeviceProfile(env({ calibration: { host_bandwidth: 9e9, device_bandwidth: null, host_to_device: null, launch_overhead_s: 2e-5 } }), null)!;
    const note = predictionDeviceNote(predict(work, device));
    expect(note?.text).toBe('H200 rates');
    expect(note?.title).toMatch(/with the device bandwidth and host–device copy rates measured on the NVIDIA H200/);
    expect(note?.title).not.toMatch(/launch cost measured on/);
  });

  test('says "H200 FLOP rates" when a measured device’s prediction used library arithmetic', () => {
    const device = nextDeviceProfile(env({ calibration: CALIBRATED }), null)!;
    const matmul: WorkEstimate = { ...work, itemBytes: 8, elements: 4096 * 4096, passes: 1, flops: 2 * 4096 ** 3, launches: 1 };
    const note = predictionDeviceNote(predict(matmul, device));
    expect(note?.text).toBe('H200 FLOP rates');
    expect(note?.title).toMatch(/library FLOP rates .* measured on the NVIDIA H200/);
    expect(note?.title).toMatch(/float64/);
    expect(note?.title).not.toMatch(/Check again/);
  });

  test('says nothing when the kernel measured its device, or when nothing was predicted', () => {
    const device = nextDeviceProfile(env({ calibration: CALIBRATED }), null)!;
    expect(predictionDeviceNote(predict(work, device))).toBeNull();
    expect(predictionDeviceNote({ speedup: 1, cpuSeconds: 0, gpuSeconds: 0, transferSeconds: 0, reason: 'array sizes unknown' })).toBeNull();
  });
});

describe('nextDeviceProfile', () => {
  test('no report keeps what the kernel last said; a report without GPU means the defaults', () => {
    const current = nextDeviceProfile(env(), null);
    expect(nextDeviceProfile(null, current)).toBe(current);
    expect(nextDeviceProfile(null, null)).toBeNull();
    expect(nextDeviceProfile(env({ gpus: [] }), current)).toBeNull();
  });

  test('the same report gives back the same object (no re-analysis)', () => {
    const first = nextDeviceProfile(env({ calibration: CALIBRATED }), null);
    expect(nextDeviceProfile(env({ calibration: { ...CALIBRATED } }), first)).toBe(first);
    expect(sameDeviceProfile(first, nextDeviceProfile(env({ calibration: CALIBRATED }), null))).toBe(true);
    expect(sameDeviceProfile(first, DEFAULT_DEVICE_PROFILE)).toBe(false);
  });

  test('a restart’s uncalibrated hello keeps the measured profile of the same GPU, not of another', () => {
    const measured = nextDeviceProfile(env({ calibration: CALIBRATED }), null);
    expect(nextDeviceProfile(env(), measured)).toBe(measured);
    const other = nextDeviceProfile(env({ gpus: [{ index: 0, name: 'NVIDIA A100', memory_bytes: 80 * 2 ** 30, compute_capability: '8.0' }] }), measured);
    expect(other?.name).toBe('NVIDIA A100');
    expect(other?.reported).toEqual(['memoryBytes']);
    // a new calibration replaces the old one
    const again = nextDeviceProfile(env({ calibration: { ...CALIBRATED, host_to_device: 4.8e9 } }), measured);
    expect(again).not.toBe(measured);
    expect(again!.hostToDevice).toBeCloseTo(measured!.hostToDevice * 2, -3);
  });

  test('“Check again” after a restart (CuPy not imported: device figures null) keeps the L4’s measured figures', () => {
    const l4 = nextDeviceProfile(env({ calibration: { host_bandwidth: 9e9, device_bandwidth: 2.8e11, host_to_device: 2.4e9, launch_overhead_s: 2e-5 } }), null)!;
    expect(l4.deviceBandwidth).toBeCloseTo((2.8e11 / MEASURED_H200.doctorCalibration.deviceBandwidth) * MEASURED_H200.deviceBandwidth, -6);
    const hostOnly = { host_bandwidth: 1.1e10, device_bandwidth: null, host_to_device: null, launch_overhead_s: null };
    const after = nextDeviceProfile(env({ calibration: hostOnly }), l4)!;
    expect(after.deviceBandwidth).toBe(l4.deviceBandwidth);
    expect(after.deviceBandwidth).not.toBe(DEFAULT_DEVICE_PROFILE.deviceBandwidth);
    expect(after.hostToDevice).toBe(l4.hostToDevice);
    expect(after.launchOverhead).toBe(l4.launchOverhead);
    // what the new report did measure, scaled like the H200 doctor's
    expect(after.hostBandwidth).toBeCloseTo((1.1e10 / MEASURED_H200.doctorCalibration.hostBandwidth) * MEASURED_H200.hostBandwidth, -3);
    expect(predict(work, after).device).toEqual({ name: 'NVIDIA L4', measured: true });
    // the same host-only report for another GPU does not borrow the L4's figures
    const a100 = nextDeviceProfile(
      env({ gpus: [{ index: 0, name: 'NVIDIA A100', memory_bytes: 80 * 2 ** 30, compute_capability: '8.0' }], calibration: hostOnly }),
      l4
    )!;
    expect(a100.deviceBandwidth).toBe(DEFAULT_DEVICE_PROFILE.deviceBandwidth);
    expect(predict(work, a100).device?.measured).toBe(false);
  });
});

describe('the panel’s engine and rewriter take the kernel’s device', () => {
  const { cells } = percentCells(readFileSync(join(__dirname, '..', '..', 'bench', 'workloads', 'elementwise_chain.py'), 'utf8'));
  const inputs: CellInput[] = cells;
  const target = inputs.length - 1;
  const assets = { runtimeUrl: 'unused', grammarUrl: 'unused' };

  test('analyze prices the cells for the device given, and for the H200 again without one', async () => {
    const engine = await createEngineFactory(assets)();
    const find = (r: ReturnType<typeof engine.analyze>) => r.suggestions.find(s => s.cellIndex === target)!;
    const h200 = find(engine.analyze(inputs, {}));
    expect(h200.prediction.device).toBeUndefined();
    const l4 = nextDeviceProfile(env({ calibration: CALIBRATED }), null)!;
    const onL4 = find(engine.analyze(inputs, {}, l4));
    expect(onL4.prediction.device).toEqual({ name: 'NVIDIA L4', measured: true });
    expect(onL4.prediction.speedup).toBeLessThan(h200.prediction.speedup);
    // its copies alone (the host's figures set back to the H200's) more than halve the speedup
    const copiesOnly = { ...l4, hostBandwidth: DEFAULT_DEVICE_PROFILE.hostBandwidth, launchOverhead: DEFAULT_DEVICE_PROFILE.launchOverhead };
    expect(find(engine.analyze(inputs, {}, copiesOnly)).prediction.speedup).toBeLessThan(h200.prediction.speedup / 2);
    expect(find(engine.analyze(inputs, {}, l4))).toEqual(onL4);
    expect(find(engine.analyze(inputs, {}, null))).toEqual(h200);
  });

  test('the whole-notebook rewrite plans with the device', async () => {
    const rewrite = createPlanRewriter(assets);
    const slow = nextDeviceProfile(env({ calibration: { ...CALIBRATED, device_bandwidth: 1e9 } }), null);
    expect((await rewrite(inputs)).changes.map(c => c.cellIndex)).toContain(target);
    // on the slow device the cell stays on the host (its change, if any, says why)
    const onSlow = (await rewrite(inputs, slow)).changes.find(c => c.cellIndex === target);
    expect(onSlow?.title ?? 'stays on the host').toMatch(/^stays on the host/);
  });

  test("the whole-notebook rewrite sizes arrays read from files with the kernel's report", async () => {
    const rewrite = createPlanRewriter(assets);
    const cells: CellInput[] = [
      { id: 'a', index: 0, kind: 'code', source: 'import numpy as np\nx = np.load("x.npy")' },
      { id: 'b', index: 1, kind: 'code', source: 'y = np.sqrt(x) * 2.0 + np.exp(-x) * np.sin(x)\nprint(float(y.sum()))' }
    ];
    // without sizes the cell stays on the host, saying so; with the kernel's, it is judged and moves
    const unsized = await rewrite(cells, null);
    expect(unsized.changes.find(c => c.cellIndex === 1)?.title).toMatch(/^stays on the host: the sizes of its arrays are not known here/);
    const sized = await rewrite(cells, null, { x: { type: 'numpy.ndarray', shape: [50_000_000], dtype: 'float64', bytes: 400_000_000, device: 'host' } });
    expect(sized.changes.find(c => c.cellIndex === 1)?.title).toMatch(/^runs on the GPU/);
    expect(sized.figures?.summary).not.toMatch(/not counted/);
  });
});
