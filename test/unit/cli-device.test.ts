/**
 * `gpuoptimize analyze|fix --device FILE`: predictions for the GPU a doctor report describes
 * (`%gpuoptimize doctor --calibrate --json`), and the text report's line saying which device
 * the predicted speedups are for. The command runs from a bundle built into a temporary folder
 * (the shipped bundle in python_shim/ is cli.test.ts's to build).
 */
import { buildSync } from 'esbuild';
import { spawnSync } from 'child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parseAnalyzeArgs, readDeviceProfile, UsageError } from '../../src/cli/main';
import { deviceNote } from '../../src/cli/report';
import { assertValidReport } from './report-schema';
import { DEFAULT_DEVICE_PROFILE, MEASURED_H200 } from '../../src/analysis/costmodel';

const ROOT = join(__dirname, '..', '..');
const NOTEBOOK = join(ROOT, 'test', 'fixtures', 'cli', 'numpy_pipeline.ipynb');
const DIR = mkdtempSync(join(tmpdir(), 'gpuoptimize-cli-device-'));
const BUNDLE = join(DIR, 'gpuoptimize.cjs');

const L4 = {
  gpus: [{ index: 0, name: 'NVIDIA L4', memory_bytes: 24 * 2 ** 30, compute_capability: '8.9' }],
  driver_version: null,
  runtime_version: null,
  libraries: [],
  problems: [],
  calibration: { host_bandwidth: 9e9, device_bandwidth: 2.5e11, host_to_device: 2.4e9, launch_overhead_s: 2e-5 },
  python: '3.12'
};

function file(name: string, content: unknown): string {
  const path = join(DIR, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function run(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BUNDLE, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  // as scripts/build-cli.js bundles it, into DIR
  buildSync({
    entryPoints: [join(ROOT, 'src', 'cli', 'bin.ts')],
    bundle: true,
    platform: 'node',
    target: 'node18',
    format: 'cjs',
    outfile: BUNDLE,
    absWorkingDir: ROOT,
    alias: { 'web-tree-sitter': './node_modules/web-tree-sitter/tree-sitter.cjs' },
    logLevel: 'error'
  });
  copyFileSync(require.resolve('web-tree-sitter/tree-sitter.wasm'), join(DIR, 'tree-sitter.wasm'));
  copyFileSync(require.resolve('tree-sitter-python/tree-sitter-python.wasm'), join(DIR, 'tree-sitter-python.wasm'));
});

afterAll(() => {
  rmSync(DIR, { recursive: true, force: true });
});

describe('reading a --device file', () => {
  test('an Environment, or a hello/doctor reply holding one', () => {
    const p = readDeviceProfile(file('env.json', L4))!;
    expect(p.name).toBe('NVIDIA L4');
    // scaled by the H200 doctor's launch figure, like every measured figure
    expect(p.launchOverhead).toBeCloseTo(DEFAULT_DEVICE_PROFILE.launchOverhead * (2e-5 / MEASURED_H200.doctorCalibration.launchOverhead), 12);
    expect(readDeviceProfile(file('reply.json', { v: 1, id: 'x', type: 'doctor_reply', environment: L4 }))).toEqual(p);
  });

  test('no GPU: null (the defaults); not a report: a usage error that says why', () => {
    expect(readDeviceProfile(file('nogpu.json', { ...L4, gpus: [] }))).toBeNull();
    expect(() => readDeviceProfile(file('bad.json', '{"gpus": '))).toThrow(UsageError);
    expect(() => readDeviceProfile(file('other.json', { files: [] }))).toThrow(/not the JSON of %gpuoptimize doctor --json/);
    expect(() => readDeviceProfile(file('badcal.json', { ...L4, calibration: { host_to_device: 'fast' } }))).toThrow(/host_to_device/);
    expect(() => readDeviceProfile(join(DIR, 'missing.json'))).toThrow(/cannot read a JSON device report/);
  });

  test('--device takes a value', () => {
    expect(parseAnalyzeArgs(['nb.ipynb', '--device', 'env.json']).device).toBe('env.json');
    expect(parseAnalyzeArgs(['nb.ipynb', '--device=env.json']).device).toBe('env.json');
    expect(parseAnalyzeArgs(['nb.ipynb']).device).toBeNull();
    expect(() => parseAnalyzeArgs(['nb.ipynb', '--device'])).toThrow(/--device needs a value/);
  });

  test('the text report says which device the figures are for', () => {
    expect(deviceNote(null)).toMatch(/^Predicted for an NVIDIA H200 .*--device FILE/);
    expect(deviceNote(readDeviceProfile(file('env2.json', L4)))).toBe(
      "Predicted for NVIDIA L4, with its measured device bandwidth, copy rates and launch cost; its library FLOP rates (matmul, FFT, sort, filters) are the NVIDIA H200's."
    );
    // a partial calibration: exactly which figures are the H200's
    expect(deviceNote(readDeviceProfile(file('env4.json', { ...L4, calibration: { ...L4.calibration, device_bandwidth: null } })))).toBe(
      "Predicted for NVIDIA L4, with its measured copy rates and launch cost; its device bandwidth and library FLOP rates (matmul, FFT, sort, filters) are the NVIDIA H200's."
    );
    expect(deviceNote(readDeviceProfile(file('env3.json', { ...L4, calibration: null })))).toMatch(/NVIDIA L4's memory with the NVIDIA H200's rates/);
  });
});

describe('the command with --device', () => {
  test('analyze predicts for the reported GPU: same findings, lower figures on a slower device', () => {
    const json = (args: string[]) => JSON.parse(run(['analyze', NOTEBOOK, '--format', 'json', ...args]).stdout);
    const h200 = json([]);
    const l4 = json(['--device', file('l4.json', L4)]);
    const speedups = (r: typeof h200): number[] =>
      r.files[0].cells.flatMap((c: { suggestions: { predicted_speedup: number }[] }) => c.suggestions.map(s => s.predicted_speedup));
    expect(speedups(l4).length).toBe(speedups(h200).length);
    expect(speedups(l4).length).toBeGreaterThan(0);
    speedups(l4).forEach((x, i) => expect(x).toBeLessThan(speedups(h200)[i]));

    const text = run(['analyze', NOTEBOOK, '--device', file('l4.json', L4)]);
    expect(text.code).toBe(1);
    expect(text.stdout.trimEnd().split('\n').pop()).toBe(
      "Predicted for NVIDIA L4, with its measured device bandwidth, copy rates and launch cost; its library FLOP rates (matmul, FFT, sort, filters) are the NVIDIA H200's."
    );
    expect(run(['analyze', NOTEBOOK]).stdout).toMatch(/Predicted for an NVIDIA H200/);
  });

  test('the JSON report and the SARIF run say which device the figures are for', () => {
    const l4 = file('l4-json.json', L4);
    const json = JSON.parse(run(['analyze', NOTEBOOK, '--format', 'json', '--device', l4]).stdout);
    assertValidReport(json);
    expect(json.device).toEqual({ name: 'NVIDIA L4', from_report: true, h200_figures: ['library_flops'] });
    expect(JSON.parse(run(['analyze', NOTEBOOK, '--format', 'json']).stdout).device).toEqual({
      name: 'NVIDIA H200 (measured 2026-11-30)',
      from_report: false,
      h200_figures: ['device_bandwidth', 'copy_rates', 'launch_overhead', 'library_flops']
    });
    const sarif = JSON.parse(run(['analyze', NOTEBOOK, '--format', 'sarif', '--device', l4]).stdout);
    expect(sarif.runs[0].properties.device).toEqual(json.device);
  });

  test('a report without a GPU is said on stderr; a bad one is a usage error (exit 2)', () => {
    const nogpu = run(['analyze', NOTEBOOK, '--device', file('nogpu2.json', { ...L4, gpus: [] })]);
    expect(nogpu.code).toBe(1);
    expect(nogpu.stderr).toMatch(/reports no GPU: predicting with the NVIDIA H200's figures/);
    const bad = run(['analyze', NOTEBOOK, '--device', file('bad2.json', { files: [] })]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--device .*bad2\.json: not the JSON/);
  });

  test('fix plans the rewrite for the device', () => {
    const out = join(DIR, 'out.ipynb');
    const slow = file('slow.json', { ...L4, calibration: { ...L4.calibration, device_bandwidth: 1e9 } });
    expect(run(['fix', NOTEBOOK, '-o', out, '--force', '--even-if-slower']).stdout).not.toMatch(/: 0 change\(s\)/);
    const r = run(['fix', NOTEBOOK, '-o', out, '--force', '--even-if-slower', '--device', slow]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/runs on the GPU/);
    expect(r.stdout).toMatch(/\n {2}kept on the host: cells? [\d, ]+: predicted under the minimum speedup\n/);
    expect(JSON.parse(readFileSync(out, 'utf8')).cells.map((c: { source: string }) => c.source).join('')).not.toMatch(/cupy/);
  });
});
