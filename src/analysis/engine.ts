/**
 * The engine: runs the rules over a notebook and returns suggestions, refusals and diagnostics.
 *
 * `NotebookAnalyzer` keeps parses between updates (one re-parse per edited cell) and each code
 * cell's rule outcomes. While the rules look at a cell, the model records what they read of the
 * rest of the notebook (the bindings, values and runtime reports of the names they look up,
 * readers and writers, the set of bound names); on the next update a cell's outcomes are reused
 * when its source and index are the same and none of what it read changed, so editing one cell
 * re-runs the rules for that cell and for the cells whose inputs the edit changed. The result
 * is the same as a fresh analysis (test/unit/incremental.test.ts checks it).
 *
 * Every candidate a rule proposes is parsed (IPython syntax masked, as cells are) before it is
 * offered: one that does not parse, from a cell that did, is a bug in the rule, and becomes a
 * refusal naming the line instead of a suggestion (test/unit/candidate-parses.test.ts).
 */
import { candidateErrorLine, firstErrorLine } from './candidate';
import { DEFAULT_DEVICE_PROFILE } from './costmodel';
import { CellCache, CellModel, emptyReads, ModelChanges, ModelReads, NotebookModel } from './notebook';
import { getParser, PythonParser } from './parser';
import { RULES } from './rules/registry';
import type { Rule, RuleOptions } from './rules/types';
import type { AnalysisResult, CellInput, DeviceProfile, Refusal, RuleFamily, RuntimeValueInfo, Suggestion } from './types';

export interface AnalyzerOptions {
  /** Families to run (default: all). */
  families?: RuleFamily[];
  /** Rule ids to skip (like ruff's `ignore`). */
  disabledRules?: string[];
  /**
   * Rewrites predicted below this speedup are refused as not worth it (default 1.5): when
   * neither the single-cell figure (copies included) nor the device-resident one reaches it.
   */
  minSpeedup?: number;
  device?: DeviceProfile;
  /** The rules to run (default: the registry). */
  rules?: readonly Rule[];
}

type Diagnostic = AnalysisResult['diagnostics'][number];

/** The rules' outcomes for one cell, and what they read of the notebook to get them. */
interface CellOutcomes {
  cell: CellModel;
  /** The last update that used these outcomes (`NotebookAnalyzer.round`). */
  round: number;
  index: number;
  reads: ModelReads;
  suggestions: Suggestion[];
  refusals: Refusal[];
  diagnostics: Diagnostic[];
}

export class NotebookAnalyzer {
  private readonly cache: CellCache;
  private options: AnalyzerOptions;
  private lastModel: NotebookModel | null = null;
  /** Each code cell's outcomes, by cell id (kept between updates, updated in place). */
  private outcomes = new Map<string, CellOutcomes>();
  private round = 0;
  private rerun: string[] = [];
  /**
   * The safety net's verdicts (`candidateErrorLine`) on the candidates of the last update and of
   * this one, by candidate text: a candidate identical to one already checked is not parsed again
   * (a cell whose rules re-run after an edit elsewhere mostly proposes the same rewrite).
   */
  private checked = new Map<string, number>();
  private checking = new Map<string, number>();
  /** Cells whose rules ran so far (cached outcomes do not count). */
  ruleRunCount = 0;
  /**
   * Where the last update's time went (wall ms): parsing (the cache's look-ups and the
   * re-parses), building the notebook model, and running the rules (with the engine's bookkeeping).
   */
  readonly lastTimings = { parse: 0, model: 0, rules: 0 };

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
    this.outcomes.clear();
  }

  /**
   * What the rules read of the rest of the notebook (names looked up, readers/writers asked
   * for) when they last ran on the cell: an edit re-runs them when it changes any of it.
   */
  readsOf(cellId: string): Readonly<ModelReads> | undefined {
    return this.outcomes.get(cellId)?.reads;
  }

  /** Ids of the cells whose rules ran in the last update (the others reused their outcomes). */
  get lastRerun(): readonly string[] {
    return this.rerun;
  }

  /** The notebook model of the last update (for the plan and the UI). */
  get model(): NotebookModel | null {
    return this.lastModel;
  }

  /** Analyses the notebook as it is now. Never throws on bad input: problems become diagnostics. */
  update(cells: CellInput[], runtime: Record<string, RuntimeValueInfo> = {}): AnalysisResult {
    const t0 = performance.now();
    const diagnostics: AnalysisResult['diagnostics'] = [];
    const models: CellModel[] = [];
    for (const input of cells) {
      try {
        const cell = this.cache.get(input);
        models.push(cell);
        if (cell.skipped || cell.abCell) {
          diagnostics.push({ cellId: cell.id, cellIndex: cell.index, message: (cell.skipped ?? cell.abCell) as string });
        } else if (cell.syntaxError) {
          diagnostics.push({
            cellId: cell.id,
            cellIndex: cell.index,
            message: `syntax error near line ${cell.tree ? firstErrorLine(cell.tree.rootNode) : 1}: not analysed`
          });
        }
      } catch (e) {
        diagnostics.push({ cellId: input.id, cellIndex: input.index, message: `could not parse: ${(e as Error).message}` });
      }
    }
    this.cache.sweep();
    const t1 = performance.now();
    const model = new NotebookModel(models, runtime, this.lastModel ?? undefined);
    const t2 = performance.now();
    const changes = model.changes;
    if (!changes) {
      this.outcomes.clear();
    }
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
    const round = ++this.round;
    this.rerun = [];
    this.checking = new Map();
    const errorLine = (candidate: string): number => {
      let line = this.checking.get(candidate) ?? this.checked.get(candidate);
      if (line === undefined) {
        line = candidateErrorLine(this.parser, candidate);
      }
      this.checking.set(candidate, line);
      return line;
    };
    for (const cell of models) {
      if (cell.kind !== 'code' || !cell.tree || cell.syntaxError || cell.abCell) {
        continue;
      }
      let out = this.outcomes.get(cell.id);
      if (!out || !changes || !stillValid(out, cell, changes)) {
        out = runRules(cell, model, rules, ruleOptions, errorLine);
        this.outcomes.set(cell.id, out);
        this.rerun.push(cell.id);
        this.ruleRunCount += 1;
      }
      out.round = round;
      suggestions.push(...out.suggestions);
      refusals.push(...out.refusals);
      diagnostics.push(...out.diagnostics);
    }
    // the outcomes of cells that are gone (or no longer analysed) go
    this.outcomes.forEach((out, id) => {
      if (out.round !== round) {
        this.outcomes.delete(id);
      }
    });
    // the verdicts kept for the next update: this one's, and those of the candidates the cells
    // offer (checked when their rules ran, and parsed)
    for (const out of this.outcomes.values()) {
      for (const sg of out.suggestions) {
        this.checking.set(sg.candidate, 0);
      }
    }
    this.checked = this.checking;
    this.lastTimings.parse = t1 - t0;
    this.lastTimings.model = t2 - t1;
    this.lastTimings.rules = performance.now() - t2;
    return { suggestions, refusals, diagnostics };
  }
}

/** Can the cell's cached outcomes stand, given what changed in the notebook since? */
function stillValid(out: CellOutcomes, cell: CellModel, changes: ModelChanges): boolean {
  const reads = out.reads;
  if (out.cell !== cell || out.index !== cell.index || reads.everything || (reads.boundNames && changes.boundNames)) {
    return false;
  }
  for (const name of changes.names) {
    if (reads.names.has(name)) {
      return false;
    }
  }
  for (const name of changes.users) {
    if (reads.users.has(name)) {
      return false;
    }
  }
  return true;
}

/**
 * Runs the rules on one cell, recording what they read of the rest of the notebook.
 * `errorLine` is the safety net (`candidateErrorLine`, its verdicts kept by the analyzer).
 */
function runRules(
  cell: CellModel,
  model: NotebookModel,
  rules: readonly Rule[],
  ruleOptions: RuleOptions,
  errorLine: (candidate: string) => number
): CellOutcomes {
  const out: CellOutcomes = { cell, round: 0, index: cell.index, reads: emptyReads(), suggestions: [], refusals: [], diagnostics: [] };
  model.track(out.reads, () => model.memoized(() => {
    const shared = new Map<string, unknown>();
    const claimed = new Set<RuleFamily>();
    for (const rule of rules) {
      if (claimed.has(rule.family)) {
        continue;
      }
      const ctx = { cell, model, options: ruleOptions, shared };
      let outcome;
      try {
        if (rule.prefilter && !rule.prefilter(ctx)) {
          continue;
        }
        outcome = rule.check(ctx);
      } catch (e) {
        out.diagnostics.push({ cellId: cell.id, cellIndex: cell.index, message: `${rule.id} failed: ${(e as Error).message}` });
        continue;
      }
      if (!outcome || (outcome.kind !== 'refuse' && outcome.candidate.trimEnd() === cell.source.trimEnd())) {
        // nothing, or a rewrite that changes nothing (a cell whose NumPy calls all run on CuPy
        // arrays from earlier cells already)
        continue;
      }
      claimed.add(rule.family);
      if (outcome.kind === 'refuse') {
        out.refusals.push({ rule: rule.id, cellId: cell.id, cellIndex: cell.index, reason: outcome.reason });
        continue;
      }
      // the safety net: a candidate that does not parse (from a cell that did) is never offered
      const badLine = cell.syntaxError ? 0 : errorLine(outcome.candidate);
      if (badLine > 0) {
        out.refusals.push({
          rule: rule.id,
          cellId: cell.id,
          cellIndex: cell.index,
          reason: `the rewrite of this cell came out as invalid Python (line ${badLine}): not offered; please report it`
        });
        continue;
      }
      out.suggestions.push({
        rule: rule.id,
        library: rule.library,
        title: outcome.title ?? rule.title,
        confidence: round(outcome.confidence, 2),
        predicted_speedup: round(outcome.prediction.speedup, 1),
        prediction: outcome.prediction,
        cellId: cell.id,
        cellIndex: cell.index,
        original: cell.source,
        // plain edits: a rule's own may carry more (rowReductionEdits: the comprehension's
        // syntax node), which would keep its tree (and what the tree's memos hold) in the result
        edits: outcome.edits.map(e => ({ start: e.start, end: e.end, text: e.text })),
        candidate: outcome.candidate,
        imports: outcome.imports,
        explanation: outcome.explanation,
        reference: outcome.reference ?? rule.reference,
        notes: outcome.notes,
        ...(outcome.needsKernelRestart ? { needsKernelRestart: true } : {})
      });
    }
  }));
  return out;
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

// (the safety net lives in candidate.ts, which the whole-notebook plan uses too; exported here as before)
export { candidateErrorLine };
