/**
 * Pixel snapshots of states that depend neither on timing nor on the engine's current rewrite
 * text: the result card drawn from a fixed A/B result (the MIME renderer), light and dark.
 * (The diff changes whenever a rule improves, so it is saved to screenshots/, not asserted.)
 * Update with `npx playwright test tests/snapshots.spec.ts --update-snapshots`.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { openDemo } from './helpers';

const AB_MIME = 'application/vnd.gpuoptimize.ab+json';

const FIXED_RESULT = {
  version: 1,
  baseline: { status: 'ok', first_run_s: 0.21, median_s: 0.198, iqr_s: 0.004, min_s: 0.19, runs: 15, times_s: [0.198], device_s: null, transfer_s: null, peak_device_bytes: null, error: null },
  candidate: { status: 'ok', first_run_s: 0.35, median_s: 0.0121, iqr_s: 0.0003, min_s: 0.0118, runs: 240, times_s: [0.0121], device_s: 0.00041, transfer_s: 0.0093, peak_device_bytes: 240000000, error: null },
  speedup: { end_to_end: 16.4, device: 483, ci95: [15.9, 16.8] },
  match: { status: 'equal', outputs: [{ name: 'y', status: 'equal', method: 'allclose', max_abs_err: 2.4e-7, max_rel_err: 1.1e-7, detail: null }] },
  device: { index: 0, name: 'NVIDIA H200', memory_bytes: 150754820096, compute_capability: '9.0' },
  versions: { cupy: '13.6.0', numpy: '2.4.6' },
  verdict: 'gpu_faster',
  reason: 'Host↔device copies take 77% of the GPU time: keep x on the device across cells.',
  warnings: [],
  stale: false
};

/** Puts the fixed result into the output of the demo's first code cell. */
async function showFixedResult(page: IJupyterLabPageFixture) {
  await page.evaluate(
    ([mime, result]) => {
      const model = (window as any).jupyterapp.shell.currentWidget.content.model;
      model.cells.get(1).outputs.add({ output_type: 'display_data', data: { [mime]: result }, metadata: {} });
    },
    [AB_MIME, FIXED_RESULT] as const
  );
  const output = page.locator('.jp-Notebook .jp-Cell').nth(1).locator('.jp-gpuoptimize-result');
  await expect(output).toBeVisible();
  return output;
}

test('result card (light and dark)', async ({ page, tmpPath }) => {
  await openDemo(page, tmpPath);
  const output = await showFixedResult(page);
  await expect(output).toHaveAttribute('data-verdict', 'gpu_faster');
  await expect(output.locator('.jp-gpuoptimize-result-verdict')).toHaveText('GPU 16.4× faster');
  await expect(output.locator('svg[role="img"]')).toHaveAttribute('aria-label', /GPU, end to end: 12.1 ms/);
  await expect(output).toHaveScreenshot('result-card-light.png');
  await page.theme.setDarkTheme();
  await expect(output).toHaveScreenshot('result-card-dark.png');
  await page.theme.setLightTheme();
});

test('a malformed result says so instead of drawing', async ({ page, tmpPath }) => {
  await openDemo(page, tmpPath);
  await page.evaluate(mime => {
    const model = (window as any).jupyterapp.shell.currentWidget.content.model;
    model.cells.get(1).outputs.add({ output_type: 'display_data', data: { [mime]: { version: 1, verdict: 'fast' } }, metadata: {} });
  }, AB_MIME);
  await expect(page.locator('.jp-gpuoptimize-result-error')).toContainText('could not be shown');
});
