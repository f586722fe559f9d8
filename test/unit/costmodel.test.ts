import { DEFAULT_DEVICE_PROFILE, predict, WorkEstimate } from '../../src/analysis/costmodel';

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
    // 240 MB at the measured ~8.6 GB/s pageable rate: tens of milliseconds
    expect(shipped.transferSeconds).toBeGreaterThan(0.02);
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

  it('flags working sets that do not fit in device memory', () => {
    const p = predict({ ...chain(60_000_000_000, false), itemBytes: 4 }, DEFAULT_DEVICE_PROFILE);
    expect(p.reason).toMatch(/does not fit/);
  });
});
