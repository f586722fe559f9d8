/**
 * The kernel's device in the predictions: the `DeviceProfile` the analysis prices cells with,
 * built from what the kernel's doctor reports, and the note a card shows when the figures are
 * the H200 test machine's. Pure functions: unit tested in test/unit/ui-device.test.ts.
 */
import { deviceProfileFromReport, keepMeasuredFigures } from '../analysis/costmodel';
import type { DeviceProfile, H200Figure, Prediction } from '../analysis/types';
import type { Environment } from '../kernel/protocol';

/** Two profiles with the same figures (the analysis need not run again). */
export function sameDeviceProfile(a: DeviceProfile | null, b: DeviceProfile | null): boolean {
  return a === b || (a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b));
}

/**
 * The profile to analyse with after the kernel's report changed; `current` itself when nothing
 * changes, so callers can compare by identity.
 * - No report (kernel disconnected or restarting): keep what the kernel last said.
 * - A report without a GPU: null (the H200 defaults; the panel says there is no GPU).
 * - A report for the GPU already measured (same name and memory) keeps, figure by figure, what
 *   was measured and the new report leaves out: every hello has no calibration, and "Check again"
 *   right after a kernel restart measures only the host (the device's figures need CuPy imported
 *   in the kernel). A kernel restart does not change the GPU.
 */
export function nextDeviceProfile(env: Environment | null, current: DeviceProfile | null): DeviceProfile | null {
  if (!env) {
    return current;
  }
  const profile = deviceProfileFromReport(env);
  if (profile === null) {
    return null;
  }
  const merged = keepMeasuredFigures(profile, current);
  return sameDeviceProfile(merged, current) ? current : merged;
}

/** A short note beside a predicted figure, and its tooltip. */
export interface DeviceNote {
  text: string;
  title: string;
}

/** The H200 figures a note names, in words. */
const H200_FIGURE_WORDS: Record<H200Figure, string> = {
  deviceBandwidth: 'device bandwidth',
  copyRates: 'host–device copy rates',
  launchOverhead: 'launch cost',
  libraryFlops: 'library FLOP rates (matmul, FFT, sort, filters)'
};

/** "a", "a and b", "a, b and c". */
function listInWords(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * What a card says of the device its prediction was made for: "predicted for an H200" when the
 * figures are the test machine's; "H200 FLOP rates" when the kernel's device was measured but the
 * prediction used library arithmetic (the doctor does not measure it); "H200 rates" when it used
 * other H200 figures (the title names exactly which); nothing when every figure it used was the
 * kernel's device's, or when there is no figure (sizes unknown). `kernelWithoutGpu`: the kernel
 * reported no GPU (there is none to check).
 */
export function predictionDeviceNote(p: Prediction, kernelWithoutGpu = false): DeviceNote | null {
  if (p.cpuSeconds <= 0 && p.gpuSeconds <= 0) {
    return null;
  }
  if (!p.device) {
    return {
      text: 'predicted for an H200',
      title:
        'Predicted with rates measured on the NVIDIA H200 test machine and its host (bench/RESULTS.md). ' +
        (kernelWithoutGpu
          ? 'The kernel reports no GPU: the figures say what an H200 would do.'
          : 'Check the kernel’s GPU (panel header) to predict for the kernel’s own device.')
    };
  }
  const figures = p.device.h200Figures ?? [];
  if (figures.length === 0) {
    return null;
  }
  const onlyFlops = figures.length === 1 && figures[0] === 'libraryFlops';
  const parts = [
    `Predicted for the kernel’s ${p.device.name} with the ${listInWords(figures.map(f => H200_FIGURE_WORDS[f]))} ` +
      'measured on the NVIDIA H200 test machine.'
  ];
  if (figures.some(f => f !== 'libraryFlops')) {
    parts.push('“Check again” in the panel header measures the device’s bandwidth, copy rates and launch cost when CuPy is imported in the kernel.');
  }
  if (figures.includes('libraryFlops')) {
    parts.push(
      'The doctor does not measure library arithmetic: on a GPU whose float64 runs at a small fraction of its float32 rate, ' +
        'a float64 matmul or FFT can run many times slower than predicted.'
    );
  }
  return { text: onlyFlops ? 'H200 FLOP rates' : 'H200 rates', title: parts.join(' ') };
}
