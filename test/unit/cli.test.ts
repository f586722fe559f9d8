/**
 * The `gpuoptimize` command, driven as a subprocess (the bundle that `pip install` ships),
 * on the notebooks in test/fixtures/cli.
 */
import { execFileSync, spawnSync } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, copyFileSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { assertValidReport, validateReportClosed } from './report-schema';
import { parser } from './helpers';
import { NotebookAnalyzer } from '../../src/analysis/engine';
import { loadFile, parsePythonFile } from '../../src/cli/sources';
import { RANDOM_STREAMS_NOTE } from '../../src/cli/main';
import { rewriteNotebook } from '../../src/analysis/plan';

const ROOT = join(__dirname, '..', '..');
const BUNDLE = join(ROOT, 'python_shim', 'gpuoptimize', 'cli_bundle', 'gpuoptimize.cjs');
const FIX = join(ROOT, 'test', 'fixtures', 'cli');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}): Run {
  const r = spawnSync(process.execPath, [BUNDLE, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env }
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

interface SuggestionJSON {
  rule: string;
  library: string;
  candidate: string;
  predicted_speedup: number;
}
interface ReportJSON {
  version: number;
  files: {
    path: string;
    status: string;
    message?: string;
    cells: { index: number; suggestions: SuggestionJSON[]; refusals: { rule: string; reason: string }[]; diagnostics: string[] }[];
  }[];
}

/** The JSON report of `analyze ARGS`, checked against schema/cli/report.schema.json (every field described). */
function jsonReport(args: string[]): { run: Run; report: ReportJSON } {
  const r = run(['analyze', ...args, '--format', 'json']);
  const report = JSON.parse(r.stdout) as ReportJSON;
  assertValidReport(report);
  return { run: r, report };
}

beforeAll(() => {
  // Always bundle the current sources: the test exercises what `pip install` would ship.
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-cli.js')], { cwd: ROOT });
  expect(existsSync(BUNDLE)).toBe(true);
});

describe('gpuoptimize analyze', () => {
  test('finds the fused CuPy rewrite, counts markdown cells in index, exits 1', () => {
    const { run: r, report } = jsonReport([join(FIX, 'numpy_pipeline.ipynb')]);
    expect(r.code).toBe(1);
    expect(report.version).toBe(1);
    const cells = report.files[0].cells.filter(c => c.suggestions.length > 0);
    // cell 0 is markdown, 1 imports, 2 creates x, 3 computes y
    expect(cells.map(c => c.index)).toContain(3);
    const s = cells.find(c => c.index === 3)!.suggestions[0];
    // an elementwise chain: one fused kernel, not one pass per operator
    expect(s.rule).toBe('GPU103');
    expect(s.library).toBe('cupy');
    expect(s.candidate).toMatch(/cp\.ElementwiseKernel\(/);
    expect(s.predicted_speedup).toBeGreaterThan(1);
  });

  test('a clean notebook exits 0 with no suggestions', () => {
    const { run: r, report } = jsonReport([join(FIX, 'clean.ipynb')]);
    expect(r.code).toBe(0);
    expect(report.files[0].status).toBe('analysed');
    expect(report.files[0].cells.every(c => c.suggestions.length === 0)).toBe(true);
  });

  test('nbformat 3 notebooks are read', () => {
    const { run: r, report } = jsonReport([join(FIX, 'nbformat3.ipynb')]);
    expect(r.code).toBe(1);
    const withSuggestions = report.files[0].cells.filter(c => c.suggestions.length > 0);
    expect(withSuggestions.map(c => c.index)).toEqual([2]);
  });

  test('a syntax error in one cell is reported and the other cells are still analysed', () => {
    const { run: r, report } = jsonReport([join(FIX, 'syntax_error.ipynb')]);
    expect(r.code).toBe(1);
    const cells = report.files[0].cells;
    expect(cells.find(c => c.index === 1)!.diagnostics.join(' ')).toMatch(/syntax error/);
    expect(cells.find(c => c.index === 2)!.suggestions.length).toBeGreaterThan(0);
  });

  test('a non-Python notebook is skipped with a note, not an error', () => {
    const { run: r, report } = jsonReport([join(FIX, 'r_kernel.ipynb')]);
    expect(r.code).toBe(0);
    expect(report.files[0].status).toBe('skipped');
    expect(report.files[0].message).toMatch(/language is r/i);
  });

  test('invalid JSON alone: a clear message and exit 2', () => {
    const r = run(['analyze', join(FIX, 'invalid.ipynb')]);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toMatch(/invalid JSON/);
  });

  test('a folder: bad files are reported, good ones analysed, exit by findings', () => {
    const r = run(['analyze', FIX, '--no-color']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/binary\.py: error: binary file/);
    expect(r.stdout).toMatch(/invalid\.ipynb: error: not a valid notebook/);
    expect(r.stdout).toMatch(/numpy_pipeline\.ipynb:cell 3: GPU103 \[cupy\]/);
    // a short diff for people
    expect(r.stdout).toMatch(/^\s+\+ .*cp\./m);
    // no colour codes when stdout is not a terminal
    expect(r.stdout).not.toMatch(/\x1b\[/);
  });

  test('huge files are refused with their size', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuopt-'));
    const big = join(dir, 'huge.py');
    writeFileSync(big, 'x = 1\n'.repeat(9_000_000));
    const r = run(['analyze', big]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/too large to analyse \(54 MB/);
  });

  test('.py files split on # %% markers', () => {
    const { run: r, report } = jsonReport([join(FIX, 'script.py')]);
    expect(r.code).toBe(1);
    // cells: 0 imports (before the first marker), 1 x, 2 markdown, 3 y
    const indices = report.files[0].cells.filter(c => c.suggestions.length > 0).map(c => c.index);
    expect(indices).toContain(3);
  });

  test('--select, --ignore and --min-speedup filter suggestions', () => {
    const nb = join(FIX, 'numpy_pipeline.ipynb');
    expect(run(['analyze', nb, '--ignore', 'GPU1']).code).toBe(0);
    expect(run(['analyze', nb, '--select', 'GPU103']).code).toBe(1);
    const selected = JSON.parse(run(['analyze', nb, '--select', 'GPU103', '--format', 'json']).stdout) as ReportJSON;
    const rules = selected.files[0].cells.flatMap(c => c.suggestions.map(x => x.rule));
    expect(rules).toEqual(['GPU103']);
    expect(run(['analyze', nb, '--select', 'GPU9']).code).toBe(0);
    expect(run(['analyze', nb, '--min-speedup', '1e9']).code).toBe(0);
  });

  test('SARIF: a valid 2.1.0 log whose results point at the file and line', () => {
    const r = run(['analyze', join(FIX, 'script.py'), '--format', 'sarif']);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.stdout);
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
    const driver = log.runs[0].tool.driver;
    expect(driver.name).toBe('gpuoptimize');
    const ruleIds = driver.rules.map((x: { id: string }) => x.id);
    expect(log.runs[0].results.length).toBeGreaterThan(0);
    for (const res of log.runs[0].results) {
      expect(ruleIds).toContain(res.ruleId);
      expect(typeof res.message.text).toBe('string');
      const loc = res.locations[0].physicalLocation;
      expect(loc.artifactLocation.uri).toMatch(/script\.py$/);
      expect(Number.isInteger(loc.region.startLine) && loc.region.startLine >= 1).toBe(true);
    }
    // the y = ... line of script.py is line 10
    const lines = log.runs[0].results.map(
      (x: { locations: { physicalLocation: { region: { startLine: number } } }[] }) =>
        x.locations[0].physicalLocation.region.startLine
    );
    expect(lines).toContain(10);
  });

  test('--baseline reports only findings that are new since the baseline', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuopt-'));
    const nbPath = join(dir, 'nb.ipynb');
    copyFileSync(join(FIX, 'numpy_pipeline.ipynb'), nbPath);
    const baseline = join(dir, 'baseline.json');
    writeFileSync(baseline, run(['analyze', nbPath, '--format', 'json']).stdout);
    // nothing new: exit 0
    expect(run(['analyze', nbPath, '--baseline', baseline]).code).toBe(0);
    // a markdown cell inserted above does not make old findings new
    const nb = JSON.parse(readFileSync(nbPath, 'utf8'));
    nb.cells.unshift({ cell_type: 'markdown', id: 'm0', metadata: {}, source: 'intro' });
    // a new slow cell does
    nb.cells.push({
      cell_type: 'code',
      id: 'new',
      metadata: {},
      outputs: [],
      execution_count: null,
      source: 'w = np.sqrt(x) * np.cos(x) + np.sin(x) * 2.0\n'
    });
    writeFileSync(nbPath, JSON.stringify(nb));
    const { run: r, report } = jsonReport([nbPath, '--baseline', baseline]);
    expect(r.code).toBe(1);
    const found = report.files[0].cells.filter(c => c.suggestions.length > 0).map(c => c.index);
    expect(found).toEqual([nb.cells.length - 1]);
    expect(run(['analyze', nbPath, '--baseline', join(dir, 'missing.json')]).code).toBe(2);
  });

  test('the JSON report follows schema/cli/report.schema.json, every field described, and says which device its figures are for', () => {
    // the demo notebook and the fixtures folder: suggestions with notes, diagnostics, skipped and bad files
    for (const path of [join(ROOT, 'examples', 'demo.ipynb'), FIX]) {
      const { report } = jsonReport([path]);
      expect(report.files.some(f => f.cells.some(c => c.suggestions.length > 0))).toBe(true);
      expect((report as unknown as { device: unknown }).device).toEqual({
        name: 'NVIDIA H200 (measured 2026-11-30)',
        from_report: false,
        h200_figures: ['device_bandwidth', 'copy_rates', 'launch_overhead', 'library_flops']
      });
    }
    // the closed check is not vacuous: a field the schema does not describe fails it
    const { report } = jsonReport([join(FIX, 'numpy_pipeline.ipynb')]);
    expect(validateReportClosed({ ...report, extra: 1 })).toBe(false);
    const s = report.files[0].cells.find(c => c.suggestions.length > 0)!.suggestions[0];
    expect(validateReportClosed({ ...report, files: [{ ...report.files[0], cells: [{ index: 0, suggestions: [{ ...s, speedup: 2 }] }] }] })).toBe(false);
    // without a report, the H200's figures are all four
    expect(validateReportClosed({ ...report, device: { name: 'NVIDIA H200', from_report: false, h200_figures: ['library_flops'] } })).toBe(false);
    expect(validateReportClosed({ ...report, device: { name: 'NVIDIA L4', from_report: true, h200_figures: ['library_flops'] } })).toBe(true);
  });

  test('usage errors exit 2 with the usage text', () => {
    const r = run(['analyze', '--format', 'xml', FIX]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown format xml/);
    expect(run([]).code).toBe(2);
    expect(run(['nonsense']).code).toBe(2);
    expect(run(['analyze', join(FIX, 'no-such-file.ipynb')]).code).toBe(2);
  });
});

describe('why cells are kept on the CPU (refusals)', () => {
  // cell 0 markdown, 1 imports, 2 draws from a Generator (GPU104), 3 an elementwise chain on the
  // draws, 4 array work plus np.random.rand, 5 a Generator a later cell (6) passes to sklearn,
  // 7 a tiny draw, 8 prints
  const NB = join(FIX, 'random_streams.ipynb');

  test("JSON: every refusal of the engine, per cell, with the engine's reason; cells with only refusals are listed", async () => {
    const loaded = loadFile(NB);
    if (!('cells' in loaded)) {
      throw new Error(loaded.message);
    }
    const engine = new NotebookAnalyzer({}, await parser()).update(loaded.cells);
    expect(engine.refusals.map(x => x.cellIndex)).toEqual([5, 7]);
    const { run: r, report } = jsonReport([NB]);
    // the suggestions are the findings
    expect(r.code).toBe(1);
    const cells = report.files[0].cells;
    expect(cells.flatMap(c => c.refusals.map(x => ({ cellIndex: c.index, ...x })))).toEqual(
      engine.refusals.map(x => ({ cellIndex: x.cellIndex, rule: x.rule, reason: x.reason }))
    );
    const kept = (index: number) => cells.find(c => c.index === index)!;
    expect(kept(5).suggestions).toEqual([]);
    expect(kept(5).refusals).toEqual([{ rule: 'GPU104', reason: expect.stringMatching(/`shared` .*cell 6 uses `shared` other than for a draw/) }]);
    expect(kept(7).refusals).toEqual([{ rule: 'GPU104', reason: expect.stringMatching(/^512 B: too small/) }]);
    // cells with suggestions have no refusals here, and their suggestions are as before
    expect(kept(2).refusals).toEqual([]);
    expect(kept(2).suggestions.map(s => s.rule)).toEqual(['GPU104']);
    // the closed schema describes a refusal's fields, and only those
    const withExtra = { ...report, files: [{ ...report.files[0], cells: [{ ...kept(5), refusals: [{ ...kept(5).refusals[0], speedup: 0 }] }] }] };
    expect(validateReportClosed(withExtra)).toBe(false);
  });

  test('refusals alone are not findings: exit 0; --select and --ignore name their rules; --no-refusals leaves them out', () => {
    // --min-speedup drops every suggestion and keeps the refusals
    const { run: r, report } = jsonReport([NB, '--min-speedup', '1e9']);
    expect(r.code).toBe(0);
    expect(report.files[0].cells.map(c => [c.index, c.suggestions.length, c.refusals.length])).toEqual([
      [5, 0, 1],
      [7, 0, 1]
    ]);
    expect(jsonReport([NB, '--ignore', 'GPU104']).report.files[0].cells.some(c => c.refusals.length > 0)).toBe(false);
    expect(jsonReport([NB, '--select', 'GPU104']).report.files[0].cells.filter(c => c.refusals.length > 0).map(c => c.index)).toEqual([5, 7]);
    const hidden = jsonReport([NB, '--no-refusals']);
    expect(hidden.run.code).toBe(1);
    expect(hidden.report.files[0].cells.some(c => c.refusals.length > 0)).toBe(false);
    const text = run(['analyze', NB, '--min-speedup', '1e9', '--no-color']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^No GPU rewrites suggested in 1 file\(s\); 2 cell\(s\) kept on the CPU, for the reasons above\.$/m);
  });

  test('text: after each cell\'s suggestions, "kept on the CPU (rule): reason" lines in cell order', () => {
    const r = run(['analyze', NB, '--no-color']);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    const at = (re: RegExp) => lines.findIndex(l => re.test(l));
    const kept5 = at(/^\S*random_streams\.ipynb:cell 5: kept on the CPU \(GPU104\): `shared` would become a CuPy Generator/);
    const kept7 = at(/^\S*random_streams\.ipynb:cell 7: kept on the CPU \(GPU104\): 512 B: too small to pay for/);
    expect(kept5).toBeGreaterThan(at(/random_streams\.ipynb:cell 4: GPU101/));
    expect(kept7).toBeGreaterThan(kept5);
    expect(at(/random_streams\.ipynb:cell 8: GPU101/)).toBeGreaterThan(kept7);
    expect(r.stdout).toMatch(/^4 suggestion\(s\) in 1 file\(s\); 2 cell\(s\) kept on the CPU, for the reasons above\.$/m);
    const hidden = run(['analyze', NB, '--no-color', '--no-refusals']);
    expect(hidden.stdout).not.toMatch(/kept on the CPU/);
    expect(hidden.stdout).toMatch(/^4 suggestion\(s\) in 1 file\(s\)\.$/m);
  });

  test('SARIF: refusals are note results of their own, with the reason, beside the suggestions', () => {
    const r = run(['analyze', NB, '--format', 'sarif']);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.stdout);
    const run0 = log.runs[0];
    interface SarifResult {
      ruleId: string;
      level: string;
      message: { text: string };
      locations: { physicalLocation: { region: { startLine: number } }; logicalLocations: { name: string }[] }[];
      partialFingerprints: { gpuoptimize: string };
      properties: { cellIndex: number; keptOnCPU?: boolean };
    }
    const results = run0.results as SarifResult[];
    const kept = results.filter(x => x.properties.keptOnCPU);
    expect(kept.map(x => [x.ruleId, x.level, x.locations[0].logicalLocations[0].name, x.locations[0].physicalLocation.region.startLine])).toEqual([
      ['GPU104', 'note', 'cell 5', 1],
      ['GPU104', 'note', 'cell 7', 1]
    ]);
    expect(kept[0].message.text).toMatch(/^kept on the CPU \(GPU104\): `shared` would become a CuPy Generator/);
    expect(kept[1].message.text).toMatch(/^kept on the CPU \(GPU104\): 512 B: too small/);
    // the suggestions are still there, as before
    expect(results.filter(x => !x.properties.keptOnCPU).map(x => [x.properties.cellIndex, x.ruleId, x.level])).toEqual([
      [2, 'GPU104', 'note'],
      [3, 'GPU103', 'note'],
      [4, 'GPU101', 'note'],
      [8, 'GPU101', 'note']
    ]);
    const fingerprints = results.map(x => x.partialFingerprints.gpuoptimize);
    expect(new Set(fingerprints).size).toBe(fingerprints.length);
    expect(run0.tool.driver.rules.map((x: { id: string }) => x.id)).toEqual(['GPU101', 'GPU103', 'GPU104']);
  });
});

describe('analyze: the whole-notebook figure is what fix does', () => {
  // cell 2 reads est and truth, which cell 1 (a recurrence: a host cell) makes and no later
  // cell reads; cell 4 reads b, which the GPU cell 3 makes
  const PY = join(FIX, 'host_made_inputs.py');

  test('a cell whose inputs a host cell makes is charged their copy, and kept on the host as fix keeps it', async () => {
    const { report } = jsonReport([PY]);
    const cell = (index: number) => report.files[0].cells.find(c => c.index === index);
    // no "pays only with the data kept on the device (whole-notebook rewrite: 42x)": the
    // rewrite would copy est and truth in for this cell alone
    expect(cell(2)?.suggestions ?? []).toEqual([]);
    expect(cell(2)?.refusals).toEqual([
      // (and the small results its host code reads, which a host version computes there)
      {
        rule: 'GPU101',
        reason: expect.stringMatching(
          /the whole-notebook rewrite copies `est`, `truth` in too, for this cell alone \(host arrays there too, read by no later cell\), and copies `speed\.mean\(axis=0\)`, `speed\.max\(axis=0\)`, `np\.linalg\.norm\(.*\)` back for host code in the cell: 0\.\d+x there/
        )
      }
    ]);
    // arrays a GPU cell makes stay resident: the figure with the data on the device stands
    expect(cell(4)?.suggestions.map(s => s.rule)).toEqual(['GPU101']);
    const loaded = loadFile(PY);
    if (!('cells' in loaded)) {
      throw new Error(loaded.message);
    }
    const plan = rewriteNotebook(loaded.cells, { parser: await parser() });
    // cell 4's 4 ms on the CPU (and the copy of b back to the host) pay for neither loading its
    // kernels nor setting up CUB in a fresh kernel: it stays on the host too, saying so
    expect(plan.gpuCells).toEqual([3]);
    expect(plan.changes.find(c => c.cellIndex === 4)?.summary).toMatch(/^stays on the host: its [\d.]+ ms on the CPU cannot pay for loading \d+ built-in kernels, CUB's reductions .*, where it would copy b back \([\d.]+ MB, [\d.]+ ms\)/);
    expect(plan.changes.find(c => c.cellIndex === 2)?.summary).toMatch(/^stays on the host: est, truth are host arrays no later cell reads/);
  });
});

describe('examples/ci/check-new-findings.sh', () => {
  test('passes on the baseline, fails on a new finding, says how to start without one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuopt-ci-'));
    // the command as `pip install` puts it on PATH
    const binDir = join(dir, 'bin');
    execFileSync('mkdir', ['-p', binDir]);
    writeFileSync(join(binDir, 'gpuoptimize'), `#!/bin/sh\nexec "${process.execPath}" "${BUNDLE}" "$@"\n`, { mode: 0o755 });
    const nbDir = join(dir, 'notebooks');
    execFileSync('mkdir', ['-p', nbDir]);
    copyFileSync(join(FIX, 'numpy_pipeline.ipynb'), join(nbDir, 'a.ipynb'));
    const gate = (): number =>
      spawnSync('bash', [join(ROOT, 'examples', 'ci', 'check-new-findings.sh'), 'notebooks', 'base.json'], {
        cwd: dir,
        env: { ...process.env, PATH: `${binDir}:${process.env.PATH}` }
      }).status ?? -1;
    expect(gate()).toBe(2); // no baseline yet
    const baseline = spawnSync(process.execPath, [BUNDLE, 'analyze', 'notebooks', '--format', 'json'], {
      cwd: dir,
      encoding: 'utf8'
    });
    writeFileSync(join(dir, 'base.json'), baseline.stdout);
    expect(gate()).toBe(0);
    copyFileSync(join(FIX, 'script.py'), join(nbDir, 'new.py'));
    expect(gate()).toBe(1);
  });
});

describe('gpuoptimize fix', () => {
  test('says under each cell whose draws move to cuRAND that its random numbers, and what follows from them, change', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuopt-'));
    const r = run(['fix', join(FIX, 'random_streams.ipynb'), '-o', join(dir, 'out.ipynb')]);
    expect(r.code).toBe(0);
    const headers = r.stdout.split('\n').filter(l => /^  cell \d+: /.test(l) || /^    random streams change: /.test(l));
    expect(headers.map(l => l.replace(/^(  cell \d+: \S+).*$/, '$1'))).toEqual([
      '  cell 1: imports',
      '  cell 2: GPU104',
      `    random streams change: ${RANDOM_STREAMS_NOTE}`,
      // the chain on the draws moves without drawing anything itself
      '  cell 3: GPU103',
      // array work and np.random.rand -> cp.random.rand: the engine's note says cuRAND draws them
      '  cell 4: GPU101',
      `    random streams change: ${RANDOM_STREAMS_NOTE}`,
      // a cell the array rules refuse says why
      '  cell 5: stays',
      // a cell too small for the GPU says so, and draws nothing on the device
      '  cell 7: stays'
    ]);
  });

  test("the plan marks the GPU cells whose rewrite draws on the device (fix's note needs no second analysis)", async () => {
    const loaded = loadFile(join(FIX, 'random_streams.ipynb'));
    if (!('cells' in loaded)) {
      throw new Error(loaded.message);
    }
    const plan = rewriteNotebook(loaded.cells, { parser: await parser() });
    const gpu = plan.changes.filter(c => c.rule !== undefined);
    expect(gpu.map(c => [c.cellIndex, c.rule, c.randomOnDevice ?? false])).toEqual([
      [2, 'GPU104', true],
      [3, 'GPU103', false],
      [4, 'GPU101', true]
    ]);
    // marked exactly where the rewritten cell draws with CuPy
    for (const c of gpu) {
      expect([c.cellIndex, /\bcp\.random\.|\brng\.normal\(/.test(plan.cells[c.cellIndex].source)]).toEqual([c.cellIndex, c.randomOnDevice === true]);
    }
  });

  test('counts as changes only the cells whose source changed, not the ones kept on the host with a reason', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuopt-'));
    const input = join(dir, 'small.py');
    // three cells the array rules would rewrite, each too small to pay for what it loads
    writeFileSync(
      input,
      [
        '# %%\nimport numpy as np\nfrom scipy import ndimage\na = np.random.default_rng(0).random((600, 600))\n',
        '# %%\nb = ndimage.shift(a, (0.5, 0.25))\nprint(b.sum())\n',
        '# %%\nc = ndimage.shift(a * 2.0, (1.5, 0.75))\nprint(c.sum())\n'
      ].join('\n')
    );
    const r = run(['fix', input, '-o', join(dir, 'small.gpu.ipynb'), '--even-if-slower']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/: 0 change\(s\) from /);
    expect(r.stdout).toMatch(/\n {2}kept on the host: cells 0, 1, 2: /);
    expect(r.stdout).toMatch(/\n {2}cell 1: stays on the host: /);
  });

  test('-o OUT.py writes a percent-format script: a script input keeps its markers, titles and comments byte for byte, only code cells change', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuopt-'));
    const input = join(dir, 'chain.py');
    const text = [
      '# A script with a header before the first marker',
      '# %% imports',
      'import numpy as np',
      '',
      '# %% [markdown]',
      '# A large elementwise chain',
      '',
      '# %%',
      'x = np.random.default_rng(0).random(50_000_000, dtype=np.float32)',
      '',
      '#%% the chain',
      'y = np.sqrt(x * x + 1.0) * np.exp(-x)',
      'print(float(y.mean()))',
      ''
    ].join('\n');
    writeFileSync(input, text);
    const out = join(dir, 'chain.gpu.py');
    const r = run(['fix', input, '-o', out, '--even-if-slower']);
    expect(r.code).toBe(0);
    const written = readFileSync(out, 'utf8');
    expect(written.trimStart().startsWith('{')).toBe(false);
    const before = parsePythonFile(input, text);
    const after = parsePythonFile(out, written);
    expect(after.cells.map(c => c.kind)).toEqual(before.cells.map(c => c.kind));
    // the marker lines (titles included) and the header are the input's own
    const kept = (t: string): string[] => t.split('\n').filter(l => /^#\s*%%/.test(l) || l.startsWith('# A script'));
    expect(kept(written)).toEqual(kept(text));
    expect(after.cells[2].source).toBe(before.cells[2].source);
    expect(after.cells[1].source).toMatch(/^import numpy as np\nimport cupy as cp\n/);
    expect(after.cells[4].source).toMatch(/^y = y_kernel\(x\)\n/);
    // the same cells the .ipynb output has
    const nbOut = join(dir, 'chain.gpu.ipynb');
    expect(run(['fix', input, '-o', nbOut, '--even-if-slower']).code).toBe(0);
    const nb = JSON.parse(readFileSync(nbOut, 'utf8')) as { cells: { source: string | string[] }[] };
    expect(after.cells.map(c => c.source)).toEqual(nb.cells.map(c => (Array.isArray(c.source) ? c.source.join('') : c.source)));
  });

  test('-o OUT.py from a notebook writes its cells as a percent-format script (markdown as comments)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuopt-'));
    const out = join(dir, 'pipeline.gpu.py');
    const r = run(['fix', join(FIX, 'numpy_pipeline.ipynb'), '-o', out, '--even-if-slower']);
    expect(r.code).toBe(0);
    const written = readFileSync(out, 'utf8');
    expect(written).toMatch(/^# %% \[markdown\]\n# # Signal pipeline\n/);
    expect(written).toMatch(/\n# %%\nimport numpy as np\nimport cupy as cp\n/);
    const back = parsePythonFile(out, written);
    const nb = JSON.parse(readFileSync(join(FIX, 'numpy_pipeline.ipynb'), 'utf8')) as { cells: { cell_type: string }[] };
    expect(back.cells.map(c => c.kind)).toEqual(nb.cells.map(c => c.cell_type));
  });

  test('writes a new notebook and never overwrites without --force', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpuopt-'));
    const input = join(dir, 'pipeline.ipynb');
    // the pipeline with 30M values instead of 50M: its GPU cells save ~0.45 s of the CPU's work
    // (np.random.rand at 6.6 ns a value, as the H200's host draws them), less than importing CuPy
    // and loading their kernels cost each session: not written without --even-if-slower (--force
    // only overwrites), and it says why (with 50M, ~0.75 s, it pays: 1.32x)
    writeFileSync(input, readFileSync(join(FIX, 'numpy_pipeline.ipynb'), 'utf8').replace('50_000_000', '30_000_000'));
    const before = readFileSync(input, 'utf8');
    const out = join(dir, 'pipeline.gpu.ipynb');
    const refused = run(['fix', input]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /^not written: the whole-notebook rewrite is not predicted to pay for this notebook: importing CuPy and loading what its cells use \(~[\d.]+ ms\) (costs more than|takes most of what) the GPU saves on their work .*; pass --even-if-slower to write it anyway\n {2}it would run cells? [\d, ]+ on the GPU\n( {2}kept on the host: cells? [\d, ]+: [^\n]+\n)?$/
    );
    expect(existsSync(out)).toBe(false);
    expect(run(['fix', input, '--force']).code).toBe(1);
    expect(existsSync(out)).toBe(false);
    const r = run(['fix', input, '--even-if-slower']);
    expect(r.code).toBe(0);
    expect(existsSync(out)).toBe(true);
    expect(r.stdout).toMatch(/change\(s\)/);
    expect(r.stdout).toMatch(/\n {2}warning: the whole-notebook rewrite is not predicted to pay .* per session \(import cupy and its first kernel ~[\d.]+ ms, first uses of libraries and kernels ~[\d.]+ ms included; .*this machine's first run adds ~[\d.]+ m?s of kernel compiles/);
    expect(readFileSync(input, 'utf8')).toBe(before);
    const nb = JSON.parse(readFileSync(out, 'utf8'));
    const sources: string[] = nb.cells.map((c: { source: string | string[] }) =>
      Array.isArray(c.source) ? c.source.join('') : c.source
    );
    expect(sources.join('\n')).toMatch(/import cupy as cp/);
    // again: refuses to overwrite its own output, and the input itself
    expect(run(['fix', input, '--even-if-slower']).code).toBe(2);
    expect(run(['fix', input, '--even-if-slower', '--force']).code).toBe(0);
    const self = run(['fix', input, '-o', input]);
    expect(self.code).toBe(2);
    expect(self.stderr).toMatch(/input notebook/);
    expect(readFileSync(input, 'utf8')).toBe(before);
  });
});
