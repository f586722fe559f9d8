/**
 * Shared steps of the GPU Optimizer UI tests: open the demo notebook in the server's temporary
 * directory, show the panel, find cards and read cells through JupyterLab's own models.
 */
import { expect, IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Locator, Page } from '@playwright/test';
import * as path from 'path';

export const DEMO_PATH = path.resolve(__dirname, '../../../examples/demo.ipynb');
export const SCREENSHOTS = path.resolve(__dirname, '../screenshots');
/** The demo cell with the NumPy expression the array rules flag (see examples/demo.ipynb). */
export const EXPR_CELL_ID = 'numpy-expr';
export const EXPR_CELL_INDEX = 4;

/** Uploads the demo into this test's directory, opens it and waits for its kernel. */
export async function openDemo(page: IJupyterLabPageFixture, tmpPath: string): Promise<void> {
  await page.contents.uploadFile(DEMO_PATH, `${tmpPath}/demo.ipynb`);
  await page.notebook.openByPath(`${tmpPath}/demo.ipynb`);
  await page.notebook.activate('demo.ipynb');
  await waitForKernelIdle(page);
}

export async function waitForKernelIdle(page: IJupyterLabPageFixture): Promise<void> {
  await page.waitForFunction(() => {
    const widget = (window as any).jupyterapp.shell.currentWidget;
    return widget?.sessionContext?.session?.kernel?.status === 'idle';
  }, undefined, { timeout: 60000 });
}

/** Opens the GPU Optimizer panel through its command. */
export async function openPanel(page: IJupyterLabPageFixture): Promise<Locator> {
  await page.evaluate(() => (window as any).jupyterapp.commands.execute('gpuoptimize:open-panel'));
  const panel = page.locator('#jp-gpuoptimize-panel');
  await expect(panel).toBeVisible();
  return panel;
}

/**
 * The (first) card for a cell. Tests do not pin the rule: the engine picks the best rewrite
 * for the demo cell (GPU101 CuPy, or GPU103 fused kernel as rules grow).
 */
export function card(page: IJupyterLabPageFixture, cellId: string): Locator {
  return page.locator(`.jp-gpuoptimize-card[data-cell-id="${cellId}"]`).first();
}

/** A cell's text as the notebook model holds it. */
export function cellSource(page: Page, cellId: string): Promise<string> {
  return page.evaluate(id => {
    const model = (window as any).jupyterapp.shell.currentWidget.content.model;
    for (let i = 0; i < model.cells.length; i++) {
      if (model.cells.get(i).id === id) {
        return model.cells.get(i).sharedModel.getSource() as string;
      }
    }
    throw new Error(`no cell ${id}`);
  }, cellId);
}

/** Changes a cell's text through the shared model, as a collaborator or a paste would. */
export function setCellSource(page: IJupyterLabPageFixture, cellId: string, source: string): Promise<void> {
  return page.evaluate(
    ([id, text]) => {
      const model = (window as any).jupyterapp.shell.currentWidget.content.model;
      for (let i = 0; i < model.cells.length; i++) {
        if (model.cells.get(i).id === id) {
          model.cells.get(i).sharedModel.setSource(text);
          return;
        }
      }
      throw new Error(`no cell ${id}`);
    },
    [cellId, source]
  );
}

/** Runs a notebook cell by index and waits for it to finish. */
export async function runCell(page: IJupyterLabPageFixture, index: number): Promise<void> {
  await page.notebook.runCell(index, true);
}

/** Changes one of the extension's settings through the setting registry (as the Settings Editor does). */
export async function setSetting(page: IJupyterLabPageFixture, key: string, value: unknown): Promise<void> {
  await page.evaluate(
    async ([k, v]) => {
      const registry = await (window as any).galata.getPlugin('@jupyterlab/apputils-extension:settings');
      await registry.set('jupyterlab-gpuoptimize:plugin', k, v);
    },
    [key, value] as const
  );
}
