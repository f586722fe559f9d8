/**
 * A small "GPU" badge on each code cell that has a suggestion. Clicking it opens the panel on
 * that suggestion's card.
 *
 * The badge is a real button inside the cell's node (not a CSS pseudo-element) so it has an
 * accessible name and takes keyboard focus. Windowed notebooks keep a widget per cell even
 * when its DOM is detached, so walking `notebook.widgets` reaches every cell; the badge lives
 * in the cell's own node and travels with it.
 */
import { Cell } from '@jupyterlab/cells';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { CommandRegistry } from '@lumino/commands';
import { formatSpeedup } from './format';
import { GpuOptimizerModel, suggestionKey } from './model';
import { CommandIDs } from './tokens';

const BADGE_CLASS = 'jp-gpuoptimize-cell-badge';

export class CellBadges {
  constructor(
    private readonly _model: GpuOptimizerModel,
    private readonly _tracker: INotebookTracker,
    private readonly _commands: CommandRegistry
  ) {
    _model.changed.connect(this._schedule, this);
    _tracker.widgetAdded.connect((_, panel) => {
      // New cells (added, pasted, or created as the windowed list renders) need badges too.
      panel.content.modelChanged.connect(() => this._schedule());
      panel.model?.cells.changed.connect(() => this._schedule());
    });
  }

  /** Redraws at most once per frame: model changes come in bursts (typing, progress). */
  private _schedule(): void {
    if (this._pending) {
      return;
    }
    this._pending = true;
    requestAnimationFrame(() => {
      this._pending = false;
      this._tracker.forEach(panel => this._update(panel));
    });
  }

  private _update(panel: NotebookPanel): void {
    if (panel.isDisposed) {
      return;
    }
    for (const cell of panel.content.widgets) {
      this._updateCell(panel, cell);
    }
  }

  private _updateCell(panel: NotebookPanel, cell: Cell): void {
    const suggestions =
      cell.model.type === 'code' ? this._model.suggestionsForCell(panel, cell.model.id) : [];
    let badge = cell.node.querySelector<HTMLButtonElement>(`:scope > .${BADGE_CLASS}`);
    if (suggestions.length === 0) {
      badge?.remove();
      return;
    }
    const best = suggestions.reduce((a, b) => (b.predicted_speedup > a.predicted_speedup ? b : a));
    const text = `GPU ${formatSpeedup(best.predicted_speedup)}`;
    const label =
      suggestions.length === 1
        ? `GPU suggestion ${best.rule}: ${best.title}, predicted ${formatSpeedup(best.predicted_speedup)} faster. Open it in the GPU Optimizer panel.`
        : `${suggestions.length} GPU suggestions; best predicted ${formatSpeedup(best.predicted_speedup)} faster. Open them in the GPU Optimizer panel.`;
    if (!badge) {
      badge = document.createElement('button');
      badge.type = 'button';
      badge.className = BADGE_CLASS;
      badge.addEventListener('click', event => {
        event.stopPropagation();
        void this._commands.execute(CommandIDs.openPanel, { key: badge!.dataset.key ?? '' });
      });
      cell.node.appendChild(badge);
    }
    badge.dataset.key = suggestionKey(best);
    if (badge.textContent !== text) {
      badge.textContent = text;
    }
    badge.setAttribute('aria-label', label);
    badge.title = label;
  }

  private _pending = false;
}
