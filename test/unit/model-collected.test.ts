/**
 * A dropped analyzer's notebook model, with its cells' syntax trees, is garbage: nothing at
 * module level keeps it. Jest gives the test no `gc`, so the check runs in a child
 * `node --expose-gc` on a bundle (the repo's esbuild) of model-collected-probe.ts; see there.
 */
import { spawnSync } from 'child_process';
import { buildSync } from 'esbuild';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { ProbeResult } from './model-collected-probe';

const ROOT = join(__dirname, '..', '..');

test('models and trees of dropped analyzers are collected; a kept one is not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'model-collected-'));
  try {
    const bundle = join(dir, 'probe.cjs');
    buildSync({
      entryPoints: [join(__dirname, 'model-collected-probe.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: bundle,
      // loaded from node_modules at run time, as bench/analysis_speed.sh does
      external: ['web-tree-sitter', 'tree-sitter-python'],
      logLevel: 'warning'
    });
    const run = spawnSync(process.execPath, ['--expose-gc', bundle, ROOT], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
      timeout: 120_000
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout.trim().split('\n').pop()!) as ProbeResult;
    // the 1,000-cell synthetic notebook and the bench notebooks, each analysed, updated after
    // an edit and planned: several models each, and hundreds of trees
    expect(result.notebooks).toBeGreaterThan(10);
    expect(result.dropped.models).toBeGreaterThanOrEqual(3 * result.notebooks);
    expect(result.dropped.trees).toBeGreaterThan(1000);
    expect(result.freed).toEqual(result.dropped);
    // the control: the count sees a model that something keeps
    expect(result.kept.models).toBe(1);
    expect(result.kept.trees).toBeGreaterThan(5);
    expect(result.keptFreed).toEqual({ models: 0, trees: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);
