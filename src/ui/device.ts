/**
 * The kernel's device in the predictions: the `DeviceProfile` the analysis prices cells with,
 * built from what the kernel's doctor reports, and the note a card shows when the figures are
 * the H200 test machine's. Pure functions: unit tested in test/unit/ui-device.test.ts.
 */
import { deviceProfileFromReport } from '../analysis/costmodel';
import type { DeviceProfile, Prediction } from '../analysis/types';
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
 * - A report without calibration (every hello) for the GPU already measured: keep the measured
 *   profile; the doctor's calibration ran on that GPU and a kernel restart does not change it.
 */
export function nextDeviceProfile(env: Environment | null, current: DeviceProfile | null): DeviceProfile | null {
  if (!env) {
    return current;
  }
  const profile = deviceProfileFromReport(env);
  if (profile === null) {
    return null;
  }
  if (
    current !== null &&
    !env.calibration &&
    (current.reported?.length ?? 0) > (profile.reported?.length ?? 0) &&
    current.name === profile.name &&
    current.memoryBytes === profile.memoryBytes
  ) {
    return current;
  }
  return sameDeviceProfile(profile, current) ? current : profile;
}

/** A short note beside a predicted figure, and its tooltip. */
export interface DeviceNote {
  text: string;
  title: string;
}

/**
 * What a card says of the device its prediction was made for: "predicted for an H200" when the
 * figures are the test machine's, "H200 rates" when only the kernel's GPU memory is known;
 * nothing when the kernel measured its device, or when there is no figure (sizes unknown).
 */
export function predictionDeviceNote(p: Prediction): DeviceNote | null {
  if (p.cpuSeconds <= 0 && p.gpuSeconds <= 0) {
    return null;
  }
  if (!p.device) {
    return {
      text: 'predicted for an H200',
      title:
        'Predicted with rates measured on the NVIDIA H200 test machine and its host (bench/RESULTS.md). ' +
        'Check the kernel’s GPU (panel header) to predict for the kernel’s own device.'
    };
  }
  if (!p.device.measured) {
    return {
      text: 'H200 rates',
      title:
        `Predicted for the memory of the kernel’s ${p.device.name}, with the copy rates and launch cost ` +
        'measured on the NVIDIA H200 test machine. “Check again” in the panel header measures them ' +
        '(the device’s only when CuPy is imported in the kernel).'
    };
  }
  return null;
}
