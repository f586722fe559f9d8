import {
  DEFAULT_DEVICE_PROFILE,
  formatSpeedupBelow,
  KERNEL_BANDWIDTH_EFFICIENCY,
  NOT_A_SPEEDUP,
  predict,
  predictResident,
  STENCIL_BANDWIDTH_EFFICIENCY,
  WorkEstimate
} from '../../src/analysis/costmodel';

const chain = (elements: number, transfers: boolean): WorkEstimate => ({
  elements,
  itemBytes: 4,
  passes: 6,
  transcendentalOps: 2,
  flops: 0,
  launches: 6,
  hostToDeviceBytes: transfers ? elements * 8 : 0,
  deviceToHostBytes: transfers ? elements * 4 : 0
});

describe('cost model', () => {
  it('predicts a large speedup for device-resident memory-bound work', () => {
    const p = predict(chain(100_000_000, false));
    expect(p.speedup).toBeGreaterThan(100);
    expect(p.transferSeconds).toBe(0);
    expect(p.reason).toMatch(/memory-bound/);
  });

  it('says when host<->device copies dominate, and predicts far less', () => {
    const resident = predict(chain(20_000_000, false));
    const shipped = predict(chain(20_000_000, true));
    expect(shipped.speedup).toBeLessThan(resident.speedup / 10);
    expect(shipped.reason).toMatch(/copies .* dominate/);
    // 160 MB in at the measured 7.0 GB/s and 80 MB back at 3.0 GB/s (pageable): ~50 ms
    expect(shipped.transferSeconds).toBeGreaterThan(0.045);
  });

  it('charges work the rewrite leaves on the host (draws from a host Generator) to the GPU side too, with its copy, resident or not', () => {
    const all = chain(20_000_000, false);
    const kept = { ...all, hostKept: { passes: 1, transcendentalOps: 1, bytes: 20_000_000 * 4 } };
    const p = predict(kept);
    const q = predict(all);
    expect(p.cpuSeconds).toBeCloseTo(q.cpuSeconds, 12);
    // the host part (one of the six passes, one of the two transcendentals per element) is paid
    // on the GPU side at the host's rates: no longer hundreds of times faster
    expect(p.speedup).toBeLessThan(q.speedup / 5);
    expect(p.reason).toMatch(/NumPy Generator made in another cell stay on the host/);
    expect(p.residentSpeedup).toBeLessThan(q.residentSpeedup! / 5);
  });

  it('gives small arrays a low prediction with the reason', () => {
    const p = predict(chain(1000, false));
    expect(p.speedup).toBeLessThan(1);
    expect(p.reason).toMatch(/too small to pay for 6 kernel launch/);
  });

  it('treats a large matmul as arithmetic-bound', () => {
    const n = 8000;
    const p = predict({ elements: n * n, itemBytes: 8, passes: 0, transcendentalOps: 0, flops: 2 * n ** 3, launches: 1, hostToDeviceBytes: 0, deviceToHostBytes: 0 });
    expect(p.reason).toMatch(/arithmetic-bound/);
    expect(p.speedup).toBeGreaterThan(10);
  });

  it('charges the copies to the single cell, not to the whole-notebook (resident) prediction', () => {
    const work = chain(20_000_000, true);
    const cell = predict(work);
    const resident = predictResident(work);
    expect(resident.transferSeconds).toBe(0);
    expect(resident.speedup).toBeCloseTo(cell.residentSpeedup!, 6);
    expect(resident.speedup).toBeGreaterThan(cell.speedup * 10);
  });

  it('says a single cell below 1.2x is not a speedup, and why', () => {
    // a light pass over data that must cross PCIe both ways
    const p = predict({ elements: 50_000_000, itemBytes: 8, passes: 1, transcendentalOps: 0, flops: 0, launches: 1, hostToDeviceBytes: 4e8, deviceToHostBytes: 4e8 });
    expect(p.speedup).toBeLessThan(1.2);
    expect(p.reason).toMatch(/not a speedup as a single cell .*copying its inputs to the device and its results back takes .*whole-notebook rewrite/);
  });

  it('reports the first run, compiling the kernels the cell defines, beside the steady figure', () => {
    const p = predict({ ...chain(20_000_000, false), kernelsDefined: 1 });
    expect(p.firstRunSeconds! - p.gpuSeconds).toBeCloseTo(0.17, 6);
  });

  it('flags working sets that do not fit in device memory', () => {
    const p = predict({ ...chain(60_000_000_000, false), itemBytes: 4 }, DEFAULT_DEVICE_PROFILE);
    expect(p.reason).toMatch(/does not fit/);
  });
});

describe('what a single cell that does not pay copies', () => {
  // a light pass over 400 MB: the copies, whichever way they go, outweigh it
  const light = (hostToDeviceBytes: number, deviceToHostBytes: number): WorkEstimate => ({
    elements: 50_000_000,
    itemBytes: 8,
    passes: 1,
    transcendentalOps: 0,
    flops: 0,
    launches: 1,
    hostToDeviceBytes,
    deviceToHostBytes
  });

  it('inputs in and results back', () => {
    const p = predict(light(4e8, 4e8));
    expect(p.speedup).toBeLessThan(NOT_A_SPEEDUP);
    expect(p.reason).toMatch(/not a speedup as a single cell \(.*\): copying its inputs to the device and its results back takes /);
  });

  it('inputs only: nothing said of results', () => {
    // two 400 MB inputs in, nothing back
    const p = predict(light(8e8, 0));
    expect(p.speedup).toBeLessThan(NOT_A_SPEEDUP);
    expect(p.reason).toMatch(/not a speedup as a single cell \(.*\): copying its inputs to the device takes /);
    expect(p.reason).not.toMatch(/results/);
  });

  it('results only (made on the device): nothing said of inputs', () => {
    const p = predict(light(0, 4e8));
    expect(p.speedup).toBeLessThan(NOT_A_SPEEDUP);
    expect(p.reason).toMatch(/not a speedup as a single cell \(.*\): copying its results back to the host takes /);
    expect(p.reason).not.toMatch(/inputs/);
  });
});

describe('stencil kernels', () => {
  // stencil_slices at 8192^2 float32: one RawKernel reads the grid once and writes it once
  const n = 8192 * 8192;
  const grid = n * 4;
  const h200 = DEFAULT_DEVICE_PROFILE;
  const work = (passes: number, stencilPasses?: number): WorkEstimate => ({
    elements: n,
    itemBytes: 4,
    passes,
    transcendentalOps: 0,
    flops: 0,
    launches: 1,
    hostToDeviceBytes: 0,
    deviceToHostBytes: 0,
    ...(stencilPasses === undefined ? {} : { stencilPasses })
  });

  it('streams at the one-pass stencil kernel\'s measured share of the copy bandwidth (0.72, the H200 bench cell)', () => {
    expect(STENCIL_BANDWIDTH_EFFICIENCY).toBe(0.72);
    const p = predictResident(work(2 / 3, 2 / 3));
    expect(p.gpuSeconds).toBeCloseTo(h200.launchOverhead + (2 * grid) / (h200.deviceBandwidth * 0.72), 12);
    // the bench's cell took 183 µs (RESULTS.md, run 5)
    expect(p.gpuSeconds).toBeGreaterThan(150e-6);
    expect(p.gpuSeconds).toBeLessThan(200e-6);
  });

  it('other kernels stay at the fused chain\'s 60%; a cell with both prices each at its own', () => {
    expect(KERNEL_BANDWIDTH_EFFICIENCY).toBe(0.6);
    const plain = predictResident(work(2 / 3));
    expect(plain.gpuSeconds).toBeCloseTo(h200.launchOverhead + (2 * grid) / (h200.deviceBandwidth * 0.6), 12);
    const mixed = predictResident(work(2, 2 / 3));
    expect(mixed.gpuSeconds).toBeCloseTo(
      h200.launchOverhead + (4 * grid) / (h200.deviceBandwidth * 0.6) + (2 * grid) / (h200.deviceBandwidth * 0.72),
      12
    );
    // the CPU's side is not the kernel's business
    expect(mixed.cpuSeconds).toBe(predictResident(work(2)).cpuSeconds);
  });

  it('stencil passes count only within the passes', () => {
    expect(predictResident(work(2 / 3, 5)).gpuSeconds).toBeCloseTo(predictResident(work(2 / 3, 2 / 3)).gpuSeconds, 12);
    expect(predictResident(work(1, -1)).gpuSeconds).toBe(predictResident(work(1)).gpuSeconds);
  });
});

describe('the reason for launch-bound work', () => {
  it('calls megabytes of light work launch-bound, not "too small"', () => {
    const p = predict({ elements: 10_000_000, itemBytes: 8, passes: 0.05, transcendentalOps: 0, flops: 0, launches: 200, hostToDeviceBytes: 0, deviceToHostBytes: 0 });
    expect(p.reason).toMatch(/^80\.0 MB: 200 kernel launches cost more than the work they do on the device/);
  });

  it('names the copies, not the launches, where copying megabytes costs more than launching', () => {
    // np.cov of a 200000x32 array copied in for one cell (second notebook review): 51 MB copied
    // in ~7 ms, five launches ~65 µs
    const p = predict({ elements: 6_400_000, itemBytes: 8, passes: 1, transcendentalOps: 0, flops: 65_536, launches: 5, hostToDeviceBytes: 51_200_000, deviceToHostBytes: 0 });
    expect(p.reason).toMatch(/^51\.2 MB: host<->device copies \(7\.3\d ms\) dominate device compute/);
  });

  it('still calls kilobytes too small to pay for their launches, copies or not', () => {
    const p = predict({ elements: 12_000, itemBytes: 8, passes: 0.5, transcendentalOps: 0, flops: 0, launches: 2, hostToDeviceBytes: 96_000, deviceToHostBytes: 0 });
    expect(p.transferSeconds).toBeGreaterThan(2 * DEFAULT_DEVICE_PROFILE.launchOverhead);
    expect(p.reason).toMatch(/^96\.0 kB: too small to pay for 2 kernel launches/);
  });
});

describe('figures of a refusal', () => {
  it('never shows a speedup below the cut-off rounded up to it', () => {
    expect(formatSpeedupBelow(1.497, 1.5)).toBe('1.497x');
    expect(formatSpeedupBelow(1.4999, 1.5)).toBe('1.499x');
    expect(formatSpeedupBelow(1.33, 1.5)).toBe('1.33x');
    expect(formatSpeedupBelow(0.54, 1.5)).toBe('0.54x');
    expect(formatSpeedupBelow(9.996, 10)).toBe('9.996x');
  });

  it('says copies with no device compute are all the device work, not "dominate device compute (0 s)"', () => {
    const p = predict({ elements: 6_000_000, itemBytes: 8, passes: 0, transcendentalOps: 0, flops: 0, launches: 0, hostToDeviceBytes: 48_000_000, deviceToHostBytes: 0 });
    expect(p.reason).toMatch(/^48\.0 MB: host<->device copies \(\S+ ms\) are all its device work; keep the data on the device across cells$/);
  });
});
