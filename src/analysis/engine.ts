/**
 * The engine: runs the rules over a notebook and returns suggestions, refusals and diagnostics.
 *
 * `NotebookAnalyzer` keeps parses between updates (one re-parse per edited cell); rules rerun on
 * every update because a constant or an import in one cell changes what another cell means.
 */
import { DEFAULT_DEVICE_PROFILE } from './costmodel';
import { CellCache, CellModel, NotebookModel } from './notebook';
import { getParser, PythonParser } from './parser';
import { RULES } from './rules/registry';
import type { Rule, RuleOptions } from './rules/types';
import type { AnalysisResult, CellInput, DeviceProfile, Refusal, RuleFamily, RuntimeValueInfo, Suggestion } from './types';

export interface AnalyzerOptions {
  /** Families to run (default: all). */
  families?: RuleFamily[];
  /** Rule ids to skip (like ruff's `ignore`). */
  disabledRules?: string[];
  /** Suggestions predicted below this speedup are refused as not worth it (default 1.5). */
  minSpeedup?: number;
  device?: DeviceProfile;
  /** The rules to run (default: the registry). */
  rules?: readonly Rule[];
}

export class NotebookAnalyzer {
  private readonly cache: CellCache;
  private options: AnalyzerOptions;
  private lastModel: NotebookModel | null = null;

  constructor(options: AnalyzerOptions = {}, parser: PythonParser = getParser()) {
    this.cache = new CellCache(parser);
    this.options = options;
    this.parser = parser;
  }

  private readonly parser: PythonParser;

  /** Parses performed so far (each edited cell costs one). */
  get parseCount(): number {
    return this.parser.parseCount;
  }

  setOptions(options: AnalyzerOptions): void {
    this.options = options;
  }

  /** The notebook model of the last update (for the plan and the UI). */
  get model(): NotebookModel | null {
    return this.lastModel;
  }

  /** Analyses the notebook as it is now. Never throws on bad input: problems become diagnostics. */
  update(cells: CellInput[], runtime: Record<string, RuntimeValueInfo> = {}): AnalysisResult {
    const diagnostics: AnalysisResult['diagnostics'] = [];
    const models: CellModel[] = [];
    for (const input of cells) {
      try {
        const cell = this.cache.get(input);
        models.push(cell);
        if (cell.skipped) {
          diagnostics.push({ cellId: cell.id, cellIndex: cell.index, message: cell.skipped });
        } else if (cell.syntaxError) {
          diagnostics.push({
            cellId: cell.id,
            cellIndex: cell.index,
            message: `syntax error near line ${firstErrorLine(cell)}: not analysed`
          });
        }
      } catch (e) {
        diagnostics.push({ cellId: input.id, cellIndex: input.index, message: `could not parse: ${(e as Error).message}` });
      }
    }
    this.cache.retain(new Set(cells.map(c => c.id)));
    const model = new NotebookModel(models, runtime);
    this.lastModel = model;

    const ruleOptions: RuleOptions = {
      minSpeedup: this.options.minSpeedup ?? 1.5,
      device: this.options.device ?? DEFAULT_DEVICE_PROFILE
    };
    const disabled = new Set(this.options.disabledRules ?? []);
    const rules = (this.options.rules ?? RULES).filter(
      r => !disabled.has(r.id) && (!this.options.families || this.options.families.includes(r.family))
    );

    const suggestions: Suggestion[] = [];
    const refusals: Refusal[] = [];
    for (const cell of models) {
      if (cell.kind !== 'code' || !cell.tree || cell.syntaxError) {
        continue;
      }
      const shared = new Map<string, unknown>();
      const claimed = new Set<RuleFamily>();
      for (const rule of rules) {
        if (claimed.has(rule.family)) {
          continue;
        }
        let outcome;
        try {
          outcome = rule.check({ cell, model, options: ruleOptions, shared });
        } catch (e) {
          diagnostics.push({ cellId: cell.id, cellIndex: cell.index, message: `${rule.id} failed: ${(e as Error).message}` });
          continue;
        }
        if (!outcome) {
          continue;
        }
        claimed.add(rule.family);
        if (outcome.kind === 'refuse') {
          refusals.push({ rule: rule.id, cellId: cell.id, cellIndex: cell.index, reason: outcome.reason });
          continue;
        }
        suggestions.push({
          rule: rule.id,
          library: rule.library,
          title: outcome.title ?? rule.title,
          confidence: round(outcome.confidence, 2),
          predicted_speedup: round(outcome.prediction.speedup, 1),
          prediction: outcome.prediction,
          cellId: cell.id,
          cellIndex: cell.index,
          original: cell.source,
          edits: outcome.edits,
          candidate: outcome.candidate,
          imports: outcome.imports,
          explanation: outcome.explanation,
          reference: outcome.reference ?? rule.reference,
          notes: outcome.notes,
          ...(outcome.needsKernelRestart ? { needsKernelRestart: true } : {})
        });
      }
    }
    return { suggestions, refusals, diagnostics };
  }
}

/** One-shot analysis (the CLI): a fresh analyzer, one update. */
export function analyzeNotebook(
  cells: CellInput[],
  opts: AnalyzerOptions & { runtime?: Record<string, RuntimeValueInfo>; parser?: PythonParser } = {}
): AnalysisResult {
  const analyzer = new NotebookAnalyzer(opts, opts.parser ?? getParser());
  return analyzer.update(cells, opts.runtime ?? {});
}

function round(x: number, digits: number): number {
  if (!Number.isFinite(x)) {
    return x;
  }
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function firstErrorLine(cell: CellModel): number {
  let line = 1;
  const root = cell.tree?.rootNode;
  if (!root) {
    return line;
  }
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.isError || n.isMissing) {
      line = n.startPosition.row + 1;
      break;
    }
    if (n.hasError) {
      for (const c of [...n.children].reverse()) {
        if (c) {
          stack.push(c);
        }
      }
    }
  }
  return line;
}
