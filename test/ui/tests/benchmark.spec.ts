import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import * as path from 'path';
import { card, EXPR_CELL_ID, openDemo, openPanel, runCell, SCREENSHOTS, setSetting } from './helpers';

/** Runs the demo's import and data cells so the kernel holds `x`. */
async function loadData(page: IJupyterLabPageFixture): Promise<void> {
  await runCell(page, 1);
  await runCell(page, 3);
}

/** Starts a long-running cell in the kernel without waiting for it (a user's busy cell). */
function startBusyCell(page: IJupyterLabPageFixture, seconds: number): Promise<void> {
  return page.evaluate(s => {
    const kernel = (window as any).jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    kernel.requestExecute({ code: `import time; time.sleep(${s}); busy_cell_finished = True` });
  }, seconds);
}

/** Restarts the notebook's kernel the way the Kernel menu does (no dialog). */
async function restartKernel(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(() => {
    void (window as any).jupyterapp.shell.currentWidget.sessionContext.restartKernel();
  });
}

async function waitForDeviceReady(page: IJupyterLabPageFixture): Promise<void> {
  await expect(page.locator('.jp-gpuoptimize-device[data-status="ready"]')).toBeVisible({
    timeout: 60000
  });
}

test.describe('Benchmark', () => {
  // Galata's kernel-route mock answers interrupt (204, no body) and restart (200 turned into
  // 201) wrongly; sessions are still tracked, so kernels are still shut down after each test.
  test.use({ kernels: null });

  test.beforeEach(async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
    await openPanel(page);
    await waitForDeviceReady(page);
  });

  test('shows progress, then a result card with a verdict', async ({ page }) => {
    await loadData(page);
    const exprCard = card(page, EXPR_CELL_ID);
    await exprCard.getByRole('button', { name: /^Benchmark/ }).click();
    await expect(exprCard.getByRole('button', { name: /^Cancel/ })).toBeVisible();
    await expect(exprCard.locator('.jp-gpuoptimize-progress-text')).not.toBeEmpty();
    const result = exprCard.locator('.jp-gpuoptimize-result');
    await expect(result).toBeVisible({ timeout: 90000 });
    // This machine has no GPU/CuPy: the shim says so, and the CPU side was still timed.
    const gpu = await page.evaluate(() => document.querySelector('.jp-gpuoptimize-device-line')?.getAttribute('data-gpu'));
    if (gpu === 'false') {
      await expect(result).toHaveAttribute('data-verdict', 'no_gpu');
      await expect(result.locator('.jp-gpuoptimize-result-verdict')).toHaveText('No GPU in this kernel');
    } else {
      await expect(result).toHaveAttribute('data-verdict', /gpu_faster|gpu_slower|not_equal/);
    }
    await expect(result.locator('.jp-gpuoptimize-result-facts')).toContainText('CPU original');
    await expect(exprCard.locator('.jp-gpuoptimize-benchmark')).toHaveText('Benchmark again');
    await exprCard.screenshot({ path: path.join(SCREENSHOTS, 'card-benchmark-result.png') });
  });

  test('waits behind a busy kernel, says so, and Cancel leaves the user’s cell running', async ({ page }) => {
    await loadData(page);
    await startBusyCell(page, 8);
    const exprCard = card(page, EXPR_CELL_ID);
    await exprCard.getByRole('button', { name: /^Benchmark/ }).click();
    await expect(exprCard.locator('.jp-gpuoptimize-progress-text')).toContainText('kernel is busy');
    await exprCard.screenshot({ path: path.join(SCREENSHOTS, 'card-benchmark-queued.png') });
    await exprCard.getByRole('button', { name: /^Cancel/ }).click();
    await expect(exprCard.locator('.jp-gpuoptimize-progress-text')).toContainText('Cancelled before it started');
    // The busy cell was not interrupted: it finishes and binds its flag.
    await expect
      .poll(
        () =>
          page.evaluate(async () => {
            const kernel = (window as any).jupyterapp.shell.currentWidget.sessionContext.session.kernel;
            const reply = await kernel.requestExecute({
              code: '',
              silent: true,
              user_expressions: { done: "globals().get('busy_cell_finished', False)" }
            }).done;
            return reply.content.user_expressions.done.data['text/plain'];
          }),
        { timeout: 30000 }
      )
      .toBe('True');
  });

  test('a kernel restart while queued fails the run with a clear message, then reconnects', async ({ page }) => {
    await loadData(page);
    await startBusyCell(page, 30);
    const exprCard = card(page, EXPR_CELL_ID);
    await exprCard.getByRole('button', { name: /^Benchmark/ }).click();
    await expect(exprCard.locator('.jp-gpuoptimize-progress-text')).toContainText('kernel is busy');
    await restartKernel(page);
    await expect(exprCard.locator('.jp-gpuoptimize-progress-text')).toContainText('kernel restarted');
    await expect(exprCard.locator('.jp-gpuoptimize-benchmark')).toHaveText('Benchmark again');
    // The bridge says hello to the new kernel by itself.
    await waitForDeviceReady(page);
  });

  test('a kernel restart during a run fails it with a clear message', async ({ page }) => {
    await loadData(page);
    const exprCard = card(page, EXPR_CELL_ID);
    await exprCard.getByRole('button', { name: /^Benchmark/ }).click();
    await expect(exprCard.locator('.jp-gpuoptimize-progress-text')).toContainText('Timing', { timeout: 30000 });
    await restartKernel(page);
    await expect(exprCard.locator('.jp-gpuoptimize-progress-text')).toContainText('kernel restarted');
    await waitForDeviceReady(page);
  });

  test('Cancel during a run interrupts the kernel and reports it', async ({ page }) => {
    await loadData(page);
    // A long budget, so the original is still being timed when Cancel lands.
    await setSetting(page, 'benchmarkBudgetSeconds', 20);
    const exprCard = card(page, EXPR_CELL_ID);
    await exprCard.getByRole('button', { name: /^Benchmark/ }).click();
    await expect(exprCard.locator('.jp-gpuoptimize-progress-text')).toContainText('Timing the CPU original', {
      timeout: 30000
    });
    await exprCard.getByRole('button', { name: /^Cancel/ }).click();
    const result = exprCard.locator('.jp-gpuoptimize-result');
    await expect(result).toHaveAttribute('data-verdict', 'cancelled', { timeout: 30000 });
    await setSetting(page, 'benchmarkBudgetSeconds', 3);
  });
});
