/**
 * The CLI's three report formats: JSON (the contract in DESIGN.md and
 * schema/cli/report.schema.json), SARIF 2.1.0 for code-scanning tools, and text for people.
 */
import type { Log, ReportingDescriptor, Result } from 'sarif';
import { DEFAULT_DEVICE_PROFILE, h200Figures, measuredOnDevice } from '../analysis/costmodel';
import type { DeviceProfile, H200Figure, Suggestion } from '../analysis/types';
import type { LoadedFile, SkippedFile } from './sources';
import { createHash } from 'crypto';
import { unifiedDiff } from './diff';

/**
 * A finding's identity across runs: the rule and the cell's text (whitespace-trimmed), not
 * the cell's position, so inserting cells above does not make old findings look new.
 */
export function fingerprint(path: string, s: Pick<Suggestion, 'rule' | 'original'>): string {
  return createHash('sha256')
    .update(`${path.split('\\').join('/')}\0${s.rule}\0${s.original.trim()}`)
    .digest('hex')
    .slice(0, 32);
}

/** Why the engine kept a cell on the CPU: a rule that recognised the cell and declined it. */
export interface CellRefusal {
  cellIndex: number;
  rule: string;
  reason: string;
}

export interface FileReport {
  file: LoadedFile | SkippedFile;
  suggestions: Suggestion[];
  /** Not findings: they never change the exit code. */
  refusals: CellRefusal[];
  diagnostics: { cellIndex: number; message: string }[];
}

/** How the text and SARIF reports name a refusal. */
export const refusalText = (r: CellRefusal): string => `kept on the CPU (${r.rule}): ${r.reason}`;

function isLoaded(f: LoadedFile | SkippedFile): f is LoadedFile {
  return 'cells' in f;
}

/** Groups suggestions by cell index, in cell order. */
function byCell(suggestions: Suggestion[]): Map<number, Suggestion[]> {
  const m = new Map<number, Suggestion[]>();
  for (const s of [...suggestions].sort((a, b) => a.cellIndex - b.cellIndex)) {
    const list = m.get(s.cellIndex) ?? [];
    list.push(s);
    m.set(s.cellIndex, list);
  }
  return m;
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

const H200_FIGURE_KEYS: Record<H200Figure, string> = {
  deviceBandwidth: 'device_bandwidth',
  copyRates: 'copy_rates',
  launchOverhead: 'launch_overhead',
  libraryFlops: 'library_flops'
};

/**
 * Which device the predicted figures are for, in the JSON report (`device`) and the SARIF run's
 * properties: its name, whether it came from a `--device` report, and which of its figures are
 * the NVIDIA H200 test machine's (all of them without a report).
 */
export function deviceSummary(device: DeviceProfile | null): { name: string; from_report: boolean; h200_figures: string[] } {
  const profile = device ?? DEFAULT_DEVICE_PROFILE;
  const all = Object.values(H200_FIGURE_KEYS);
  return {
    name: profile.name,
    from_report: device !== null,
    h200_figures: device === null ? all : h200Figures(device).map(f => H200_FIGURE_KEYS[f])
  };
}

/** `device`: the `--device` profile, null for the H200 defaults. */
export function toJSONReport(reports: FileReport[], device: DeviceProfile | null = null): object {
  return {
    version: 1,
    device: deviceSummary(device),
    files: reports.map(r => {
      const cells = new Map<number, { index: number; suggestions: object[]; refusals: { rule: string; reason: string }[]; diagnostics: string[] }>();
      const cellEntry = (index: number) => {
        let c = cells.get(index);
        if (!c) {
          c = { index, suggestions: [], refusals: [], diagnostics: [] };
          cells.set(index, c);
        }
        return c;
      };
      for (const [index, list] of byCell(r.suggestions)) {
        cellEntry(index).suggestions.push(
          ...list.map(s => ({
            rule: s.rule,
            library: s.library,
            title: s.title,
            confidence: round(s.confidence, 3),
            predicted_speedup: round(s.predicted_speedup, 2),
            candidate: s.candidate,
            fingerprint: fingerprint(r.file.path, s),
            reason: s.prediction.reason,
            reference: s.reference,
            notes: s.notes,
            needs_kernel_restart: Boolean(s.needsKernelRestart)
          }))
        );
      }
      for (const x of r.refusals) {
        cellEntry(x.cellIndex).refusals.push({ rule: x.rule, reason: x.reason });
      }
      for (const d of r.diagnostics) {
        cellEntry(d.cellIndex).diagnostics.push(d.message);
      }
      const status = isLoaded(r.file) ? 'analysed' : r.file.severity === 'note' ? 'skipped' : 'error';
      return {
        path: r.file.path,
        status,
        ...(isLoaded(r.file) ? {} : { message: r.file.message }),
        cells: [...cells.values()].sort((a, b) => a.index - b.index)
      };
    })
  };
}

/** The first line of the cell that the candidate changes (0-based within the cell). */
function firstChangedLine(s: Suggestion): number {
  const a = s.original.split('\n');
  const b = s.candidate.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) {
    i++;
  }
  return Math.min(i, Math.max(a.length - 1, 0));
}

export function toSARIF(
  reports: FileReport[],
  version: string,
  ruleDocs: Map<string, { title: string; reference: string }>,
  device: DeviceProfile | null = null
): Log {
  const results: Result[] = [];
  const usedRules = new Map<string, { title: string; reference: string }>();
  for (const r of reports) {
    if (!isLoaded(r.file)) {
      continue;
    }
    const file = r.file;
    const location = (cellIndex: number, lineInCell: number): Result['locations'] => [
      {
        physicalLocation: {
          artifactLocation: { uri: file.path.split('\\').join('/') },
          region: {
            startLine: (file.kind === 'python' && file.cellStartLines ? file.cellStartLines[cellIndex] ?? 0 : 0) + lineInCell + 1
          }
        },
        ...(file.kind === 'notebook' ? { logicalLocations: [{ name: `cell ${cellIndex}`, kind: 'module' }] } : {})
      }
    ];
    for (const s of r.suggestions) {
      usedRules.set(s.rule, ruleDocs.get(s.rule) ?? { title: s.title, reference: s.reference });
      results.push({
        ruleId: s.rule,
        level: 'note',
        message: {
          text: `${s.title} (${s.library}; predicted ${s.predicted_speedup.toFixed(1)}x: ${s.prediction.reason})`
        },
        locations: location(s.cellIndex, firstChangedLine(s)),
        partialFingerprints: { gpuoptimize: fingerprint(file.path, s) },
        properties: {
          cellIndex: s.cellIndex,
          library: s.library,
          confidence: s.confidence,
          predictedSpeedup: s.predicted_speedup
        }
      });
    }
    // Refusals are notes too (SARIF's `kind` other than `fail` would demand level `none`), told
    // apart by `properties.keptOnCPU` and a fingerprint of their own.
    for (const x of r.refusals) {
      const docs = ruleDocs.get(x.rule);
      if (docs) {
        usedRules.set(x.rule, docs);
      }
      const source = file.cells[x.cellIndex]?.source ?? '';
      results.push({
        ruleId: x.rule,
        level: 'note',
        message: { text: refusalText(x) },
        locations: location(x.cellIndex, Math.max(0, source.split('\n').findIndex(l => l.trim() !== ''))),
        partialFingerprints: { gpuoptimize: fingerprint(file.path, { rule: `${x.rule}/kept`, original: source }) },
        properties: { cellIndex: x.cellIndex, keptOnCPU: true }
      });
    }
  }
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'gpuoptimize',
            version,
            informationUri: 'https://github.com/jupyterlab-gpuoptimize',
            rules: [...usedRules.entries()]
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([id, d]): ReportingDescriptor => ({
                id,
                name: id,
                shortDescription: { text: d.title },
                helpUri: d.reference
              }))
          }
        },
        results,
        properties: { device: deviceSummary(device) }
      }
    ]
  };
}

export interface TextStyle {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

export const plainStyle: TextStyle = {
  bold: s => s,
  dim: s => s,
  red: s => s,
  green: s => s,
  yellow: s => s
};

export const ansiStyle: TextStyle = {
  bold: s => `\x1b[1m${s}\x1b[22m`,
  dim: s => `\x1b[2m${s}\x1b[22m`,
  red: s => `\x1b[31m${s}\x1b[39m`,
  green: s => `\x1b[32m${s}\x1b[39m`,
  yellow: s => `\x1b[33m${s}\x1b[39m`
};

/**
 * The text report's last line when it has suggestions: which device the predicted speedups are
 * for (the H200 test machine's figures unless `--device` gave the kernel's report).
 */
export function deviceNote(device: DeviceProfile | null): string {
  if (device === null) {
    return 'Predicted for an NVIDIA H200 (the test machine\'s figures); --device FILE predicts for your GPU.';
  }
  if (!measuredOnDevice(device)) {
    return `Predicted for ${device.name}'s memory with the NVIDIA H200's rates (the report has no device calibration).`;
  }
  const words: Record<H200Figure, string> = {
    deviceBandwidth: 'device bandwidth',
    copyRates: 'copy rates',
    launchOverhead: 'launch cost',
    libraryFlops: 'library FLOP rates (matmul, FFT, sort, filters)'
  };
  const h200 = h200Figures(device);
  const measured = (Object.keys(words) as H200Figure[]).filter(f => f !== 'libraryFlops' && !h200.includes(f));
  const list = (fs: H200Figure[]) => (fs.length <= 1 ? fs.map(f => words[f]).join('') : `${fs.slice(0, -1).map(f => words[f]).join(', ')} and ${words[fs[fs.length - 1]]}`);
  return (
    `Predicted for ${device.name}, with its measured ${list(measured)}` +
    (h200.length > 0 ? `; its ${list(h200)} ${h200.length === 1 && (h200[0] === 'deviceBandwidth' || h200[0] === 'launchOverhead') ? 'is' : 'are'} the NVIDIA H200's.` : '.')
  );
}

/**
 * Each file's cells in order: their diagnostics, suggestions (with a short diff and notes), then
 * why the engine kept them on the CPU. `note`: a last line said when there are suggestions
 * (e.g. `deviceNote`).
 */
export function toText(reports: FileReport[], style: TextStyle, note?: string): string {
  const out: string[] = [];
  let total = 0;
  let kept = 0;
  for (const r of reports) {
    if (!isLoaded(r.file)) {
      const tag = r.file.severity === 'error' ? style.red('error') : style.yellow('skipped');
      out.push(`${style.bold(r.file.path)}: ${tag}: ${r.file.message}`);
      continue;
    }
    const at = (cellIndex: number): string => `${style.bold(r.file.path)}:cell ${cellIndex}:`;
    const indices = [...new Set([...r.diagnostics, ...r.suggestions, ...r.refusals].map(x => x.cellIndex))].sort((a, b) => a - b);
    for (const index of indices) {
      for (const d of r.diagnostics.filter(x => x.cellIndex === index)) {
        out.push(`${at(index)} ${style.yellow('note')}: ${d.message}`);
      }
      for (const s of r.suggestions.filter(x => x.cellIndex === index)) {
        total++;
        out.push(
          `${at(index)} ${style.bold(s.rule)} [${s.library}] ${s.title} ` +
            `(predicted ${s.predicted_speedup.toFixed(1)}x, confidence ${s.confidence.toFixed(2)})`
        );
        out.push(style.dim(`    ${s.prediction.reason}`));
        for (const line of unifiedDiff(s.original, s.candidate)) {
          const colour = line.startsWith('+') ? style.green : line.startsWith('-') ? style.red : style.dim;
          out.push(`    ${colour(line)}`);
        }
        for (const n of s.notes) {
          out.push(`    ${style.yellow('note')}: ${n}`);
        }
      }
      const refusals = r.refusals.filter(x => x.cellIndex === index);
      kept += refusals.length > 0 ? 1 : 0;
      for (const x of refusals) {
        out.push(`${at(index)} ${style.dim(refusalText(x))}`);
      }
    }
  }
  const analysed = reports.filter(r => isLoaded(r.file)).length;
  const keptLine = kept > 0 ? `; ${kept} cell(s) kept on the CPU, for the reasons above` : '';
  out.push(
    total === 0
      ? `No GPU rewrites suggested in ${analysed} file(s)${keptLine}.`
      : `${total} suggestion(s) in ${analysed} file(s)${keptLine}.`
  );
  if (total > 0 && note) {
    out.push(style.dim(note));
  }
  return out.join('\n');
}
