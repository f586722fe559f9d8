/**
 * The extension in Jupyter Notebook 7: the panel lives in Notebook's right sidebar.
 *
 * A plain Playwright test (Galata's fixtures assume JupyterLab): it starts its own
 * `jupyter notebook` server on another port with a temporary root holding the demo, opens
 * /notebooks/demo.ipynb, shows the right sidebar and the GPU Optimizer panel, and applies
 * the NumPy cell's suggestion.
 */
import { expect, Page, test } from '@playwright/test';
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { cellSource } from './helpers';

const DEMO_PATH = path.resolve(__dirname, '../../../examples/demo.ipynb');
const SCREENSHOTS = path.resolve(__dirname, '../screenshots');
const SHIM = path.resolve(__dirname, '../../../python_shim');
const EXPR_CELL_ID = 'numpy-expr';
const PORT = Number(process.env.NOTEBOOK7_PORT || 8899);
const BASE = `http://127.0.0.1:${PORT}`;

let server: ChildProcess | undefined;
let rootDir = '';
let serverLog = '';

async function waitForServer(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server?.exitCode !== null && server?.exitCode !== undefined) {
      throw new Error(`jupyter notebook exited (${server.exitCode}):\n${serverLog}`);
    }
    try {
      const res = await fetch(`${BASE}/api/status`);
      if (res.ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise(resolve => setTimeout(resolve, 500));
  }
  throw new Error(`jupyter notebook did not start on ${BASE}:\n${serverLog}`);
}

test.describe('Jupyter Notebook 7', () => {
  test.beforeAll(async () => {
    test.setTimeout(120000);
    rootDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpuoptimize-nb7-'));
    fs.copyFileSync(DEMO_PATH, path.join(rootDir, 'demo.ipynb'));
    server = spawn(
      'jupyter',
      [
        'notebook',
        "--ServerApp.token=''",
        "--ServerApp.password=''",
        '--ServerApp.disable_check_xsrf=True',
        '--allow-root',
        '--no-browser',
        '--JupyterNotebookApp.expose_app_in_browser=True',
        `--ServerApp.root_dir=${rootDir}`,
        `--port=${PORT}`,
        '--ServerApp.port_retries=0',
        '--ip=127.0.0.1'
      ],
      {
        env: {
          ...process.env,
          PYTHONPATH: [SHIM, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter),
          JUPYTER_CONFIG_DIR: path.join(rootDir, '.jupyter-config')
        },
        stdio: ['ignore', 'pipe', 'pipe']
      }
    );
    server.stdout?.on('data', d => (serverLog += d.toString()));
    server.stderr?.on('data', d => (serverLog += d.toString()));
    await waitForServer(90000);
  });

  test.afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise(resolve => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise(resolve => setTimeout(resolve, 10000))]);
      if (server.exitCode === null) {
        server.kill('SIGKILL');
      }
    }
    if (rootDir) {
      fs.rmSync(rootDir, { recursive: true, force: true });
    }
  });

  test('the panel opens in the right sidebar, lists the NumPy suggestion and applies it', async ({ page }) => {
    const errors: string[] = [];
    page.on('console', msg => {
      if (msg.type() === 'error' && /gpuoptimize/i.test(msg.text())) {
        errors.push(msg.text());
      }
    });
    await page.goto(`${BASE}/notebooks/demo.ipynb`);
    await page.waitForFunction(() => {
      const widget = (window as any).jupyterapp?.shell?.currentWidget;
      return widget?.sessionContext?.session?.kernel?.status === 'idle';
    }, undefined, { timeout: 60000 });

    // Notebook 7's View menu: View > Right Sidebar > Show GPU Optimizer (application:toggle-panel).
    await page.locator('.lm-MenuBar-itemLabel', { hasText: /^View$/ }).click();
    await page.locator('.lm-Menu-itemLabel', { hasText: /^Right Sidebar$/ }).hover();
    await page.locator('.lm-Menu-itemLabel', { hasText: /^Show GPU Optimizer$/ }).click();
    const rightArea = page.locator('#jp-right-stack');
    await expect(rightArea).toBeVisible();
    const panel = page.locator('#jp-gpuoptimize-panel');
    await expect(panel).toBeVisible();
    await expect(rightArea.locator('#jp-gpuoptimize-panel')).toBeVisible();

    const exprCard = page.locator(`.jp-gpuoptimize-card[data-cell-id="${EXPR_CELL_ID}"]`).first();
    await expect(exprCard).toBeVisible();
    await expect(exprCard.locator('.jp-gpuoptimize-library-badge')).toHaveText('cupy');
    await expect(exprCard).toHaveAttribute('data-rule', /^GPU1\d\d$/);
    await exprCard.scrollIntoViewIfNeeded();
    // Notebook 7's sidebar is narrower than JupyterLab's: the panel must fit it, not be clipped.
    const fits = await page.evaluate(() => {
      const stack = document.querySelector('#jp-right-stack')!.getBoundingClientRect();
      const panelBox = document.querySelector('#jp-gpuoptimize-panel')!.getBoundingClientRect();
      return panelBox.right <= stack.right + 1 && stack.right <= window.innerWidth + 1;
    });
    expect(fits).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'notebook7-sidebar.png') });

    const original = await cellSource(page, EXPR_CELL_ID);
    await exprCard.getByRole('button', { name: /^Apply/ }).click();
    await expect.poll(() => cellSource(page, EXPR_CELL_ID)).not.toBe(original);
    expect(await cellSource(page, EXPR_CELL_ID)).toContain('cp.');
    expect(errors).toEqual([]);
  });
});
