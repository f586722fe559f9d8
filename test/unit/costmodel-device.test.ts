/**
 * The cost model prices work with the DeviceProfile it is given: every per-class rate (FFT, sort,
 * filters, sparse products, random draws, kernel compile) is a profile field whose default is the
 * H200's measurement, and `deviceProfileFromReport` builds the kernel's profile from its doctor's
 * report. With no device, predictions are the H200 defaults' and carry no `device`.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import {
  DEFAULT_DEVICE_PROFILE,
  deviceProfileFromReport,
  h200Figures,
  keepMeasuredFigures,
  measuredOnDevice,
  MEASURED_H200,
  predict,
  predictResident,
  type DeviceReport,
  type WorkEstimate
} from '../../src/analysis/costmodel';
import { analyzeNotebook } from '../../src/analysis/engine';
import { rewriteNotebook } from '../../src/analysis/plan';
import type { DeviceProfile } from '../../src/analysis/types';
import { parser, percentCells } from './helpers';

beforeAll(async () => {
  await parser();
});

/** Work of one class only: nothing streamed, launched or copied. */
const only = (extra: Partial<WorkEstimate>): WorkEstimate => ({
  elements: 1,
  itemBytes: 4,
  passes: 0,
  transcendentalOps: 0,
  flops: 0,
  launches: 0,
  hostToDeviceBytes: 0,
  deviceToHostBytes: 0,
  ...extra
});

const streamed = (elements: number, copies: boolean): WorkEstimate => ({
  elements,
  itemBytes: 4,
  passes: 4,
  transcendentalOps: 1,
  flops: 0,
  launches: 4,
  hostToDeviceBytes: copies ? elements * 8 : 0,
  deviceToHostBytes: copies ? elements * 4 : 0
});

const H200_REPORT: DeviceReport = {
  gpus: [{ name: 'NVIDIA H200', memory_bytes: 150_109_880_320 }],
  calibration: { ...doctorOf(MEASURED_H200.doctorCalibration) }
};

function doctorOf(c: { deviceBandwidth: number; hostToDevice: number; launchOverhead: number; hostBandwidth: number }) {
  return {
    device_bandwidth: c.deviceBandwidth,
    host_to_device: c.hostToDevice,
    launch_overhead_s: c.launchOverhead,
    host_bandwidth: c.hostBandwidth
  };
}

/** A GPU with half the H200's device bandwidth, a third of its copy rate, slower launches. */
const SMALL_REPORT: DeviceReport = {
  gpus: [{ name: 'NVIDIA L4', memory_bytes: 24 * 2 ** 30 }],
  calibration: {
    device_bandwidth: MEASURED_H200.doctorCalibration.deviceBandwidth / 2,
    host_to_device: MEASURED_H200.doctorCalibration.hostToDevice / 3,
    launch_overhead_s: 20e-6,
    host_bandwidth: 9e9
  }
};

const relative = (a: number, b: number): number => Math.abs(a - b) / Math.abs(b);

describe('per-class rates live in the DeviceProfile', () => {
  const RATES = [
    'hostFftFlops',
    'hostSortOpsPerSecond',
    'hostFilterFlops',
    'hostSparseSecondsPerNonZero',
    'deviceSparseSecondsPerNonZero',
    'deviceSparseCanonicaliseSecondsPerNonZero',
    'deviceSecondsPerUniformDraw',
    'deviceSecondsPerNormalDraw',
    'kernelCompileSeconds'
  ] as const;

  it.each(RATES)('the default profile holds the H200 measurement of %s', rate => {
    expect(DEFAULT_DEVICE_PROFILE[rate]).toBe(MEASURED_H200[rate]);
  });

  it('host FFT, sort and filter time follow the profile rates', () => {
    const fast: DeviceProfile = { ...DEFAULT_DEVICE_PROFILE, hostFftFlops: 1e10, hostSortOpsPerSecond: 4e10, hostFilterFlops: 1e9 };
    const fft = only({ flops: 1e10, fftFlops: 1e10 });
    expect(predict(fft).cpuSeconds).toBeCloseTo(1e10 / MEASURED_H200.hostFftFlops, 9);
    expect(predict(fft, fast).cpuSeconds).toBeCloseTo(1, 9);
    expect(predict(only({ flops: 4e10, sortOps: 4e10 }), fast).cpuSeconds).toBeCloseTo(1, 9);
    expect(predict(only({ flops: 2e9, filterFlops: 2e9 }), fast).cpuSeconds).toBeCloseTo(2, 9);
  });

  it('sparse products, cuRAND draws and kernel compile follow the profile rates', () => {
    const device: DeviceProfile = {
      ...DEFAULT_DEVICE_PROFILE,
      hostSparseSecondsPerNonZero: 1e-8,
      deviceSparseSecondsPerNonZero: 1e-10,
      deviceSparseCanonicaliseSecondsPerNonZero: 1e-8,
      deviceSecondsPerUniformDraw: 1e-10,
      deviceSecondsPerNormalDraw: 4e-10,
      kernelCompileSeconds: 2
    };
    const sparse = predictResident(only({ sparseNonZeros: 1e8 }), device);
    expect(sparse.cpuSeconds).toBeCloseTo(1, 9);
    expect(sparse.gpuSeconds).toBeCloseTo(0.01, 9);
    const converted = predict(only({ sparseNonZerosFromHost: 1e8 }), device);
    expect(converted.gpuSeconds).toBeCloseTo(1, 9);
    const draws = predict(only({ uniformDraws: 1e9, normalDraws: 1e9 }), device);
    expect(draws.gpuSeconds).toBeCloseTo(0.5, 9);
    const compiled = predict({ ...streamed(1e6, false), kernelsDefined: 2 }, device);
    expect(compiled.firstRunSeconds! - compiled.gpuSeconds).toBeCloseTo(4, 9);
    // the same work with the defaults is priced at the H200's rates
    expect(predict(only({ uniformDraws: 1e9 })).gpuSeconds).toBeCloseTo(1e9 * MEASURED_H200.deviceSecondsPerUniformDraw, 12);
  });

  it('a prediction names the device it was made for, except with the H200 defaults', () => {
    const work = streamed(50_000_000, true);
    expect(predict(work)).not.toHaveProperty('device');
    expect(predictResident(work)).not.toHaveProperty('device');
    expect(predict(work, DEFAULT_DEVICE_PROFILE)).not.toHaveProperty('device');
    const custom = { ...DEFAULT_DEVICE_PROFILE, name: 'lab GPU' };
    // every figure it has is the H200's: the prediction names those it used
    expect(predict(work, custom).device).toEqual({ name: 'lab GPU', measured: false, h200Figures: ['deviceBandwidth', 'copyRates', 'launchOverhead'] });
    expect(predictResident(work, custom).device?.h200Figures).toEqual(['deviceBandwidth', 'launchOverhead']);
    expect(predictResident(work, deviceProfileFromReport(SMALL_REPORT)!).device).toEqual({ name: 'NVIDIA L4', measured: true });
  });

  it('a prediction that used library arithmetic on a reported device says its FLOP rates are the H200’s', () => {
    const l4 = deviceProfileFromReport(SMALL_REPORT)!;
    // float64 matmul: the doctor measures no arithmetic, and the L4's float64 is far below the H200's
    const matmul = only({ elements: 4096 * 4096, itemBytes: 8, passes: 1, flops: 2 * 4096 ** 3, launches: 1 });
    expect(predict(matmul, l4).device).toEqual({ name: 'NVIDIA L4', measured: true, h200Figures: ['libraryFlops'] });
    expect(predict(matmul, l4).gpuSeconds).toBeGreaterThan(matmul.flops / DEFAULT_DEVICE_PROFILE.deviceFlops!);
    // a partial calibration: the figures it lacks are named exactly
    const partial = deviceProfileFromReport({ ...SMALL_REPORT, calibration: { launch_overhead_s: 2e-5 } })!;
    expect(measuredOnDevice(partial)).toBe(true);
    expect(h200Figures(partial)).toEqual(['deviceBandwidth', 'copyRates', 'libraryFlops']);
    expect(predict(streamed(1e6, true), partial).device?.h200Figures).toEqual(['deviceBandwidth', 'copyRates']);
  });
});

describe('deviceProfileFromReport', () => {
  it('gives nothing without a GPU: the defaults stand', () => {
    expect(deviceProfileFromReport(null)).toBeNull();
    expect(deviceProfileFromReport({ gpus: [], calibration: SMALL_REPORT.calibration })).toBeNull();
  });

  it('without calibration: the GPU name and memory, every rate the H200 figure', () => {
    const p = deviceProfileFromReport({ gpus: [{ name: 'NVIDIA A10', memory_bytes: 16 * 2 ** 30 }], calibration: null })!;
    expect(p.name).toBe('NVIDIA A10');
    expect(p.memoryBytes).toBe(16 * 2 ** 30);
    expect(p.reported).toEqual(['memoryBytes']);
    expect(measuredOnDevice(p)).toBe(false);
    const { name: _n, memoryBytes: _m, reported: _r, ...rates } = p;
    const { name: _dn, memoryBytes: _dm, ...defaults } = DEFAULT_DEVICE_PROFILE;
    expect(rates).toEqual(defaults);
    // 21.5 GB fits on the H200, not in 16 GiB (17.2 GB)
    const big = streamed(5 * 2 ** 30, false);
    expect(predict(big).reason).not.toMatch(/does not fit/);
    expect(predict(big, p).reason).toMatch(/^21.5 GB does not fit in 17.2 GB of device memory/);
    expect(predict(big, p).device).toEqual({ name: 'NVIDIA A10', measured: false, h200Figures: ['deviceBandwidth', 'launchOverhead'] });
  });

  it("the H200's own doctor figures give back the H200's bandwidths and copy rates (the scaling's reference)", () => {
    const p = deviceProfileFromReport(H200_REPORT)!;
    expect(measuredOnDevice(p)).toBe(true);
    for (const key of ['deviceBandwidth', 'hostToDevice', 'deviceToHost', 'deviceSparseSecondsPerNonZero'] as const) {
      expect(relative(p[key]!, DEFAULT_DEVICE_PROFILE[key]!)).toBeLessThan(1e-12);
    }
    // launch cost and host bandwidth too: the H200's own report gives the model's figures back
    // (its 512 MiB host copy reads 22.3 GB/s; the fitted host figure stays 13.2 GB/s)
    for (const key of ['launchOverhead', 'hostBandwidth'] as const) {
      expect(relative(p[key], DEFAULT_DEVICE_PROFILE[key])).toBeLessThan(1e-12);
    }
    for (const work of [streamed(100_000_000, true), streamed(100_000_000, false), only({ sparseNonZeros: 2e7, elements: 2e6 })]) {
      expect(relative(predict(work, p).speedup, predict(work).speedup)).toBeLessThan(1e-9);
    }
  });

  it('scales bandwidths, copy rates, launch cost and host bandwidth by the doctor measurements', () => {
    const p = deviceProfileFromReport(SMALL_REPORT)!;
    const d = DEFAULT_DEVICE_PROFILE;
    expect(p.reported).toEqual(['memoryBytes', 'deviceBandwidth', 'hostToDevice', 'hostBandwidth', 'launchOverhead']);
    expect(p.deviceBandwidth).toBeCloseTo(d.deviceBandwidth / 2, -3);
    expect(p.deviceSparseSecondsPerNonZero!).toBeCloseTo(d.deviceSparseSecondsPerNonZero! * 2, 20);
    expect(p.hostToDevice).toBeCloseTo(d.hostToDevice / 3, -3);
    expect(p.deviceToHost!).toBeCloseTo(d.deviceToHost! / 3, -3);
    expect(p.launchOverhead).toBeCloseTo(d.launchOverhead * (20e-6 / MEASURED_H200.doctorCalibration.launchOverhead), 12);
    expect(p.hostBandwidth).toBeCloseTo(d.hostBandwidth * (9e9 / MEASURED_H200.doctorCalibration.hostBandwidth), -3);
    // nothing reported scales these: the H200's
    for (const key of ['deviceFlops', 'hostFlops', 'hostFftFlops', 'hostSortOpsPerSecond', 'deviceSecondsPerUniformDraw', 'kernelCompileSeconds', 'deviceSparseCanonicaliseSecondsPerNonZero'] as const) {
      expect(p[key]).toBe(d[key]);
    }
    // resident memory-bound work: the device's half bandwidth nearly halves the speedup
    const resident = streamed(200_000_000, false);
    const ratio = predict(resident, { ...p, launchOverhead: d.launchOverhead, hostBandwidth: d.hostBandwidth }).speedup / predict(resident).speedup;
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(0.55);
    // copies at a third of the rate take three times as long
    const copied = streamed(50_000_000, true);
    expect(predict(copied, p).transferSeconds / predict(copied).transferSeconds).toBeGreaterThan(2.9);
  });

  it('ignores figures the doctor could not measure (null, zero, negative, not finite)', () => {
    const p = deviceProfileFromReport({
      gpus: [{ name: 'GPU', memory_bytes: 0 }],
      calibration: { device_bandwidth: null, host_to_device: -1, launch_overhead_s: Number.NaN, host_bandwidth: 0 }
    })!;
    expect(p.reported).toEqual([]);
    const { name: _n, reported: _r, ...rest } = p;
    const { name: _dn, ...defaults } = DEFAULT_DEVICE_PROFILE;
    expect(rest).toEqual(defaults);
  });
});

describe('the analyser with the kernel’s device', () => {
  const { cells } = percentCells(readFileSync(join(__dirname, '..', '..', 'bench', 'workloads', 'elementwise_chain.py'), 'utf8'));
  const target = cells.length - 1;
  const suggestion = (device?: DeviceProfile) =>
    analyzeNotebook(cells, { minSpeedup: 0, ...(device ? { device } : {}) }).suggestions.find(s => s.cellIndex === target)!;

  it('prices the cell for the reported device and says which; with none, the H200 defaults unchanged', () => {
    const plain = suggestion();
    expect(plain.prediction).not.toHaveProperty('device');
    expect(suggestion(DEFAULT_DEVICE_PROFILE)).toEqual(plain);
    const small = suggestion(deviceProfileFromReport(SMALL_REPORT)!);
    expect(small.prediction.device).toEqual({ name: 'NVIDIA L4', measured: true });
    // the same rewrite, slower copies: a lower predicted speedup
    expect(small.candidate).toBe(plain.candidate);
    expect(small.prediction.transferSeconds).toBeGreaterThan(plain.prediction.transferSeconds * 2.9);
    expect(small.prediction.speedup).toBeLessThan(plain.prediction.speedup);
    // the copies alone (the L4 host's figures set back to the H200's) more than halve it
    const copiesOnly = { ...deviceProfileFromReport(SMALL_REPORT)!, hostBandwidth: DEFAULT_DEVICE_PROFILE.hostBandwidth, launchOverhead: DEFAULT_DEVICE_PROFILE.launchOverhead };
    expect(suggestion(copiesOnly).prediction.speedup).toBeLessThan(plain.prediction.speedup / 2);
  });

  it('the whole-notebook rewrite takes the device too', () => {
    // a device whose device-to-device copy (device_bandwidth) runs at 1 GB/s: the chain no longer
    // pays even with the data resident
    const slow = deviceProfileFromReport({ gpus: [{ name: 'slow', memory_bytes: 2 ** 34 }], calibration: { device_bandwidth: 1e9 } })!;
    expect(rewriteNotebook(cells).gpuCells).toContain(target);
    expect(rewriteNotebook(cells, { device: slow }).gpuCells).not.toContain(target);
  });
});

describe('keepMeasuredFigures', () => {
  const measured = deviceProfileFromReport(SMALL_REPORT)!;

  it('keeps what the same GPU measured and the new report leaves null, figure by figure', () => {
    const hostOnly = deviceProfileFromReport({ ...SMALL_REPORT, calibration: { host_bandwidth: 1.1e10, device_bandwidth: null, host_to_device: null, launch_overhead_s: null } })!;
    const merged = keepMeasuredFigures(hostOnly, measured);
    expect(merged.hostBandwidth).toBe(hostOnly.hostBandwidth);
    expect(merged.deviceBandwidth).toBe(measured.deviceBandwidth);
    expect(merged.deviceSparseSecondsPerNonZero).toBe(measured.deviceSparseSecondsPerNonZero);
    expect(merged.hostToDevice).toBe(measured.hostToDevice);
    expect(merged.deviceToHost).toBe(measured.deviceToHost);
    expect(merged.launchOverhead).toBe(measured.launchOverhead);
    expect(merged.reported).toEqual(measured.reported);
  });

  it('another GPU, or nothing measured before: the new profile as it is', () => {
    const other = deviceProfileFromReport({ gpus: [{ name: 'NVIDIA L4', memory_bytes: 2 ** 34 }] })!;
    expect(keepMeasuredFigures(other, measured)).toBe(other);
    expect(keepMeasuredFigures(measured, null)).toBe(measured);
  });
});
