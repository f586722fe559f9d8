import { DEFAULT_DEVICE_PROFILE, predict, predictResident, WorkEstimate } from '../../src/analysis/costmodel';

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
