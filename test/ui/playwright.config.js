/**
 * Galata / Playwright configuration: a real `jupyter lab` server (started below, with the
 * extension installed in the active Python environment) driven by Debian's Chromium.
 * `npx playwright install` cannot download browsers here, so the system build is used.
 */
const path = require('path');
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

// GALATA_PORT lets a second checkout run its UI tests beside a server already on 8888.
const port = process.env.GALATA_PORT || '8888';

module.exports = {
  ...baseConfig,
  testDir: './tests',
  outputDir: './test-results',
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  retries: process.env.CI ? 1 : 0,
  workers: 1,
  timeout: 120000,
  expect: { timeout: 20000, toHaveScreenshot: { maxDiffPixelRatio: 0.02 } },
  use: {
    ...baseConfig.use,
    baseURL: `http://localhost:${port}`,
    trace: 'retain-on-failure',
    video: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync'
      ]
    }
  },
  webServer: {
    command: `jupyter lab --allow-root --config jupyter_server_test_config.py --ServerApp.port=${port}`,
    // The kernel imports the shim from the source tree, so `%load_ext gpuoptimize` always
    // runs the code under test (an installed wheel may be older).
    env: {
      ...process.env,
      PYTHONPATH: [path.resolve(__dirname, '../../python_shim'), process.env.PYTHONPATH]
        .filter(Boolean)
        .join(path.delimiter)
    },
    url: `http://localhost:${port}/lab`,
    timeout: 180000,
    reuseExistingServer: !process.env.CI
  }
};
