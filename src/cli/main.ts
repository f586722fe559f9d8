/**
 * `gpuoptimize`: the analysis engine for CI, scripts and people outside JupyterLab.
 *
 *   gpuoptimize analyze PATH... [--format text|json|sarif] [--select IDS] [--ignore IDS]
 *                               [--min-speedup X] [--device FILE] [--no-refusals] [--no-color]
 *   gpuoptimize fix NOTEBOOK [-o OUT] [--force] [--even-if-slower] [--device FILE]
 *
 * `fix` writes nothing (exit 1) when the rewrite is predicted to lose time every session
 * (`ResidencyPlan.figures`), unless `--even-if-slower`: the panel asks before writing it the same
 * way. `--force` only lets `fix` replace an existing OUT. Either way it prints, under the
 * whole-notebook figure, the cells the rewrite keeps on the host grouped by why (predicted under
 * the minimum speedup, under 50 ms saved per session, copies, array sizes unknown, memory), and,
 * when it writes, each cell's change with the reason in full.
 * Exit codes, as linters use them: 0 no findings, 1 findings, 2 usage or input errors
 * (including "nothing could be analysed"). Findings are suggestions; the reasons the engine
 * kept cells on the CPU (refusals) are reported but are not findings.
 */
import { existsSync, readFileSync, writeFileSync } from 'fs';
import { basename, dirname, extname, join, resolve } from 'path';
import type { PythonParser } from '../analysis/parser';
import { initParser } from '../analysis/parser';
import { NotebookAnalyzer } from '../analysis/engine';
import { RULES } from '../analysis/rules/registry';
import { hostReasonsInWords, rewriteNotebook } from '../analysis/plan';
import { deviceProfileFromReport } from '../analysis/costmodel';
import type { CellInput, DeviceProfile } from '../analysis/types';
import { ProtocolError, validateEnvironment } from '../kernel/protocol';
import { expandPaths, loadFile, replacePythonCells, toPercentScript, type LoadedFile, type SkippedFile } from './sources';
import { ansiStyle, deviceNote, fingerprint, plainStyle, toJSONReport, toSARIF, toText, type FileReport } from './report';
import { unifiedDiff } from './diff';

declare const __CLI_VERSION__: string;
const VERSION = typeof __CLI_VERSION__ === 'string' ? __CLI_VERSION__ : '0.0.0-dev';

export const USAGE = `usage: gpuoptimize <command> [options]

commands:
  analyze PATH...   report GPU rewrites for notebooks (.ipynb), Python files (.py) and folders
      --format text|json|sarif   output format (default: text)
      --select IDS               only these rules or prefixes, comma separated (GPU101,GPU1)
      --ignore IDS               skip these rules or prefixes
      --min-speedup X            only suggestions predicted at least X times faster
      --baseline FILE            report only findings not in FILE (an earlier --format json report)
      --device FILE              predict for the GPU FILE describes: the JSON that
                                 %gpuoptimize doctor --calibrate --json prints in its kernel
                                 (default: figures measured on an NVIDIA H200)
      --no-refusals              leave out why cells are kept on the CPU (never findings)
      --no-color                 no colours, even on a terminal
  fix NOTEBOOK      write the whole-notebook GPU rewrite (residency plan applied) as a new notebook
      -o, --output OUT           where to write (default: NOTEBOOK with .gpu.ipynb)
      --force                    overwrite OUT if it exists (needed when OUT is NOTEBOOK)
      --even-if-slower           write the rewrite even when it is not predicted to pay
                                 (a later session at least 1.2x faster)
      --device FILE              as for analyze

exit codes: 0 no findings (suggestions), 1 findings, 2 usage or input errors;
fix: 0 written, 1 not written (the rewrite is not predicted to pay; --even-if-slower writes it),
     2 errors
`;

export class UsageError extends Error {}

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTTY: boolean;
  env: Record<string, string | undefined>;
}

interface AnalyzeOptions {
  paths: string[];
  format: 'text' | 'json' | 'sarif';
  select: string[];
  ignore: string[];
  minSpeedup: number;
  color: boolean;
  refusals: boolean;
  baseline: string | null;
  device: string | null;
}

function splitIds(v: string): string[] {
  return v
    .split(',')
    .map(s => s.trim().toUpperCase())
    .filter(Boolean);
}

function takeValue(args: string[], i: number, flag: string): string {
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--')) {
    throw new UsageError(`${flag} needs a value`);
  }
  return v;
}

export function parseAnalyzeArgs(args: string[]): AnalyzeOptions {
  const o: AnalyzeOptions = { paths: [], format: 'text', select: [], ignore: [], minSpeedup: 0, color: true, refusals: true, baseline: null, device: null };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string => {
      if (inline !== undefined) {
        return inline;
      }
      const v = takeValue(args, i, flag);
      i++;
      return v;
    };
    switch (flag) {
      case '--format': {
        const f = value();
        if (f !== 'text' && f !== 'json' && f !== 'sarif') {
          throw new UsageError(`unknown format ${f}: expected text, json or sarif`);
        }
        o.format = f;
        break;
      }
      case '--select':
        o.select.push(...splitIds(value()));
        break;
      case '--ignore':
        o.ignore.push(...splitIds(value()));
        break;
      case '--min-speedup': {
        const v = value();
        const x = Number(v);
        if (!Number.isFinite(x) || x < 0) {
          throw new UsageError(`--min-speedup needs a non-negative number, got ${v}`);
        }
        o.minSpeedup = x;
        break;
      }
      case '--baseline':
        o.baseline = value();
        break;
      case '--device':
        o.device = value();
        break;
      case '--no-color':
        o.color = false;
        break;
      case '--no-refusals':
        o.refusals = false;
        break;
      default:
        if (a.startsWith('-')) {
          throw new UsageError(`unknown option ${a}`);
        }
        o.paths.push(a);
    }
  }
  if (o.paths.length === 0) {
    throw new UsageError('analyze needs at least one PATH');
  }
  return o;
}

const matchesAny = (rule: string, ids: string[]): boolean => ids.some(id => rule.startsWith(id));

async function parser(): Promise<PythonParser> {
  // The command always runs bundled (scripts/build-cli.js), with both wasm files beside it.
  const wasm = (name: string): string => {
    const p = join(__dirname, name);
    if (!existsSync(p)) {
      throw new Error(`${p} is missing: rebuild the command with \`npm run build:cli\``);
    }
    return p;
  };
  const runtime = wasm('tree-sitter.wasm');
  return initParser({
    locateFile: () => runtime,
    languageWasm: new Uint8Array(readFileSync(wasm('tree-sitter-python.wasm')))
  });
}

/** The fingerprints of an earlier JSON report's findings (for --baseline). */
export function readBaseline(path: string): Set<string> {
  let report: unknown;
  try {
    report = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--baseline ${path}: cannot read a JSON report (${(e as Error).message})`);
  }
  const prints = new Set<string>();
  const files = (report as { files?: unknown }).files;
  if (!Array.isArray(files)) {
    throw new UsageError(`--baseline ${path}: not a gpuoptimize JSON report (no "files")`);
  }
  for (const f of files as { cells?: { suggestions?: { fingerprint?: unknown }[] }[] }[]) {
    for (const c of f.cells ?? []) {
      for (const s of c.suggestions ?? []) {
        if (typeof s.fingerprint === 'string') {
          prints.add(s.fingerprint);
        }
      }
    }
  }
  return prints;
}

/**
 * The device profile of a `--device` file: the Environment that `%gpuoptimize doctor --json`
 * prints, or a hello/doctor reply holding one. Null when it names no GPU (the defaults stand).
 */
export function readDeviceProfile(path: string): DeviceProfile | null {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--device ${path}: cannot read a JSON device report (${(e as Error).message})`);
  }
  const wrapped = (data as { environment?: unknown } | null)?.environment;
  try {
    return deviceProfileFromReport(validateEnvironment(wrapped ?? data));
  } catch (e) {
    if (e instanceof ProtocolError) {
      throw new UsageError(`--device ${path}: not the JSON of %gpuoptimize doctor --json (${e.message})`);
    }
    throw e;
  }
}

/** The `--device` file's profile; a file without a GPU is said on stderr and leaves the defaults. */
function deviceOption(path: string | null, io: Io): DeviceProfile | null {
  if (path === null) {
    return null;
  }
  const profile = readDeviceProfile(path);
  if (profile === null) {
    io.stderr(`gpuoptimize: ${path} reports no GPU: predicting with the NVIDIA H200's figures\n`);
  }
  return profile;
}

function analyseFile(file: LoadedFile, opts: AnalyzeOptions, p: PythonParser, known: Set<string>, device: DeviceProfile | null): FileReport {
  const analyzer = new NotebookAnalyzer(device ? { device } : {}, p);
  const result = analyzer.update(file.cells);
  const selected = (rule: string): boolean => (opts.select.length === 0 || matchesAny(rule, opts.select)) && !matchesAny(rule, opts.ignore);
  const suggestions = result.suggestions.filter(
    s => selected(s.rule) && s.predicted_speedup >= opts.minSpeedup && !known.has(fingerprint(file.path, s))
  );
  return {
    file,
    suggestions,
    // not findings, so --min-speedup and --baseline leave them be; --select and --ignore name rules
    refusals: opts.refusals ? result.refusals.filter(x => selected(x.rule)).map(x => ({ cellIndex: x.cellIndex, rule: x.rule, reason: x.reason })) : [],
    diagnostics: result.diagnostics.map(d => ({ cellIndex: d.cellIndex, message: d.message }))
  };
}

export async function analyze(args: string[], io: Io): Promise<number> {
  const opts = parseAnalyzeArgs(args);
  const { files, missing } = expandPaths(opts.paths);
  for (const m of missing) {
    io.stderr(`gpuoptimize: ${m}: no such file or folder\n`);
  }
  if (files.length === 0) {
    io.stderr('gpuoptimize: no .ipynb or .py files to analyse\n');
    return 2;
  }
  const known = opts.baseline ? readBaseline(opts.baseline) : new Set<string>();
  const device = deviceOption(opts.device, io);
  const p = await parser();
  const reports: FileReport[] = [];
  for (const path of files) {
    const loaded: LoadedFile | SkippedFile = loadFile(path);
    if ('cells' in loaded) {
      try {
        reports.push(analyseFile(loaded, opts, p, known, device));
      } catch (e) {
        reports.push({
          file: { path, severity: 'error', message: `analysis failed: ${(e as Error).message}` },
          suggestions: [],
          refusals: [],
          diagnostics: []
        });
      }
    } else {
      reports.push({ file: loaded, suggestions: [], refusals: [], diagnostics: [] });
    }
  }
  if (opts.format === 'json') {
    io.stdout(JSON.stringify(toJSONReport(reports, device), null, 2) + '\n');
  } else if (opts.format === 'sarif') {
    const docs = new Map(RULES.map(r => [r.id, { title: r.title, reference: r.reference }]));
    io.stdout(JSON.stringify(toSARIF(reports, VERSION, docs, device), null, 2) + '\n');
  } else {
    const colour = opts.color && io.isTTY && !io.env.NO_COLOR;
    io.stdout(toText(reports, colour ? ansiStyle : plainStyle, deviceNote(device)) + '\n');
  }
  const analysed = reports.filter(r => 'cells' in r.file).length;
  const errors = reports.filter(r => !('cells' in r.file) && r.file.severity === 'error');
  for (const e of errors) {
    if (opts.format !== 'text') {
      io.stderr(`gpuoptimize: ${e.file.path}: ${(e.file as SkippedFile).message}\n`);
    }
  }
  // Nothing analysed because of errors is an error; files skipped on purpose (another
  // kernel language) are not.
  if (analysed === 0 && errors.length > 0) {
    return 2;
  }
  return reports.some(r => r.suggestions.length > 0) ? 1 : 0;
}

export function defaultFixOutput(input: string): string {
  const ext = extname(input);
  return join(dirname(input), `${basename(input, ext)}.gpu${ext === '.py' ? '.ipynb' : ext}`);
}

/** What `fix` says under each cell whose rewrite draws its random numbers on the device. */
export const RANDOM_STREAMS_NOTE =
  "this cell's random numbers come from cuRAND, not NumPy's generator: they and every result computed from them, here and in later cells, match the original statistically, not bit for bit";

export async function fix(args: string[], io: Io): Promise<number> {
  let input: string | undefined;
  let output: string | undefined;
  let force = false;
  let evenIfSlower = false;
  let devicePath: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-o' || a === '--output') {
      output = takeValue(args, i, a);
      i++;
    } else if (a === '--device') {
      devicePath = takeValue(args, i, a);
      i++;
    } else if (a === '--force') {
      force = true;
    } else if (a === '--even-if-slower') {
      evenIfSlower = true;
    } else if (a.startsWith('-')) {
      throw new UsageError(`unknown option ${a}`);
    } else if (input === undefined) {
      input = a;
    } else {
      throw new UsageError('fix takes one notebook');
    }
  }
  if (!input) {
    throw new UsageError('fix needs a NOTEBOOK');
  }
  const loaded = loadFile(input);
  if (!('cells' in loaded)) {
    io.stderr(`gpuoptimize: ${input}: ${loaded.message}\n`);
    return 2;
  }
  const out = output ?? defaultFixOutput(input);
  if (existsSync(out) && !force) {
    io.stderr(
      `gpuoptimize: ${out} exists; not overwriting it` +
        (resolve(out) === resolve(input) ? ' (that is the input notebook)' : '') +
        ': pass --force to replace it\n'
    );
    return 2;
  }
  const device = deviceOption(devicePath, io);
  const p = await parser();
  const rewrite = rewriteNotebook(loaded.cells, { parser: p, ...(device ? { device } : {}) });
  const style = io.isTTY && !io.env.NO_COLOR ? ansiStyle : plainStyle;
  // a rewrite predicted to lose time every session is not written unless asked for
  if (rewrite.figures && !rewrite.figures.pays && !evenIfSlower) {
    io.stdout(`${style.yellow('not written')}: ${rewrite.figures.summary}; pass --even-if-slower to write it anyway\n`);
    io.stdout(`  it would run cell${rewrite.gpuCells.length === 1 ? '' : 's'} ${rewrite.gpuCells.join(', ')} on the GPU\n`);
    const kept = hostReasonsInWords(rewrite.changes);
    if (kept) {
      io.stdout(`  kept on the host: ${kept}\n`);
    }
    return 1;
  }
  const nb = loaded.notebook ?? {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      language_info: { name: 'python' }
    },
    cells: loaded.cells.map(c => ({
      cell_type: c.kind,
      id: c.id,
      metadata: {},
      source: c.source,
      ...(c.kind === 'code' ? { outputs: [], execution_count: null } : {})
    }))
  };
  const byIndex = new Map<number, CellInput>(rewrite.cells.map(c => [c.index, c]));
  const cells = nb.cells.map((c, index) => {
    const r = byIndex.get(index);
    if (!r || r.source === loaded.cells[index]?.source) {
      return c;
    }
    // A rewritten cell's old outputs describe the old code: clear them.
    return { ...c, source: r.source, ...(c.cell_type === 'code' ? { outputs: [], execution_count: null } : {}) };
  });
  if (extname(out).toLowerCase() === '.py') {
    // a script out: the percent format, the input's own text where the input is a script
    const sources = loaded.cells.map(c => byIndex.get(c.index)?.source ?? c.source);
    writeFileSync(
      out,
      loaded.kind === 'python'
        ? replacePythonCells(readFileSync(input, 'utf8'), loaded, sources)
        : toPercentScript(loaded.cells.map((c, k) => ({ kind: nb.cells[k]?.cell_type ?? c.kind, source: sources[k] })))
    );
  } else {
    const written = { ...nb, metadata: { ...nb.metadata, gpuoptimize: { rewritten_from: basename(input), version: VERSION } }, cells };
    writeFileSync(out, JSON.stringify(written, null, 1) + '\n');
  }
  // cells whose source changed (a cell kept on the host with its reason only is no change)
  const changed = rewrite.changes.filter(ch => (byIndex.get(ch.cellIndex)?.source ?? '') !== (loaded.cells[ch.cellIndex]?.source ?? '')).length;
  io.stdout(`${style.bold(out)}: ${changed} change(s) from ${input}\n`);
  if (rewrite.figures) {
    io.stdout(`  ${rewrite.figures.pays ? 'predicted' : style.yellow('warning')}: ${rewrite.figures.summary}\n`);
  }
  // why cells the array rules would rewrite stay on the host, at a glance (each change says it in full)
  const kept = hostReasonsInWords(rewrite.changes);
  if (kept) {
    io.stdout(`  kept on the host: ${kept}\n`);
  }
  for (const ch of rewrite.changes) {
    io.stdout(`  cell ${ch.cellIndex}: ${ch.rule ? ch.rule + ' ' : ''}${ch.summary}\n`);
    if (ch.randomOnDevice) {
      io.stdout(`    ${style.yellow('random streams change')}: ${RANDOM_STREAMS_NOTE}\n`);
    }
    const before = loaded.cells[ch.cellIndex]?.source ?? '';
    const after = byIndex.get(ch.cellIndex)?.source ?? before;
    for (const line of unifiedDiff(before, after, 0)) {
      io.stdout(`      ${line}\n`);
    }
  }
  return 0;
}

export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'analyze':
        return await analyze(rest, io);
      case 'fix':
        return await fix(rest, io);
      case '--version':
      case '-V':
        io.stdout(`gpuoptimize ${VERSION}\n`);
        return 0;
      case '--help':
      case '-h':
      case 'help':
        io.stdout(USAGE);
        return 0;
      case undefined:
        io.stderr(USAGE);
        return 2;
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`gpuoptimize: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    io.stderr(`gpuoptimize: internal error: ${(e as Error).stack ?? String(e)}\n`);
    return 2;
  }
}
