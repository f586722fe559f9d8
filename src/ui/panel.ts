/**
 * The "GPU Optimizer" side panel: the device status of the active notebook's kernel, then one
 * card per suggestion. It renders the model and nothing else; every button runs a command.
 */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { CommandRegistry } from '@lumino/commands';
import { Message } from '@lumino/messaging';
import { Panel, Widget } from '@lumino/widgets';
import type { Environment } from '../kernel/protocol';
import { KernelBridge } from '../kernel/bridge';
import { element } from './dom';
import { formatBytes } from './format';
import { gpuIcon } from './icons';
import { GpuOptimizerModel, suggestionKey } from './model';
import { SuggestionCard } from './suggestionCard';
import { CommandIDs, PANEL_ID } from './tokens';

/** The device line for a connected kernel: GPU, libraries found, problems with fixes. */
export function describeEnvironment(env: Environment): {
  headline: string;
  libraries: string;
  problems: { message: string; fix: string }[];
} {
  const headline =
    env.gpus.length === 0
      ? 'No GPU: suggestions shown, timings unavailable'
      : env.gpus
          .map(g => `${g.name} (${formatBytes(g.memory_bytes)})`)
          .join(', ');
  const found = env.libraries.filter(l => l.available);
  const libraries =
    found.length > 0
      ? `Libraries: ${found.map(l => (l.version ? `${l.name} ${l.version}` : l.name)).join(', ')}`
      : 'No GPU libraries found in the kernel';
  return { headline, libraries, problems: env.problems.map(p => ({ message: p.message, fix: p.fix })) };
}

export class GpuOptimizerPanel extends Panel {
  constructor(
    private readonly _model: GpuOptimizerModel,
    private readonly _commands: CommandRegistry,
    private readonly _rendermime: IRenderMimeRegistry
  ) {
    super();
    this.id = PANEL_ID;
    this.addClass('jp-gpuoptimize-panel');
    this.title.icon = gpuIcon;
    this.title.caption = 'GPU Optimizer';
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', 'GPU Optimizer');

    this._header = new Widget({ node: element('div', 'jp-gpuoptimize-header') });
    this._status = new Widget({ node: element('div', 'jp-gpuoptimize-status') });
    this._status.node.setAttribute('role', 'status');
    this._list = new Panel();
    this._list.addClass('jp-gpuoptimize-list');
    this._list.node.setAttribute('role', 'list');
    this._list.node.setAttribute('aria-label', 'Suggestions');
    this.addWidget(this._header);
    this.addWidget(this._status);
    this.addWidget(this._list);

    _model.changed.connect(this._scheduleRender, this);
    this._render();
  }

  /** The card of a suggestion, if shown (commands use it for Explain and focus). */
  card(key: string): SuggestionCard | undefined {
    return this._cards.get(key);
  }

  dispose(): void {
    if (this._ticker !== null) {
      clearInterval(this._ticker);
    }
    super.dispose();
  }

  protected onAfterShow(msg: Message): void {
    this._model.visible = true;
    this._render();
  }

  protected onAfterHide(msg: Message): void {
    this._model.visible = false;
  }

  /** Coalesces bursts of model changes (progress events, typing) into one redraw. */
  private _scheduleRender(): void {
    if (this._renderPending) {
      return;
    }
    this._renderPending = true;
    requestAnimationFrame(() => {
      this._renderPending = false;
      if (!this.isDisposed) {
        this._render();
      }
    });
  }

  private _render(): void {
    this._renderHeader();
    this._renderList();
  }

  private _renderHeader(): void {
    const node = this._header.node;
    node.textContent = '';
    const title = element('h2', 'jp-gpuoptimize-title', 'GPU Optimizer');
    node.appendChild(title);

    const notebook = this._model.notebook;
    const device = element('div', 'jp-gpuoptimize-device');
    device.setAttribute('aria-label', 'Device status');
    node.appendChild(device);
    if (!notebook) {
      device.textContent = 'Open a notebook to see GPU suggestions for it.';
      return;
    }
    const bridge = this._model.bridge;
    if (bridge) {
      this._renderDevice(device, bridge);
    }

    const toolbar = element('div', 'jp-gpuoptimize-toolbar');
    toolbar.setAttribute('role', 'toolbar');
    toolbar.setAttribute('aria-label', 'GPU Optimizer actions');
    const analyze = element('button', 'jp-gpuoptimize-button', this._model.analyzing ? 'Analysing…' : 'Analyse notebook');
    analyze.type = 'button';
    analyze.setAttribute('aria-label', 'Analyse the notebook again');
    analyze.addEventListener('click', () => void this._commands.execute(CommandIDs.analyzeNotebook));
    toolbar.appendChild(analyze);
    const rewrite = element('button', 'jp-gpuoptimize-button', 'Rewrite notebook…');
    rewrite.type = 'button';
    rewrite.setAttribute('aria-label', 'Rewrite the whole notebook for the GPU into a new notebook');
    rewrite.addEventListener('click', () => void this._commands.execute(CommandIDs.rewriteNotebook));
    rewrite.hidden = !this._commands.isEnabled(CommandIDs.rewriteNotebook);
    toolbar.appendChild(rewrite);
    node.appendChild(toolbar);
  }

  private _renderDevice(device: HTMLElement, bridge: KernelBridge): void {
    const line = element('div', 'jp-gpuoptimize-device-line');
    device.appendChild(line);
    const button = (label: string, aria: string) => {
      const b = element('button', 'jp-gpuoptimize-button jp-gpuoptimize-device-button', label);
      b.type = 'button';
      b.setAttribute('aria-label', aria);
      b.addEventListener('click', () => void this._commands.execute(CommandIDs.checkDevice));
      device.appendChild(b);
    };
    device.dataset.status = bridge.status;
    switch (bridge.status) {
      case 'no-kernel':
        line.textContent = 'No kernel running: suggestions shown, timings unavailable.';
        return;
      case 'disconnected':
        line.textContent = 'Kernel device not checked yet.';
        button('Check device', "Load the gpuoptimize kernel extension and check the kernel's GPU");
        return;
      case 'connecting':
        line.textContent = 'Checking the kernel’s GPU…';
        return;
      case 'shim-missing':
      case 'shim-outdated':
      case 'failed':
        line.classList.add('jp-gpuoptimize-problem');
        line.textContent = bridge.error ?? 'Could not reach the gpuoptimize kernel extension.';
        button('Try again', 'Try to connect to the gpuoptimize kernel extension again');
        return;
      case 'ready': {
        const env = bridge.environment;
        if (!env) {
          return;
        }
        const described = describeEnvironment(env);
        line.textContent = described.headline;
        line.dataset.gpu = String(env.gpus.length > 0);
        device.appendChild(element('div', 'jp-gpuoptimize-device-libraries', described.libraries));
        if (described.problems.length > 0) {
          const list = element('ul', 'jp-gpuoptimize-device-problems');
          list.setAttribute('aria-label', 'Problems found in the kernel environment');
          for (const problem of described.problems) {
            const item = element('li', 'jp-gpuoptimize-problem', problem.message);
            if (problem.fix) {
              item.appendChild(element('div', 'jp-gpuoptimize-fix', `Fix: ${problem.fix}`));
            }
            list.appendChild(item);
          }
          device.appendChild(list);
        }
        button('Check again', "Ask the kernel's doctor again and measure the GPU's copy rates for the predictions");
        return;
      }
    }
  }

  private _renderList(): void {
    const model = this._model;
    const suggestions = model.notebook ? model.suggestions : [];
    const live = new Set(suggestions.map(suggestionKey));
    for (const [key, card] of [...this._cards]) {
      if (!live.has(key)) {
        card.dispose();
        this._cards.delete(key);
      }
    }
    suggestions.forEach((suggestion, index) => {
      const key = suggestionKey(suggestion);
      let card = this._cards.get(key);
      if (!card || card.suggestion.cellId !== suggestion.cellId) {
        card?.dispose();
        card = new SuggestionCard(this._commands, this._rendermime, suggestion);
        card.node.setAttribute('role', 'listitem');
        this._cards.set(key, card);
      }
      card.render(suggestion, model.run(suggestion), model.notice(suggestion), model.kernelSizes(suggestion), model.kernelWithoutGpu);
      if (this._list.widgets[index] !== card) {
        this._list.insertWidget(index, card);
      }
    });

    this._status.node.textContent = this._statusText(suggestions.length);
    this._status.node.hidden = this._status.node.textContent === '';
    const { dismissed } = model.hiddenCounts;
    if (dismissed > 0) {
      const restore = element('button', 'jp-gpuoptimize-link', `Show ${dismissed} dismissed`);
      restore.type = 'button';
      restore.setAttribute('aria-label', `Show the ${dismissed} dismissed suggestion${dismissed === 1 ? '' : 's'} again`);
      restore.addEventListener('click', () => void this._commands.execute(CommandIDs.restoreDismissed));
      this._status.node.appendChild(restore);
      this._status.node.hidden = false;
    }

    // Cells the engine could not read (syntax errors, huge cells): say which, not silently skip.
    const diagnostics = model.notebook ? model.diagnostics : [];
    if (diagnostics.length > 0) {
      const details = element('details', 'jp-gpuoptimize-diagnostics');
      // Redraws happen on every progress event: keep the reader's open/closed choice.
      details.open = this._diagnosticsOpen;
      details.addEventListener('toggle', () => {
        this._diagnosticsOpen = details.open;
      });
      details.appendChild(
        element(
          'summary',
          '',
          `${diagnostics.length} cell${diagnostics.length === 1 ? '' : 's'} not analysed`
        )
      );
      const list = element('ul', '');
      for (const d of diagnostics) {
        list.appendChild(element('li', '', `Cell ${d.cellIndex + 1}: ${d.message}`));
      }
      details.appendChild(list);
      this._status.node.appendChild(details);
      this._status.node.hidden = false;
    }

    // Elapsed times of queued/running benchmarks move even without kernel messages.
    const anyActive = suggestions.some(s => model.run(s)?.abort);
    if (anyActive && this._ticker === null) {
      this._ticker = setInterval(() => this._cards.forEach(card => card.tick()), 1000);
    } else if (!anyActive && this._ticker !== null) {
      clearInterval(this._ticker);
      this._ticker = null;
    }
  }

  private _statusText(shown: number): string {
    const model = this._model;
    if (!model.notebook) {
      return '';
    }
    if (model.analysisError) {
      return model.analysisError;
    }
    if (!model.analysed) {
      return 'Analysing the notebook…';
    }
    const { filtered, dismissed } = model.hiddenCounts;
    if (shown > 0) {
      return `${shown} suggestion${shown === 1 ? '' : 's'}${filtered > 0 ? ` (${filtered} below the minimum speedup or in disabled families)` : ''}.`;
    }
    const why =
      filtered > 0
        ? ` ${filtered} hidden by your settings (minimum speedup, rule families).`
        : dismissed > 0
          ? ''
          : ' The code cells use no CPU pattern the rules know, or the data is too small to pay for the GPU.';
    return `No suggestions for this notebook.${why}`;
  }

  private readonly _header: Widget;
  private readonly _status: Widget;
  private readonly _list: Panel;
  private readonly _cards = new Map<string, SuggestionCard>();
  private _renderPending = false;
  private _diagnosticsOpen = false;
  private _ticker: ReturnType<typeof setInterval> | null = null;
}
