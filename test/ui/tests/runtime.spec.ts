/**
 * Sizes from the kernel: an array loaded from a file has no size in the cell's text, so the
 * cost model cannot price its rewrite until the cells run; then the panel asks the kernel
 * (`inspect`) and the suggestion appears, saying where its size came from.
 */
import { expect, test } from '@jupyterlab/galata';
import { card, openPanel, waitForKernelIdle } from './helpers';

// (the file's path through a variable: the analysis sizes np.load of a literal path an earlier
// cell np.save-d, not this one, as it cannot a file another program wrote)
const CELLS: [string, string][] = [
  ['imports', "import numpy as np\npath = 'big.npy'"],
  ['write', 'np.save(path, np.random.rand(30_000_000).astype(np.float32))'],
  ['load', 'x = np.load(path)'],
  ['expr', 'y = np.sqrt(x*x+1.0)*np.exp(-x)']
];

function notebookJson(): string {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      language_info: { name: 'python' }
    },
    cells: CELLS.map(([id, source]) => ({
      id,
      cell_type: 'code',
      metadata: {},
      execution_count: null,
      outputs: [],
      source
    }))
  });
}

test.describe('Sizes from the kernel', () => {
  test('an np.load array gets its suggestion once the cells ran, sized by the kernel', async ({ page, tmpPath }) => {
    await page.contents.uploadContent(notebookJson(), 'text', `${tmpPath}/runtime.ipynb`);
    await page.notebook.openByPath(`${tmpPath}/runtime.ipynb`);
    await page.notebook.activate('runtime.ipynb');
    await waitForKernelIdle(page);
    const panel = await openPanel(page);
    // The shim loads and says hello (the panel connects on open).
    await expect(panel.locator('.jp-gpuoptimize-device[data-status="ready"]')).toBeVisible({ timeout: 30000 });

    // Before running: the engine knows nothing of x's size, so nothing sized is shown.
    await expect(panel.locator('.jp-gpuoptimize-status')).toContainText('No suggestions for this notebook.');
    await expect(card(page, 'expr')).toHaveCount(0);
    await expect(panel.locator('.jp-gpuoptimize-card-sizes')).toHaveCount(0);

    // Run every cell: after each, the panel inspects the kernel and re-analyses.
    await page.notebook.run();
    await waitForKernelIdle(page);
    const exprCard = card(page, 'expr');
    await expect(exprCard).toBeVisible({ timeout: 60000 });
    await expect(exprCard.locator('.jp-gpuoptimize-card-meta')).toContainText('Predicted');
    await expect(exprCard.locator('.jp-gpuoptimize-card-sizes')).toContainText('size from the kernel: x 114 MiB');
  });
});
