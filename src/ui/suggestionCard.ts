/**
 * One suggestion in the side panel: library badge, title, predicted speedup and confidence,
 * the diff, actions (Apply / Benchmark / Explain / Dismiss, plus Restart kernel for
 * accelerator modes), the benchmark's progress and its result card.
 *
 * The card renders what the model holds and raises intents by executing commands
 * (src/ui/commands.ts); it changes nothing itself. The diff editor is created once per
 * (original, candidate) pair; `render` only redraws the parts that change.
 */
import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import { CommandRegistry } from '@lumino/commands';
import { Widget } from '@lumino/widgets';
import type { Suggestion } from '../analysis/types';
import { predictionDeviceNote } from './device';
import { DiffView } from './diffView';
import { element } from './dom';
import { describePredictedSpeedup, describeRunProgress, formatConfidence } from './format';
import type { BenchmarkRun, CardNotice } from './model';
import { suggestionKey } from './model';
import { renderABResult } from './resultView';
import { CommandIDs } from './tokens';

export class SuggestionCard extends Widget {
  constructor(
    private readonly _commands: CommandRegistry,
    private readonly _rendermime: IRenderMimeRegistry,
    suggestion: Suggestion
  ) {
    super({ node: document.createElement('article') });
    this.addClass('jp-gpuoptimize-card');
    this._suggestion = suggestion;
    this.key = suggestionKey(suggestion);
    this.node.dataset.rule = suggestion.rule;
    this.node.dataset.cellId = suggestion.cellId;
    // Clicking the card's body (not a control) shows its cell.
    this.node.addEventListener('click', event => {
      const target = event.target as HTMLElement;
      if (!target.closest('button, a, .cm-editor, .jp-gpuoptimize-explanation')) {
        void this._execute(CommandIDs.revealCell);
      }
    });
    this._build();
  }

  /** The suggestion's key (rule@cell); the panel reuses a card while the key lives. */
  readonly key: string;

  get suggestion(): Suggestion {
    return this._suggestion;
  }

  /** Redraws for new state; rebuilds the diff only if the texts changed. */
  render(
    suggestion: Suggestion,
    run: BenchmarkRun | null,
    notice: CardNotice | null,
    kernelSizes: string | null = null,
    kernelWithoutGpu = false
  ): void {
    const textsChanged =
      suggestion.original !== this._suggestion.original ||
      suggestion.candidate !== this._suggestion.candidate;
    this._suggestion = suggestion;
    this._run = run;
    this._notice = notice;
    this._kernelSizes = kernelSizes;
    this._kernelWithoutGpu = kernelWithoutGpu;
    if (textsChanged) {
      this._build();
    } else {
      this._renderHeader();
      this._renderDynamic();
    }
  }

  /** Redraws only the elapsed-time text of a running benchmark (the panel ticks it). */
  tick(): void {
    if (this._run && this._run.abort) {
      this._progressText.textContent = describeRunProgress(this._run, Date.now());
    }
  }

  get explaining(): boolean {
    return !this._explanation.hidden;
  }

  toggleExplanation(show = this._explanation.hidden): void {
    this._explanation.hidden = !show;
    this._explainButton.setAttribute('aria-expanded', String(show));
    this._explainButton.textContent = show ? 'Hide explanation' : 'Explain';
    if (show && !this._explanationRendered) {
      this._explanationRendered = true;
      const renderer = this._rendermime.createRenderer('text/markdown');
      const reference = this._suggestion.reference
        ? `\n\nReference: \`${this._suggestion.reference}\``
        : '';
      void renderer.renderModel(
        new MimeModel({
          data: { 'text/markdown': this._suggestion.explanation + reference },
          trusted: false
        })
      );
      this._explanation.textContent = '';
      this._explanation.appendChild(renderer.node);
      this._explanationRenderer?.dispose();
      this._explanationRenderer = renderer;
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._diff?.dispose();
    this._explanationRenderer?.dispose();
    super.dispose();
  }

  // -------------------------------------------------------------------------

  private _execute(command: string): Promise<unknown> {
    return this._commands.execute(command, { key: this.key });
  }

  private _button(label: string, className: string, command: string, ariaLabel: string): HTMLButtonElement {
    const button = element('button', `jp-gpuoptimize-button ${className}`, label);
    button.type = 'button';
    button.setAttribute('aria-label', ariaLabel);
    button.title = ariaLabel;
    button.addEventListener('click', () => void this._execute(command));
    return button;
  }

  private _build(): void {
    this._diff?.dispose();
    this._explanationRenderer?.dispose();
    this._explanationRenderer = null;
    this._explanationRendered = false;
    this.node.textContent = '';
    const s = this._suggestion;
    this.node.setAttribute('aria-label', `${s.rule}: ${s.title}`);

    this._header = element('header', 'jp-gpuoptimize-card-header');
    this.node.appendChild(this._header);
    this._renderHeader();

    if (s.notes.length > 0) {
      const notes = element('ul', 'jp-gpuoptimize-card-notes');
      notes.setAttribute('aria-label', 'Notes');
      for (const note of s.notes) {
        notes.appendChild(element('li', '', note));
      }
      this.node.appendChild(notes);
    }

    const diffHost = element('div', 'jp-gpuoptimize-diff');
    this.node.appendChild(diffHost);
    this._diff = new DiffView(diffHost, s.original, s.candidate);

    if (s.needsKernelRestart) {
      this.node.appendChild(
        element(
          'p',
          'jp-gpuoptimize-card-restart-note',
          'This accelerator mode must be loaded before the library is imported: apply it, then restart the kernel and run the notebook from the top.'
        )
      );
    }

    const actions = element('div', 'jp-gpuoptimize-card-actions');
    actions.setAttribute('role', 'group');
    actions.setAttribute('aria-label', `Actions for ${s.rule}`);
    actions.appendChild(
      this._button('Apply', 'jp-mod-accept', CommandIDs.applySuggestion, `Apply ${s.rule}: replace the cell with the rewrite`)
    );
    this._benchmarkButton = this._button(
      'Benchmark',
      'jp-gpuoptimize-benchmark',
      CommandIDs.benchmarkCell,
      `Benchmark ${s.rule}: time the original against the rewrite in the kernel`
    );
    actions.appendChild(this._benchmarkButton);
    this._cancelButton = this._button(
      'Cancel',
      'jp-mod-warn',
      CommandIDs.cancelBenchmark,
      'Cancel the benchmark (interrupts the kernel if it is running)'
    );
    actions.appendChild(this._cancelButton);
    this._explainButton = element('button', 'jp-gpuoptimize-button', 'Explain');
    this._explainButton.type = 'button';
    this._explainButton.setAttribute('aria-expanded', 'false');
    this._explainButton.setAttribute('aria-label', `Explain ${s.rule}`);
    this._explainButton.addEventListener('click', () => void this._execute(CommandIDs.explainSuggestion));
    actions.appendChild(this._explainButton);
    actions.appendChild(
      this._button('Dismiss', 'jp-gpuoptimize-dismiss', CommandIDs.dismissSuggestion, `Dismiss ${s.rule} for this cell (saved in the notebook)`)
    );
    if (s.needsKernelRestart) {
      actions.appendChild(
        this._button('Restart kernel', 'jp-mod-warn', CommandIDs.restartKernel, 'Restart the kernel so the accelerator mode loads first')
      );
    }
    this.node.appendChild(actions);

    this._noticeNode = element('p', 'jp-gpuoptimize-card-notice');
    this._noticeNode.setAttribute('role', 'status');
    this.node.appendChild(this._noticeNode);

    this._explanation = element('div', 'jp-gpuoptimize-explanation');
    this._explanation.hidden = true;
    this.node.appendChild(this._explanation);

    this._progress = element('div', 'jp-gpuoptimize-progress');
    this._progress.setAttribute('role', 'status');
    this._progressText = element('span', 'jp-gpuoptimize-progress-text');
    this._progressBar = element('progress', 'jp-gpuoptimize-progress-bar');
    this._progressBar.setAttribute('aria-label', 'Benchmark progress');
    this._progress.append(this._progressText, this._progressBar);
    this.node.appendChild(this._progress);

    this._resultHost = element('div', 'jp-gpuoptimize-card-result');
    this.node.appendChild(this._resultHost);
    this._renderedResult = null;
    this._renderDynamic();
  }

  private _renderHeader(): void {
    const s = this._suggestion;
    // the panel refreshes cards often (runs, notices, the kernel's sizes): keyboard focus on the
    // title stays on the title drawn in its place
    const hadFocus = this._header.contains(document.activeElement);
    this._header.textContent = '';
    const badge = element('span', 'jp-gpuoptimize-library-badge', s.library);
    badge.dataset.library = s.library;
    badge.title = `Target library: ${s.library}`;
    const rule = element('span', 'jp-gpuoptimize-rule', s.rule);
    const title = element('button', 'jp-gpuoptimize-card-title', s.title);
    title.type = 'button';
    title.title = `Show cell ${s.cellIndex + 1}`;
    title.setAttribute('aria-label', `${s.title}: show its cell`);
    title.addEventListener('click', () => void this._execute(CommandIDs.revealCell));
    const line1 = element('div', 'jp-gpuoptimize-card-titleline');
    line1.append(badge, rule, title);
    const meta = element(
      'div',
      'jp-gpuoptimize-card-meta',
      `${describePredictedSpeedup(s.prediction.speedup)} · confidence ${formatConfidence(s.confidence)} · cell ${s.cellIndex + 1}`
    );
    meta.title = s.prediction.reason;
    const device = predictionDeviceNote(s.prediction, this._kernelWithoutGpu);
    if (device) {
      // Whose rates priced the figure, when they are not the kernel's own device's.
      const note = element('span', 'jp-gpuoptimize-card-device', ` · ${device.text}`);
      note.title = device.title;
      meta.appendChild(note);
    }
    if (this._kernelSizes) {
      // The prediction priced the kernel's real sizes, not literals: say so.
      const sizes = element('span', 'jp-gpuoptimize-card-sizes', ` · ${this._kernelSizes}`);
      sizes.title = 'The size of the data this cell reads, as the running kernel reported it';
      meta.appendChild(sizes);
    }
    this._header.append(line1, meta);
    if (hadFocus) {
      title.focus();
    }
  }

  private _renderDynamic(): void {
    const run = this._run;
    const active = run !== null && run.abort !== null;
    this._benchmarkButton.hidden = active;
    this._cancelButton.hidden = !active;
    this._benchmarkButton.textContent = run?.result || run?.error ? 'Benchmark again' : 'Benchmark';

    if (this._notice) {
      this._noticeNode.hidden = false;
      this._noticeNode.textContent = this._notice.text;
      this._noticeNode.dataset.kind = this._notice.kind;
    } else {
      this._noticeNode.hidden = true;
      this._noticeNode.textContent = '';
    }

    if (active && run) {
      this._progress.hidden = false;
      this._progressText.textContent = describeRunProgress(run, Date.now());
      if (run.phase === 'running' && run.progress && run.progress.budget_s > 0) {
        this._progressBar.max = run.progress.budget_s;
        this._progressBar.value = Math.min(run.progress.elapsed_s, run.progress.budget_s);
      } else {
        this._progressBar.removeAttribute('value'); // indeterminate while waiting
      }
    } else if (run?.error) {
      this._progress.hidden = false;
      this._progressText.textContent = `Benchmark failed: ${run.error}`;
      this._progressBar.hidden = true;
    } else {
      this._progress.hidden = true;
    }
    if (active) {
      this._progressBar.hidden = false;
    }

    const result = run?.result ?? null;
    if (result !== this._renderedResult) {
      this._resultHost.textContent = '';
      if (result) {
        this._resultHost.appendChild(renderABResult(result));
      }
      this._renderedResult = result;
    }
  }

  private _suggestion: Suggestion;
  private _run: BenchmarkRun | null = null;
  private _kernelSizes: string | null = null;
  /** The kernel reported no GPU (the H200 note then does not send the user to check it). */
  private _kernelWithoutGpu = false;
  private _notice: CardNotice | null = null;
  private _diff: DiffView | null = null;
  private _header!: HTMLElement;
  private _benchmarkButton!: HTMLButtonElement;
  private _cancelButton!: HTMLButtonElement;
  private _explainButton!: HTMLButtonElement;
  private _explanation!: HTMLDivElement;
  private _explanationRendered = false;
  private _explanationRenderer: ReturnType<IRenderMimeRegistry['createRenderer']> | null = null;
  private _noticeNode!: HTMLParagraphElement;
  private _progress!: HTMLDivElement;
  private _progressText!: HTMLSpanElement;
  private _progressBar!: HTMLProgressElement;
  private _resultHost!: HTMLDivElement;
  private _renderedResult: unknown = null;
}
