import { expect, test } from '@jupyterlab/galata';
import * as path from 'path';
import {
  card,
  cellSource,
  EXPR_CELL_ID,
  EXPR_CELL_INDEX,
  openDemo,
  openPanel,
  SCREENSHOTS,
  setCellSource
} from './helpers';

test.describe('GPU Optimizer panel', () => {
  test.beforeEach(async ({ page, tmpPath }) => {
    await openDemo(page, tmpPath);
  });

  test('lists the suggestion for the NumPy cell with diff, badge and device status', async ({ page }) => {
    const panel = await openPanel(page);
    const exprCard = card(page, EXPR_CELL_ID);
    await expect(exprCard).toBeVisible();
    await expect(exprCard.locator('.jp-gpuoptimize-library-badge')).toHaveText('cupy');
    await expect(exprCard.locator('.jp-gpuoptimize-card-meta')).toContainText('Predicted');
    await expect(exprCard.locator('.jp-gpuoptimize-card-meta')).toContainText('confidence');
    // The diff shows the rewrite's CuPy calls.
    await expect(exprCard.locator('.cm-content')).toContainText('cp.');
    await expect(exprCard).toHaveAttribute('data-rule', /^GPU1\d\d$/);
    for (const name of ['Apply', 'Benchmark', 'Explain', 'Dismiss']) {
      await expect(exprCard.getByRole('button', { name: new RegExp(`^${name}`) })).toBeVisible();
    }
    // The cell carries a badge that names the suggestion.
    const cell = page.locator('.jp-Notebook .jp-Cell').nth(EXPR_CELL_INDEX);
    const rule = await exprCard.getAttribute('data-rule');
    await expect(cell.locator('.jp-gpuoptimize-cell-badge')).toHaveAttribute('aria-label', new RegExp(rule!));
    // The panel loads the shim and says what the kernel's machine has (no GPU in CI).
    await expect(panel.locator('.jp-gpuoptimize-device-line')).not.toHaveText(/Checking/, { timeout: 30000 });
    await expect(panel.locator('.jp-gpuoptimize-device[data-status="ready"]')).toBeVisible();
    await panel.screenshot({ path: path.join(SCREENSHOTS, 'panel-suggestions.png') });
    await exprCard.locator('.jp-gpuoptimize-diff').screenshot({ path: path.join(SCREENSHOTS, 'suggestion-diff.png') });
  });

  test('Apply replaces the cell and Ctrl+Z in the cell restores it', async ({ page }) => {
    await openPanel(page);
    const original = await cellSource(page, EXPR_CELL_ID);
    await card(page, EXPR_CELL_ID).getByRole('button', { name: /^Apply/ }).click();
    await expect.poll(() => cellSource(page, EXPR_CELL_ID)).not.toBe(original);
    expect(await cellSource(page, EXPR_CELL_ID)).toContain('cp.');
    // CuPy is imported once, at the notebook's import cell.
    expect(await cellSource(page, 'imports')).toBe('import numpy as np\nimport cupy as cp');
    await expect(page.locator('.jp-toast-message, .Toastify__toast-body').first()).toContainText('Applied');

    await page.notebook.enterCellEditingMode(EXPR_CELL_INDEX);
    await page.keyboard.press('Control+z');
    await expect.poll(() => cellSource(page, EXPR_CELL_ID)).toBe(original);
  });

  test('Apply refuses when the cell changed since the suggestion was computed', async ({ page }) => {
    await openPanel(page);
    const exprCard = card(page, EXPR_CELL_ID);
    await expect(exprCard).toBeVisible();
    const edited = 'y = np.sqrt(x * x + 1.0) * np.exp(-x)  # edited by hand';
    const rule = await exprCard.getAttribute('data-rule');
    // Edit and Apply in one step, before the debounced re-analysis can catch up.
    await page.evaluate(
      ([id, text, ruleId]) => {
        const app = (window as any).jupyterapp;
        const model = app.shell.currentWidget.content.model;
        for (let i = 0; i < model.cells.length; i++) {
          if (model.cells.get(i).id === id) {
            model.cells.get(i).sharedModel.setSource(text);
          }
        }
        return app.commands.execute('gpuoptimize:apply-suggestion', { key: `${ruleId}@${id}` });
      },
      [EXPR_CELL_ID, edited, rule!]
    );
    expect(await cellSource(page, EXPR_CELL_ID)).toBe(edited);
    await expect(exprCard.locator('.jp-gpuoptimize-card-notice')).toContainText('the cell changed');
    await exprCard.screenshot({ path: path.join(SCREENSHOTS, 'card-stale-refusal.png') });
    // After re-analysis the card describes the edited text, and Apply works again.
    await expect.poll(async () => {
      await exprCard.getByRole('button', { name: /^Apply/ }).click();
      return cellSource(page, EXPR_CELL_ID);
    }).toContain('cp.');
  });

  test('clicking a card title selects its cell', async ({ page }) => {
    await openPanel(page);
    await card(page, EXPR_CELL_ID).locator('.jp-gpuoptimize-card-title').click();
    await expect
      .poll(() => page.evaluate(() => (window as any).jupyterapp.shell.currentWidget.content.activeCellIndex))
      .toBe(EXPR_CELL_INDEX);
  });

  test('Explain shows the rule explanation', async ({ page }) => {
    await openPanel(page);
    const exprCard = card(page, EXPR_CELL_ID);
    await exprCard.getByRole('button', { name: /^Explain/ }).click();
    const explanation = exprCard.locator('.jp-gpuoptimize-explanation');
    await expect(explanation).toBeVisible();
    // The rule's own text (rendered Markdown), then the reference it cites.
    await expect(explanation.locator('strong, p').first()).not.toBeEmpty();
    await expect(explanation).toContainText('Reference: references/');
    await expect(exprCard.getByRole('button', { name: /^Explain/ })).toHaveAttribute('aria-expanded', 'true');
  });

  test('suggestions follow edits (debounced re-analysis)', async ({ page }) => {
    await openPanel(page);
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();
    await setCellSource(page, EXPR_CELL_ID, 'y = 1');
    await expect(card(page, EXPR_CELL_ID)).toHaveCount(0);
    await setCellSource(page, EXPR_CELL_ID, 'y = np.exp(-x) * 2.0');
    await expect(card(page, EXPR_CELL_ID)).toBeVisible();
  });
});
