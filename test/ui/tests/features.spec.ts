import { expect, test } from '@jupyterlab/galata';
import type { JupyterLabPage } from '@jupyterlab/galata';
import * as path from 'path';
import {
  card,
  EXPR_CELL_ID,
  EXPR_CELL_INDEX,
  openDemo,
  openPanel,
  runCell,
  cellSource,
  SCREENSHOTS,
  setCellSource,
  setSetting,
  waitForKernelIdle
} from './helpers';

test.describe('Dismiss', () => {
  test('a dismissal is saved in the notebook metadata and survives a reload', async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
    const panel = await openPanel(page);
    const exprCard = card(page, EXPR_CELL_ID);
    const rule = await exprCard.getAttribute('data-rule');
    await exprCard.getByRole('button', { name: /^Dismiss/ }).click();
    await expect(page.locator(`.jp-gpuoptimize-card[data-rule="${rule}"][data-cell-id="${EXPR_CELL_ID}"]`)).toHaveCount(0);
    await expect(panel.getByRole('button', { name: /dismissed suggestion/ })).toBeVisible();
    // The cell badge goes with it.
    await expect(page.locator('.jp-Notebook .jp-Cell').nth(EXPR_CELL_INDEX).locator('.jp-gpuoptimize-cell-badge')).toHaveCount(0);
    await page.evaluate(() => (window as any).jupyterapp.commands.execute('docmanager:save'));
    await expect
      .poll(() => page.evaluate(() => (window as any).jupyterapp.shell.currentWidget.context.model.dirty))
      .toBe(false);

    // Galata's own readiness check waits for the Launcher, which a restored layout lacks.
    // The fixture is a proxy that runs JupyterLabPage.reload (galata.js addHelpersToPage); its
    // type shows Playwright's reload instead, which lacks `waitForIsReady`.
    await (page as unknown as Pick<JupyterLabPage, 'reload'>).reload({ waitForIsReady: false });
    await page.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
    await page.evaluate(() => (window as any).jupyterapp.restored);
    // The restored layout may already hold the notebook; opening it again just activates it.
    await page.evaluate(
      p => (window as any).jupyterapp.commands.execute('docmanager:open', { path: p }),
      `${tmpPath}/demo.ipynb`
    );
    await waitForKernelIdle(page);
    const reloaded = await openPanel(page);
    await expect(reloaded.getByRole('button', { name: /dismissed suggestion/ })).toBeVisible();
    await expect(page.locator(`.jp-gpuoptimize-card[data-rule="${rule}"][data-cell-id="${EXPR_CELL_ID}"]`)).toHaveCount(0);
    const metadata = await page.evaluate(() =>
      (window as any).jupyterapp.shell.currentWidget.content.model.getMetadata('gpuoptimize')
    );
    expect(metadata).toEqual({ dismissed: [{ rule, cell_id: EXPR_CELL_ID }] });

    // "Show dismissed" brings it back.
    await reloaded.getByRole('button', { name: /dismissed suggestion/ }).click();
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();
  });
});

test.describe('Settings', () => {
  test.afterEach(async ({ page }) => {
    await setSetting(page, 'minPredictedSpeedup', 1.2);
    await setSetting(page, 'enabledFamilies', ['arrays', 'kernels', 'simulation', 'dataframes', 'ml', 'graphs', 'vectors', 'images-io', 'scale']);
  });

  test('minimum speedup and rule families apply live', async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
    const panel = await openPanel(page);
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();

    await setSetting(page, 'minPredictedSpeedup', 1000);
    await expect(card(page, EXPR_CELL_ID)).toHaveCount(0);
    await expect(panel.locator('.jp-gpuoptimize-status')).toContainText('hidden by your settings');

    await setSetting(page, 'minPredictedSpeedup', 1.2);
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();

    await setSetting(page, 'enabledFamilies', ['dataframes']);
    await expect(card(page, EXPR_CELL_ID)).toHaveCount(0);
  });
});

test.describe('Themes and accessibility', () => {
  test('the panel follows the dark theme', async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
    const panel = await openPanel(page);
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();
    await page.theme.setDarkTheme();
    await openPanel(page);
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();
    // The card's background is the theme's layout colour, which is dark now.
    const background = await card(page, EXPR_CELL_ID).evaluate(node => getComputedStyle(node).backgroundColor);
    const [r, g, b] = background.match(/\d+/g)!.map(Number);
    expect((r + g + b) / 3).toBeLessThan(80);
    await panel.screenshot({ path: path.join(SCREENSHOTS, 'panel-dark.png') });
    await page.theme.setLightTheme();
  });

  test('every control has an accessible name and takes keyboard focus', async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
    const panel = await openPanel(page);
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();
    const unnamed = await panel.locator('button').evaluateAll(buttons =>
      buttons
        .filter(b => !(b as HTMLElement).hidden)
        .filter(b => !(b.getAttribute('aria-label') || b.textContent || '').trim())
        .map(b => b.outerHTML)
    );
    expect(unnamed).toEqual([]);
    // Keyboard: from the card title, Tab reaches Apply and Enter applies.
    const exprCard = card(page, EXPR_CELL_ID);
    await exprCard.locator('.jp-gpuoptimize-card-title').focus();
    await page.keyboard.press('Tab');
    await expect(exprCard.getByRole('button', { name: /^Apply/ })).toBeFocused();
  });
});

test.describe('Notebooks', () => {
  test('the panel follows the active notebook', async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
    const panel = await openPanel(page);
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();
    await page.notebook.createNew('empty.ipynb');
    await expect(panel.locator('.jp-gpuoptimize-card')).toHaveCount(0);
    await expect(panel.locator('.jp-gpuoptimize-status')).toContainText('No suggestions');
    await page.notebook.activate('demo.ipynb');
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();
  });

  test('a windowed notebook gets badges and scrolls to the cell', async ({ page, tmpPath }) => {
    await page.evaluate(async () => {
      const registry = await (window as any).galata.getPlugin('@jupyterlab/apputils-extension:settings');
      await registry.set('@jupyterlab/notebook-extension:tracker', 'windowingMode', 'full');
    });
    await openDemo(page, tmpPath);
    const panel = await openPanel(page);
    await expect(page.locator('.jp-Notebook.jp-mod-virtualScrollbar, .jp-WindowedPanel-outer').first()).toBeVisible();
    await card(page, EXPR_CELL_ID).locator('.jp-gpuoptimize-card-title').click();
    await expect
      .poll(() => page.evaluate(() => (window as any).jupyterapp.shell.currentWidget.content.activeCellIndex))
      .toBe(EXPR_CELL_INDEX);
    await expect(page.locator('.jp-Notebook .jp-Cell.jp-mod-active .jp-gpuoptimize-cell-badge')).toBeVisible();
    await expect(panel).toBeVisible();
  });

  test('Rewrite whole notebook opens a rewritten copy with a summary cell', async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
    await openPanel(page);
    // (not awaited: the command waits for the dialog it opens when the rewrite is not predicted
    // to pay, as for the small demo notebook)
    await page.evaluate(() => {
      void (window as any).jupyterapp.commands.execute('gpuoptimize:rewrite-notebook');
    });
    const anyway = page.locator('.jp-Dialog').getByRole('button', { name: 'Write the rewrite anyway' });
    const tab = page.locator('.jp-mod-current[role="tab"], .lm-TabBar-tab.jp-mod-current').filter({ hasText: 'demo-gpu.ipynb' }).first();
    await expect(anyway.or(tab)).toBeVisible();
    if (await anyway.isVisible()) {
      await expect(page.locator('.jp-Dialog')).toContainText('The GPU rewrite is not predicted to pay');
      await anyway.click();
    }
    await expect(tab).toBeVisible();
    // the tab shows before the copy's cells are in its model (a flake in the fresh-clone CI of
    // 980e8e7): wait for the summary cell
    const firstCell = (): Promise<{ type: string; source: string }> =>
      page.evaluate(() => {
        const model = (window as any).jupyterapp.shell.currentWidget?.content?.model;
        const cell = model?.cells?.length > 0 ? model.cells.get(0) : null;
        return { type: cell ? cell.type : '', source: cell ? cell.sharedModel.getSource() : '' };
      });
    await expect.poll(async () => (await firstCell()).type, { timeout: 20000 }).toBe('markdown');
    const first = await firstCell();
    expect(first.type).toBe('markdown');
    expect(first.source).toContain('GPU rewrite of `demo.ipynb`');
    expect(first.source).toMatch(/cell \d+:/);
    // The original notebook is untouched.
    expect(await page.contents.fileExists(`${tmpPath}/demo.ipynb`)).toBe(true);
  });
});

test.describe('Cell output and shortcut', () => {
  test.use({ kernels: null });

  test('%%gpuoptimize output draws the same result card', async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
    await runCell(page, 1);
    await runCell(page, 3);
    await runCell(page, 6); // %load_ext gpuoptimize
    await runCell(page, 7); // the %%gpuoptimize cell
    const output = page.locator('.jp-Notebook .jp-Cell').nth(7).locator('.jp-gpuoptimize-result');
    await expect(output).toBeVisible({ timeout: 60000 });
    await expect(output).toHaveAttribute('data-verdict', /no_gpu|gpu_faster|gpu_slower|not_equal/);
    await output.screenshot({ path: path.join(SCREENSHOTS, 'magic-output.png') });
  });

  test('Ctrl+Shift+G benchmarks the active cell', async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
    await openPanel(page);
    await runCell(page, 1);
    await runCell(page, 3);
    await page.notebook.selectCells(EXPR_CELL_INDEX);
    await page.keyboard.press('Control+Shift+G');
    await expect(card(page, EXPR_CELL_ID).locator('.jp-gpuoptimize-result')).toBeVisible({ timeout: 90000 });
  });

  test('the cell context menu applies the cell’s suggestion', async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
    await openPanel(page);
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();
    const original = await cellSource(page, EXPR_CELL_ID);
    await page.notebook.selectCells(EXPR_CELL_INDEX);
    await page.locator('.jp-Notebook .jp-Cell').nth(EXPR_CELL_INDEX).locator('.jp-InputArea-prompt').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Apply GPU suggestion to cell' }).click();
    await expect.poll(() => cellSource(page, EXPR_CELL_ID)).not.toBe(original);
  });

  test('%%gpuoptimize without a split times the cell against the panel’s rewrite', async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
    await openPanel(page);
    await expect(page.locator('.jp-gpuoptimize-device[data-status="ready"]')).toBeVisible({ timeout: 60000 });
    const original = await cellSource(page, EXPR_CELL_ID);
    await setCellSource(page, EXPR_CELL_ID, `%%gpuoptimize --budget 1\n${original}`);
    // The re-analysed suggestion is registered with the kernel for this cell.
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();
    await page.waitForTimeout(1500);
    await runCell(page, 1);
    await runCell(page, 3);
    await page.evaluate(async index => {
      const app = (window as any).jupyterapp;
      app.shell.currentWidget.content.activeCellIndex = index;
      await app.commands.execute('notebook:run-cell');
    }, EXPR_CELL_INDEX);
    const output = page.locator('.jp-Notebook .jp-Cell').nth(EXPR_CELL_INDEX).locator('.jp-gpuoptimize-result');
    await expect(output).toBeVisible({ timeout: 60000 });
    // The magic found the registered candidate (without it, it prints how to get one),
    // made for this very text (not stale), and timed both sides.
    await expect(output).toHaveCount(1);
    await expect(output).toHaveAttribute('data-verdict', /no_gpu|gpu_faster|gpu_slower|not_equal/);
    await expect(output.locator('.jp-gpuoptimize-result-facts')).toContainText('GPU rewrite');
    await expect(output.locator('.jp-gpuoptimize-result-facts')).toContainText('CPU original');
  });
});

