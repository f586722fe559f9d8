import { expect, test } from '@jupyterlab/galata';

test('the extension loads and parses Python with tree-sitter in the browser', async ({ page }) => {
  const logs: string[] = [];
  page.on('console', m => logs.push(m.text()));
  await page.reload();
  await page.waitForTimeout(3000);
  expect(logs.join('\n')).toContain('gpuoptimize parse');
});
