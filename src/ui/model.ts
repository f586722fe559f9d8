/**
 * The GPU Optimizer's state, owned in one place (the jupyterlab-git model/view split): which
 * notebook is active, its suggestions, dismissals, benchmark runs and the kernel link. Widgets
 * render it and call its methods; they never touch the notebook or the kernel themselves.
 *
 * One `NotebookSession` per open notebook keeps that notebook's analysis engine (incremental),
 * bridge (kernel link) and runs, so switching notebooks loses nothing and a run keeps going in
 * the background.
 */
import type { ICellModel } from '@jupyterlab/cells';
import { INotebookTracker, Notebook, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { ISignal, Signal } from '@lumino/signaling';
import type { AnalysisResult, CellInput, DeviceProfile, RuntimeValueInfo, Suggestion } from '../analysis/types';
import { BridgeError, KernelBridge } from '../kernel/bridge';
import type { ABResult, ProgressEvent } from '../kernel/protocol';
import { CellText, candidateWithImports, planApply } from './applyPlan';
import { nextDeviceProfile } from './device';
import { ruleFamily, sourceHash } from './format';
import { kernelSizeNote, runtimeFromInspect, sameRuntime } from './runtime';
import { DEFAULT_SETTINGS, GpuOptimizerSettings } from './settings';

/** The analysis engine as the UI sees it: one instance per notebook (it caches per cell). */
export interface NotebookAnalysisEngine {
  /**
   * `runtime`: what the kernel reported about names (overrides what literals say); `device`: the
   * kernel's device profile, null or absent for the analysis' defaults (the H200's figures).
   */
  analyze(
    cells: CellInput[],
    runtime?: Readonly<Record<string, RuntimeValueInfo>>,
    device?: DeviceProfile | null
  ): AnalysisResult;
  /** Names of the last analysis worth asking the kernel to size (see analysis/inspect.ts). */
  namesToInspect?(): string[];
}

/** Creates an engine; the first call also loads the parser (wasm), so it is async. */
export type AnalysisEngineFactory = () => Promise<NotebookAnalysisEngine>;

/** Stable key of a suggestion within a notebook: rule and cell. Dismissals use it too. */
export function suggestionKey(s: Pick<Suggestion, 'rule' | 'cellId'>): string {
  return `${s.rule}@${s.cellId}`;
}

export type BenchmarkPhase =
  | 'connecting'
  | 'waiting-for-previous'
  | 'waiting-for-kernel'
  | 'running'
  | 'done'
  | 'failed';

export interface BenchmarkRun {
  phase: BenchmarkPhase;
  startedAt: number;
  progress: ProgressEvent | null;
  result: ABResult | null;
  /** Why the run produced no result, for people. */
  error: string | null;
  /** Present while the run can be cancelled. */
  abort: AbortController | null;
}

/** A message to show on a card after an action (Apply refused, Apply done, ...). */
export interface CardNotice {
  kind: 'info' | 'error';
  text: string;
}

/** The notebook-metadata record of dismissals (`metadata.gpuoptimize.dismissed`). */
interface DismissedEntry {
  rule: string;
  cell_id: string;
}

const METADATA_KEY = 'gpuoptimize';

/** Everything the model keeps for one open notebook. */
class NotebookSession {
  constructor(
    readonly panel: NotebookPanel,
    readonly bridge: KernelBridge
  ) {}
  engine: NotebookAnalysisEngine | null = null;
  analysis: AnalysisResult | null = null;
  analysisError: string | null = null;
  analyzing = false;
  debounceTimer: ReturnType<typeof setTimeout> | null = null;
  readonly runs = new Map<string, BenchmarkRun>();
  readonly notices = new Map<string, CardNotice>();
  /** What the kernel was last told each cell's candidate is: cell id -> original + candidate. */
  readonly registered = new Map<string, string>();
  /** The kernel's latest reports (inspect) of this notebook's names; passed to the engine. */
  runtime: Record<string, RuntimeValueInfo> = {};
  /** An inspect should be sent when the kernel is idle and no benchmark runs. */
  inspectWanted = false;
  /** The one inspect request in flight, if any (never more than one). */
  inspecting = false;
  /** The names the last inspect asked for (to ask again only when the set changes). */
  lastAsked = '';
  /** The kernel's device as its doctor last reported it; null: not known (H200 defaults). */
  device: DeviceProfile | null = null;
}

export class GpuOptimizerModel {
  constructor(
    private readonly _tracker: INotebookTracker,
    private readonly _engineFactory: AnalysisEngineFactory
  ) {
    _tracker.widgetAdded.connect((_, panel) => this._track(panel));
    _tracker.forEach(panel => this._track(panel));
    NotebookActions.executed.connect(this._onExecutedSlot, this);
    _tracker.currentChanged.connect(() => {
      this._changed.emit();
      this._maybeConnect();
    });
  }

  /** Emits after any change a view may show. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get settings(): Readonly<GpuOptimizerSettings> {
    return this._settings;
  }

  /** Live-reload: new filters apply at once; analysis-affecting changes re-analyse. */
  set settings(value: GpuOptimizerSettings) {
    this._settings = value;
    this._changed.emit();
  }

  /** Whether a view is showing the model (auto-connect only happens then). */
  set visible(value: boolean) {
    this._visible = value;
    if (value) {
      this._maybeConnect();
    }
  }

  /** The active notebook panel, or null (no notebook open or focus elsewhere). */
  get notebook(): NotebookPanel | null {
    return this._tracker.currentWidget;
  }

  get bridge(): KernelBridge | null {
    return this._current()?.bridge ?? null;
  }

  /** The active notebook's kernel device the predictions are for; null: the H200 defaults. */
  get deviceProfile(): DeviceProfile | null {
    return this._current()?.device ?? null;
  }

  /** What the active notebook's kernel reported about its names (sizes the CLI cannot know). */
  get runtime(): Readonly<Record<string, RuntimeValueInfo>> {
    return this._current()?.runtime ?? {};
  }

  /** The active notebook's kernel reported no GPU (its predictions are the H200's). */
  get kernelWithoutGpu(): boolean {
    return this._current()?.bridge.environment?.gpus.length === 0;
  }

  get analyzing(): boolean {
    return this._current()?.analyzing ?? false;
  }

  /** The last analysis failure of the active notebook (e.g. the parser did not load). */
  get analysisError(): string | null {
    return this._current()?.analysisError ?? null;
  }

  /** Per-cell problems the engine reported (syntax errors, magics it cannot read). */
  get diagnostics(): AnalysisResult['diagnostics'] {
    return this._current()?.analysis?.diagnostics ?? [];
  }

  /** True once the active notebook has been analysed at least once. */
  get analysed(): boolean {
    return this._current()?.analysis !== null && this._current()?.analysis !== undefined;
  }

  /** Suggestions to show: enabled families, predicted speedup high enough, not dismissed. */
  get suggestions(): Suggestion[] {
    const session = this._current();
    if (!session?.analysis) {
      return [];
    }
    const dismissed = this._dismissedKeys(session.panel);
    return session.analysis.suggestions.filter(
      s => this._passesFilters(s) && !dismissed.has(suggestionKey(s))
    );
  }

  /** How many suggestions the filters and dismissals hide (the panel says so). */
  get hiddenCounts(): { dismissed: number; filtered: number } {
    const session = this._current();
    if (!session?.analysis) {
      return { dismissed: 0, filtered: 0 };
    }
    const dismissed = this._dismissedKeys(session.panel);
    let dismissedCount = 0;
    let filtered = 0;
    for (const s of session.analysis.suggestions) {
      if (!this._passesFilters(s)) {
        filtered++;
      } else if (dismissed.has(suggestionKey(s))) {
        dismissedCount++;
      }
    }
    return { dismissed: dismissedCount, filtered };
  }

  /** Suggestions shown for one cell of a notebook (badges use this for every notebook). */
  suggestionsForCell(panel: NotebookPanel, cellId: string): Suggestion[] {
    const session = this._sessions.get(panel);
    if (!session?.analysis) {
      return [];
    }
    const dismissed = this._dismissedKeys(panel);
    return session.analysis.suggestions.filter(
      s => s.cellId === cellId && this._passesFilters(s) && !dismissed.has(suggestionKey(s))
    );
  }

  run(suggestion: Suggestion): BenchmarkRun | null {
    return this._current()?.runs.get(suggestionKey(suggestion)) ?? null;
  }

  notice(suggestion: Suggestion): CardNotice | null {
    return this._current()?.notices.get(suggestionKey(suggestion)) ?? null;
  }

  /** Analyses the active notebook now (the debounced path calls this too). */
  async analyze(panel: NotebookPanel | null = this.notebook): Promise<void> {
    const session = panel ? this._sessions.get(panel) : undefined;
    if (!session || !session.panel.model) {
      return;
    }
    if (session.debounceTimer !== null) {
      clearTimeout(session.debounceTimer);
      session.debounceTimer = null;
    }
    session.analyzing = true;
    this._changed.emit();
    try {
      if (!session.engine) {
        session.engine = await this._engineFactory();
      }
      const cells = this._cellInputs(session.panel);
      session.analysis = session.engine.analyze(cells, session.runtime, session.device);
      session.analysisError = null;
      // Notices about suggestions that no longer exist would only confuse.
      const live = new Set(session.analysis.suggestions.map(suggestionKey));
      for (const key of [...session.notices.keys()]) {
        if (!live.has(key)) {
          session.notices.delete(key);
        }
      }
    } catch (err) {
      session.analysisError = `The notebook could not be analysed: ${(err as Error).message}`;
      console.error('gpuoptimize: analysis failed', err);
    } finally {
      session.analyzing = false;
      this._changed.emit();
    }
    this._registerCandidates(session);
    // New names to size (a cell now reads an array the engine cannot size): ask the kernel.
    const names = session.engine?.namesToInspect?.() ?? [];
    if (session.bridge.status === 'ready' && names.join('\u0000') !== session.lastAsked) {
      this._wantInspect(session);
    }
  }

  /**
   * "size from the kernel: x 114 MiB" when the suggestion's prediction used the kernel's
   * report of a name its cell reads; null otherwise.
   */
  kernelSizes(suggestion: Suggestion): string | null {
    const session = this._current();
    return session ? kernelSizeNote(suggestion, session.runtime) : null;
  }

  /**
   * Replaces the suggestion's cell with the candidate (and adds its imports once) through the
   * cells' shared models, so the editor's undo restores each cell. Refuses if the cell
   * changed since the suggestion was computed. Returns the notice it also shows on the card.
   */
  apply(suggestion: Suggestion): CardNotice {
    const session = this._current();
    const model = session?.panel.model;
    if (!session || !model) {
      return { kind: 'error', text: 'No notebook is active.' };
    }
    const plan = planApply(this._cellTexts(session.panel), suggestion);
    let notice: CardNotice;
    if (!plan.ok) {
      notice = { kind: 'error', text: plan.message };
      if (plan.reason === 'stale') {
        void this.analyze(session.panel);
      }
    } else {
      const byId = new Map<string, ICellModel>();
      for (let i = 0; i < model.cells.length; i++) {
        const cell = model.cells.get(i);
        byId.set(cell.id, cell);
      }
      // Each cell's own setSource, not one notebook-wide transaction: JupyterLab's per-cell
      // undo managers only track changes made with the cell as origin, and a notebook
      // transaction would make Apply impossible to undo with Ctrl+Z in the cell.
      for (const change of plan.changes) {
        byId.get(change.cellId)?.sharedModel.setSource(change.after);
      }
      const imports =
        plan.addedImports.length > 0 ? ` Added ${plan.addedImports.join('; ')} at the imports.` : '';
      notice = {
        kind: 'info',
        text: `Applied ${suggestion.rule}.${imports} Undo with Ctrl+Z in the cell.`
      };
    }
    session.notices.set(suggestionKey(suggestion), notice);
    this._changed.emit();
    if (plan.ok) {
      void this.analyze(session.panel);
    }
    return notice;
  }

  /**
   * A/B-times the cell against the suggestion in the kernel. The result (or the reason there
   * is none) lands in `run(suggestion)`; `changed` fires at each step.
   */
  async benchmark(suggestion: Suggestion): Promise<void> {
    const session = this._current();
    if (!session) {
      return;
    }
    const key = suggestionKey(suggestion);
    const existing = session.runs.get(key);
    if (existing && existing.abort) {
      return; // Already running or queued.
    }
    const current = this._cellTexts(session.panel).find(c => c.id === suggestion.cellId);
    if (!current || current.source !== suggestion.original) {
      session.notices.set(key, {
        kind: 'error',
        text: 'Not benchmarked: the cell changed after this suggestion was computed. The suggestions are being refreshed.'
      });
      void this.analyze(session.panel);
      this._changed.emit();
      return;
    }
    session.notices.delete(key);
    const abort = new AbortController();
    const run: BenchmarkRun = {
      phase: 'connecting',
      startedAt: Date.now(),
      progress: null,
      result: null,
      error: null,
      abort
    };
    session.runs.set(key, run);
    this._changed.emit();
    try {
      run.result = await session.bridge.runAB({
        cellId: suggestion.cellId,
        baseline: suggestion.original,
        candidate: candidateWithImports(suggestion),
        budgetSeconds: this._settings.benchmarkBudgetSeconds,
        rtol: this._settings.rtol,
        atol: this._settings.atol,
        sourceHash: sourceHash(suggestion.original),
        signal: abort.signal,
        onQueueState: state => {
          run.phase = state;
          this._changed.emit();
        },
        onProgress: event => {
          run.phase = 'running';
          run.progress = event;
          this._changed.emit();
        }
      });
      run.phase = 'done';
    } catch (err) {
      run.phase = 'failed';
      run.error =
        err instanceof BridgeError && err.code === 'cancelled'
          ? 'Cancelled before it started.'
          : (err as Error).message;
    } finally {
      run.abort = null;
      this._changed.emit();
      this._pumpInspect(session);
    }
  }

  /** Cancels a benchmark: dropped if still queued, kernel interrupt if running. */
  cancelBenchmark(suggestion: Suggestion): void {
    this._current()?.runs.get(suggestionKey(suggestion))?.abort?.abort();
  }

  /** Hides a suggestion for good: recorded in the notebook's metadata (saved with it). */
  dismiss(suggestion: Suggestion): void {
    const model = this._current()?.panel.model;
    if (!model) {
      return;
    }
    const entries = this._dismissedEntries(this._current()!.panel);
    if (!entries.some(e => e.rule === suggestion.rule && e.cell_id === suggestion.cellId)) {
      entries.push({ rule: suggestion.rule, cell_id: suggestion.cellId });
    }
    this._writeDismissed(this._current()!.panel, entries);
  }

  /** Shows every dismissed suggestion of the active notebook again. */
  restoreDismissed(): void {
    const session = this._current();
    if (session) {
      this._writeDismissed(session.panel, []);
    }
  }

  /** Scrolls to the suggestion's cell and makes it the active cell. */
  async revealCell(suggestion: Suggestion): Promise<void> {
    const panel = this.notebook;
    const model = panel?.model;
    if (!panel || !model) {
      return;
    }
    for (let i = 0; i < model.cells.length; i++) {
      if (model.cells.get(i).id === suggestion.cellId) {
        panel.content.activeCellIndex = i;
        panel.content.deselectAll();
        // scrollToItem copes with windowed notebooks, where the cell may not be in the DOM.
        await panel.content.scrollToItem(i, 'smart');
        return;
      }
    }
  }

  /** Connects the active notebook's bridge (loads the shim, says hello). */
  async connect(): Promise<void> {
    try {
      await this._current()?.bridge.connect();
    } catch {
      // The bridge keeps the reason in `error`; the header shows it.
    }
  }

  dispose(): void {
    NotebookActions.executed.disconnect(this._onExecutedSlot, this);
    for (const session of this._sessions.values()) {
      this._forget(session.panel);
    }
    Signal.clearData(this);
  }

  // -------------------------------------------------------------------------

  private _onExecutedSlot(_: unknown, args: { notebook: Notebook }): void {
    this._onExecuted(args.notebook);
  }

  private _current(): NotebookSession | null {
    const panel = this.notebook;
    return panel ? (this._sessions.get(panel) ?? null) : null;
  }

  private _track(panel: NotebookPanel): void {
    if (this._sessions.has(panel)) {
      return;
    }
    const bridge = new KernelBridge(panel.sessionContext);
    const session = new NotebookSession(panel, bridge);
    this._sessions.set(panel, session);
    let wasReady = false;
    bridge.changed.connect(() => {
      // The doctor's report (hello, Check device) prices the predictions for the kernel's GPU.
      const device = nextDeviceProfile(bridge.environment, session.device);
      if (device !== session.device) {
        session.device = device;
        void this.analyze(session.panel);
      }
      if (bridge.status === 'ready') {
        this._registerCandidates(session);
        if (!wasReady) {
          this._wantInspect(session); // hello succeeded: size what the kernel already holds
        }
      } else {
        session.registered.clear(); // a new kernel knows nothing
        session.inspectWanted = false;
        session.lastAsked = '';
        if (Object.keys(session.runtime).length > 0) {
          session.runtime = {}; // nor does it hold the old kernel's values
          void this.analyze(session.panel);
        }
      }
      wasReady = bridge.status === 'ready';
      this._pumpInspect(session); // the kernel may have gone idle
      if (this._current() === session) {
        this._changed.emit();
        this._maybeConnect();
      }
    });
    panel.disposed.connect(() => this._forget(panel));
    void panel.context.ready.then(() => {
      const model = panel.model;
      if (!model || panel.isDisposed) {
        return;
      }
      model.contentChanged.connect(() => this._onEdited(session));
      model.metadataChanged.connect(() => {
        if (this._current() === session) {
          this._changed.emit();
        }
      });
      void this.analyze(panel);
    });
  }

  /** After a cell of `notebook` ran: its values may have changed, so ask the kernel again. */
  private _onExecuted(notebook: Notebook): void {
    for (const session of this._sessions.values()) {
      if (session.panel.content === notebook && session.bridge.status === 'ready') {
        this._wantInspect(session);
      }
    }
  }

  private _wantInspect(session: NotebookSession): void {
    session.inspectWanted = true;
    this._pumpInspect(session);
  }

  /**
   * Sends the wanted inspect when it may: shim ready, kernel idle (the request would otherwise
   * wait behind the user's cells), no benchmark of this notebook running or queued, and no
   * inspect already in flight. The reply replaces the runtime map; a changed map re-analyses
   * (the engine re-runs only the rules that read the changed names).
   */
  private _pumpInspect(session: NotebookSession): void {
    if (
      !session.inspectWanted ||
      session.inspecting ||
      !this._sessions.has(session.panel) ||
      session.bridge.status !== 'ready' ||
      session.bridge.kernelBusy ||
      [...session.runs.values()].some(run => run.abort !== null)
    ) {
      return;
    }
    const names = session.engine?.namesToInspect?.() ?? [];
    session.inspectWanted = false;
    session.lastAsked = names.join('\u0000');
    if (names.length === 0) {
      if (Object.keys(session.runtime).length > 0) {
        session.runtime = {};
        void this.analyze(session.panel);
      }
      return;
    }
    session.inspecting = true;
    session.bridge
      .inspect(names)
      .then(
        values => {
          const runtime = runtimeFromInspect(names, values);
          if (!sameRuntime(runtime, session.runtime) && this._sessions.has(session.panel)) {
            session.runtime = runtime;
            void this.analyze(session.panel);
          }
        },
        err => {
          console.warn('gpuoptimize: could not inspect the kernel:', err);
        }
      )
      .finally(() => {
        session.inspecting = false;
        this._pumpInspect(session);
      });
  }

  private _forget(panel: NotebookPanel): void {
    const session = this._sessions.get(panel);
    if (!session) {
      return;
    }
    if (session.debounceTimer !== null) {
      clearTimeout(session.debounceTimer);
    }
    for (const run of session.runs.values()) {
      run.abort?.abort();
    }
    session.bridge.dispose();
    this._sessions.delete(panel);
    this._changed.emit();
  }

  private _onEdited(session: NotebookSession): void {
    if (!this._settings.analyzeOnEdit) {
      return;
    }
    if (session.debounceTimer !== null) {
      clearTimeout(session.debounceTimer);
    }
    session.debounceTimer = setTimeout(() => {
      session.debounceTimer = null;
      void this.analyze(session.panel);
    }, this._settings.debounceMs);
  }

  /** Says hello when a view shows a notebook whose kernel is idle and not yet connected. */
  private _maybeConnect(): void {
    const session = this._current();
    if (
      !this._visible ||
      !this._settings.connectOnOpen ||
      !session ||
      session.bridge.status !== 'disconnected' ||
      session.panel.sessionContext.session?.kernel?.status !== 'idle'
    ) {
      return;
    }
    session.bridge.connect().catch(() => undefined);
  }

  /**
   * Registers each cell's first shown suggestion with the kernel (only what changed), so
   * `%%gpuoptimize` in that cell runs against the same rewrite the panel shows.
   */
  private _registerCandidates(session: NotebookSession): void {
    if (session.bridge.status !== 'ready' || !session.analysis) {
      return;
    }
    const dismissed = this._dismissedKeys(session.panel);
    const seen = new Set<string>();
    for (const s of session.analysis.suggestions) {
      if (seen.has(s.cellId) || !this._passesFilters(s) || dismissed.has(suggestionKey(s))) {
        continue;
      }
      seen.add(s.cellId);
      const candidate = candidateWithImports(s);
      const signature = `${s.original}\u0000${candidate}`;
      if (session.registered.get(s.cellId) === signature) {
        continue;
      }
      session.registered.set(s.cellId, signature);
      session.bridge.registerCandidate(s.cellId, s.original, candidate, s.rule).catch(err => {
        // Forget it so the next analysis tries again; Benchmark does not depend on it.
        session.registered.delete(s.cellId);
        console.warn('gpuoptimize: could not register the candidate with the kernel:', err);
      });
    }
  }

  private _passesFilters(s: Suggestion): boolean {
    const family = ruleFamily(s.rule);
    return (
      (family === null || this._settings.enabledFamilies.includes(family)) &&
      s.predicted_speedup >= this._settings.minPredictedSpeedup
    );
  }

  private _cellTexts(panel: NotebookPanel): CellText[] {
    const model = panel.model;
    if (!model) {
      return [];
    }
    const cells: CellText[] = [];
    for (let i = 0; i < model.cells.length; i++) {
      const cell = model.cells.get(i);
      // Only code, markdown and raw exist in nbformat; anything else is read as raw.
      const kind = cell.type === 'code' || cell.type === 'markdown' ? cell.type : 'raw';
      cells.push({ id: cell.id, kind, source: cell.sharedModel.getSource() });
    }
    return cells;
  }

  private _cellInputs(panel: NotebookPanel): CellInput[] {
    return this._cellTexts(panel).map((cell, index) => ({ ...cell, index }));
  }

  private _dismissedEntries(panel: NotebookPanel): DismissedEntry[] {
    const record = panel.model?.getMetadata(METADATA_KEY) as { dismissed?: unknown } | undefined;
    const list = record && Array.isArray(record.dismissed) ? record.dismissed : [];
    return list.filter(
      (e): e is DismissedEntry =>
        typeof e === 'object' &&
        e !== null &&
        typeof (e as DismissedEntry).rule === 'string' &&
        typeof (e as DismissedEntry).cell_id === 'string'
    );
  }

  private _dismissedKeys(panel: NotebookPanel): Set<string> {
    return new Set(
      this._dismissedEntries(panel).map(e => suggestionKey({ rule: e.rule, cellId: e.cell_id }))
    );
  }

  private _writeDismissed(panel: NotebookPanel, entries: DismissedEntry[]): void {
    const model = panel.model;
    if (!model) {
      return;
    }
    const record = (model.getMetadata(METADATA_KEY) ?? {}) as Record<string, unknown>;
    if (entries.length > 0) {
      model.setMetadata(METADATA_KEY, { ...record, dismissed: entries } as never);
    } else {
      const { dismissed: _removed, ...rest } = record;
      if (Object.keys(rest).length > 0) {
        model.setMetadata(METADATA_KEY, rest as never);
      } else {
        model.deleteMetadata(METADATA_KEY);
      }
    }
    this._changed.emit();
  }

  private readonly _changed = new Signal<this, void>(this);
  private readonly _sessions = new Map<NotebookPanel, NotebookSession>();
  private _settings: GpuOptimizerSettings = { ...DEFAULT_SETTINGS };
  private _visible = false;
}
