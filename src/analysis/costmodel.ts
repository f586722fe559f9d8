/**
 * Predicted CPU and GPU time of a cell's array work.
 *
 * A roofline-style estimate: each elementwise pass streams its bytes through memory; library
 * kernels (matmul, FFT, solvers) are bound by arithmetic; every kernel launch costs a fixed
 * overhead; host<->device copies run at the measured pageable rates. The defaults are the
 * figures measured on the H200 test machine (shared/GPU-MACHINE.md) and a typical host.
 * The prediction is a hypothesis for ranking and refusing; the A/B run is the evidence.
 */
import type { DeviceProfile, Prediction } from './types';
import { formatBytes } from './values';

/** Figures measured on the H200 test machine, 2026-11-30, and a typical 16-core host. */
export const DEFAULT_DEVICE_PROFILE: DeviceProfile = {
  name: 'NVIDIA H200 (measured 2026-11-30)',
  deviceBandwidth: 4.1e12,
  hostToDevice: 8.6e9,
  deviceToHost: 8.0e9,
  hostBandwidth: 15e9,
  // the bench's doctor, 2026-11-30: 17.4 µs per tiny CuPy kernel launched from Python
  launchOverhead: 17e-6,
  memoryBytes: 139 * 2 ** 30,
  deviceFlops: 4.0e13,
  hostFlops: 5.0e11,
  hostTranscendentalSeconds: 3e-9
};

/** The work a cell does, counted by the rules from its syntax and the notebook model. */
export interface WorkEstimate {
  /** Elements of the largest array involved. */
  elements: number;
  /** Bytes per element of that array. */
  itemBytes: number;
  /**
   * Memory passes over the data: an elementwise op reads its inputs and writes its output
   * (~3 array-sized streams); a reduction reads one.
   */
  passes: number;
  /** Element operations that are transcendental (exp, sin, sqrt, power...). */
  transcendentalOps: number;
  /** Arithmetic done by library kernels (2 n^3 for a matmul, 5 n log2 n for an FFT...). */
  flops: number;
  /** Kernel launches on the device (one per op, unfused). */
  launches: number;
  /** Bytes copied host -> device and device -> host. */
  hostToDeviceBytes: number;
  deviceToHostBytes: number;
  /**
   * Passes the CPU makes, when they differ from the device's: NumPy runs a chain op by op even
   * when the GPU rewrite fuses it into one kernel (default: `passes`).
   */
  hostPasses?: number;
  /**
   * Multiplier for the CPU's streaming cost when NumPy runs the op single-threaded or makes
   * temporaries; 1 by default.
   */
  hostPassFactor?: number;
}

/**
 * Share of the copy bandwidth an elementwise kernel reaches (measured: a fused chain ran at
 * ~2,400 GB/s against a ~4,100 GB/s device copy).
 */
export const KERNEL_BANDWIDTH_EFFICIENCY = 0.6;

/** Bytes streamed per elementwise pass, in units of the array size (2 reads + 1 write). */
export const STREAMS_PER_PASS = 3;

export function predict(work: WorkEstimate, device: DeviceProfile = DEFAULT_DEVICE_PROFILE): Prediction {
  const bytes = work.elements * work.itemBytes;
  const streamed = bytes * STREAMS_PER_PASS * work.passes;
  const hostFlops = device.hostFlops ?? DEFAULT_DEVICE_PROFILE.hostFlops ?? 5e11;
  const deviceFlops = device.deviceFlops ?? DEFAULT_DEVICE_PROFILE.deviceFlops ?? 4e13;
  const transcendental = device.hostTranscendentalSeconds ?? 3e-9;
  const d2h = device.deviceToHost ?? device.hostToDevice;

  // NumPy's SIMD transcendentals cost about half as much per float32 element as per float64
  const perElement = transcendental * Math.max(0.5, Math.min(2, work.itemBytes / 8));
  const hostStreamed = bytes * STREAMS_PER_PASS * (work.hostPasses ?? work.passes);
  const cpuSeconds =
    (hostStreamed / device.hostBandwidth) * (work.hostPassFactor ?? 1) +
    work.transcendentalOps * work.elements * perElement +
    work.flops / hostFlops;
  // each copy also pays a fixed latency (allocation, synchronisation) of about a launch
  const copies = (work.hostToDeviceBytes > 0 ? 1 : 0) + (work.deviceToHostBytes > 0 ? 1 : 0);
  const transferSeconds = work.hostToDeviceBytes / device.hostToDevice + work.deviceToHostBytes / d2h + copies * device.launchOverhead;
  const computeSeconds =
    work.launches * device.launchOverhead + streamed / (device.deviceBandwidth * KERNEL_BANDWIDTH_EFFICIENCY) + work.flops / deviceFlops;
  const gpuSeconds = computeSeconds + transferSeconds;
  const speedup = gpuSeconds > 0 ? cpuSeconds / gpuSeconds : 1;

  let reason: string;
  const size = formatBytes(bytes);
  if (!fitsOnDevice(bytes, device)) {
    reason = `${size} does not fit in ${formatBytes(device.memoryBytes)} of device memory with room for temporaries`;
  } else if (work.launches * device.launchOverhead > computeSeconds * 0.5 && speedup < 2) {
    reason = `${size}: too small to pay for ${plural(Math.round(work.launches), 'kernel launch', 'kernel launches')}`;
  } else if (transferSeconds > computeSeconds && transferSeconds > 0) {
    reason = `${size}: host<->device copies (${formatSeconds(transferSeconds)}) dominate device compute (${formatSeconds(computeSeconds)}); keep the data on the device across cells`;
  } else if (work.flops > 0 && work.flops / hostFlops > streamed / device.hostBandwidth) {
    reason = `${size}: arithmetic-bound library kernels, ${formatFlops(work.flops)}`;
  } else {
    reason = `${size}: memory-bound, ${plural(work.passes, 'pass', 'passes')} over the data`;
  }
  return { speedup, cpuSeconds, gpuSeconds, transferSeconds, reason };
}

/** Does the working set fit on the device (with room for temporaries)? */
export function fitsOnDevice(bytes: number, device: DeviceProfile = DEFAULT_DEVICE_PROFILE): boolean {
  return bytes <= device.memoryBytes * 0.8;
}

export function formatSeconds(s: number): string {
  if (s >= 1) {
    return `${s.toFixed(2)} s`;
  }
  if (s >= 1e-3) {
    return `${(s * 1e3).toFixed(1)} ms`;
  }
  return `${(s * 1e6).toFixed(0)} µs`;
}

function formatFlops(f: number): string {
  if (f >= 1e12) {
    return `${(f / 1e12).toFixed(1)} TFLOP`;
  }
  if (f >= 1e9) {
    return `${(f / 1e9).toFixed(1)} GFLOP`;
  }
  return `${(f / 1e6).toFixed(1)} MFLOP`;
}

/** A count for people: at most one decimal below 10, none above (4.333 -> "4.3", 12.6 -> "13"). */
export function formatCount(x: number): string {
  if (!Number.isFinite(x)) {
    return String(x);
  }
  const r = Math.abs(x) >= 10 ? Math.round(x) : Math.round(x * 10) / 10;
  return groupThousands(r);
}

/**
 * `x.toLocaleString('en-US', { maximumFractionDigits: 1 })`, by hand for what the rules format
 * (integers, and numbers already rounded to tenths below 10): that call costs microseconds, and
 * every array cell formats several counts. Anything else goes to `toLocaleString` itself.
 */
export function groupThousands(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e15) {
    if (Object.is(x, -0)) {
      return '-0';
    }
    let digits = String(Math.abs(x));
    let grouped = '';
    while (digits.length > 3) {
      grouped = `,${digits.slice(-3)}${grouped}`;
      digits = digits.slice(0, -3);
    }
    return `${x < 0 ? '-' : ''}${digits}${grouped}`;
  }
  if (Math.abs(x) < 1000 && Math.round(x * 10) / 10 === x) {
    const t = x.toFixed(1);
    return t.endsWith('.0') ? t.slice(0, -2) : t;
  }
  return x.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

/** "1 pass", "4.3 passes". */
export function plural(x: number, one: string, many: string): string {
  const text = formatCount(x);
  return `${text} ${text === '1' ? one : many}`;
}

/** A speedup for people: "0.42x", "3.1x", "978x". */
export function formatSpeedup(x: number): string {
  if (!Number.isFinite(x)) {
    return `${x}x`;
  }
  return x >= 100 ? `${groupThousands(Math.round(x))}x` : x >= 10 ? `${x.toFixed(1)}x` : `${x.toFixed(2)}x`;
}
