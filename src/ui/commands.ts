/**
 * Every command, palette entry and context-menu item of the extension, registered here and
 * nowhere else. Commands that act on one suggestion take `{key}` (rule@cell, as the panel's
 * cards pass it); without it they act on the active cell's first suggestion, which is what
 * the palette, the cell context menu and the keyboard shortcut need.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { Dialog, ICommandPalette, ISessionContextDialogs, Notification, showDialog } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import type { Suggestion } from '../analysis/types';
import { GpuOptimizerModel, suggestionKey } from './model';
import { GpuOptimizerPanel } from './panel';
import { NotebookRewriter, openRewrittenNotebook } from './rewrite';
import { CommandIDs } from './tokens';

export interface CommandContext {
  app: JupyterFrontEnd;
  model: GpuOptimizerModel;
  panel: GpuOptimizerPanel;
  tracker: INotebookTracker;
  palette: ICommandPalette | null;
  sessionDialogs: ISessionContextDialogs | null;
  /** The engine's whole-notebook rewrite, when it exports one. */
  rewriter: NotebookRewriter | null;
}

const PALETTE_CATEGORY = 'GPU Optimizer';

export function registerCommands(ctx: CommandContext): void {
  const { app, model, panel, tracker } = ctx;
  const { commands } = app;

  /** The suggestion a command is about: by key, else the active cell's first one. */
  const target = (args: ReadonlyPartialJSONObject): Suggestion | null => {
    const key = typeof args.key === 'string' ? args.key : null;
    const suggestions = model.suggestions;
    if (key) {
      return suggestions.find(s => suggestionKey(s) === key) ?? null;
    }
    const cellId = tracker.activeCell?.model.id;
    return suggestions.find(s => s.cellId === cellId) ?? null;
  };

  const noSuggestionForCell = () =>
    Notification.info(
      'The active cell has no GPU suggestion. Open the GPU Optimizer panel to see the notebook’s suggestions.',
      { autoClose: 5000 }
    );

  const hasNotebook = () => tracker.currentWidget !== null;

  commands.addCommand(CommandIDs.openPanel, {
    label: 'Open GPU Optimizer panel',
    caption: 'Show GPU suggestions for the active notebook',
    execute: args => {
      app.shell.activateById(panel.id);
      const key = typeof args.key === 'string' ? args.key : null;
      if (key) {
        // From a cell badge: bring that card into view and give it focus.
        requestAnimationFrame(() => {
          const card = panel.card(key);
          card?.node.scrollIntoView({ block: 'nearest' });
          card?.node.querySelector<HTMLElement>('.jp-gpuoptimize-card-title')?.focus();
        });
      }
    }
  });

  commands.addCommand(CommandIDs.analyzeNotebook, {
    label: 'Analyse notebook for GPU rewrites',
    caption: 'Run the GPU rules over every code cell of the active notebook',
    isEnabled: hasNotebook,
    execute: () => model.analyze()
  });

  commands.addCommand(CommandIDs.benchmarkCell, {
    label: args => (args.key ? 'Benchmark' : 'Benchmark cell on the GPU'),
    caption: 'Time the cell against its GPU rewrite in the kernel and compare the results',
    isEnabled: hasNotebook,
    execute: async args => {
      const suggestion = target(args);
      if (!suggestion) {
        noSuggestionForCell();
        return;
      }
      if (!args.key) {
        commands.execute(CommandIDs.openPanel, { key: suggestionKey(suggestion) });
      }
      await model.benchmark(suggestion);
    }
  });

  commands.addCommand(CommandIDs.cancelBenchmark, {
    label: 'Cancel benchmark',
    caption: 'Stop the benchmark (interrupts the kernel if it is running)',
    execute: args => {
      const suggestion = target(args);
      if (suggestion) {
        model.cancelBenchmark(suggestion);
      }
    }
  });

  commands.addCommand(CommandIDs.applySuggestion, {
    label: args => (args.key ? 'Apply' : 'Apply GPU suggestion to cell'),
    caption: 'Replace the cell with its GPU rewrite (undo with Ctrl+Z in the cell)',
    isEnabled: hasNotebook,
    execute: args => {
      const suggestion = target(args);
      if (!suggestion) {
        noSuggestionForCell();
        return;
      }
      const notice = model.apply(suggestion);
      if (notice.kind === 'info') {
        // The card goes away once the cell no longer matches the rule: confirm it here.
        Notification.success(notice.text, { autoClose: 5000 });
      } else if (!args.key) {
        // Not clicked in the panel: the card's notice may be out of sight.
        Notification.warning(notice.text, { autoClose: 8000 });
      }
    }
  });

  commands.addCommand(CommandIDs.explainSuggestion, {
    label: 'Explain GPU suggestion',
    execute: args => {
      const suggestion = target(args);
      if (!suggestion) {
        noSuggestionForCell();
        return;
      }
      const key = suggestionKey(suggestion);
      if (!args.key) {
        commands.execute(CommandIDs.openPanel, { key });
      }
      panel.card(key)?.toggleExplanation();
    }
  });

  commands.addCommand(CommandIDs.dismissSuggestion, {
    label: 'Dismiss GPU suggestion',
    caption: 'Hide this suggestion for this cell (saved in the notebook’s metadata)',
    execute: args => {
      const suggestion = target(args);
      if (suggestion) {
        model.dismiss(suggestion);
      }
    }
  });

  commands.addCommand(CommandIDs.restoreDismissed, {
    label: 'Show dismissed GPU suggestions again',
    isEnabled: hasNotebook,
    execute: () => model.restoreDismissed()
  });

  commands.addCommand(CommandIDs.revealCell, {
    label: 'Show the suggestion’s cell',
    execute: args => {
      const suggestion = target(args);
      if (suggestion) {
        return model.revealCell(suggestion);
      }
    }
  });

  commands.addCommand(CommandIDs.restartKernel, {
    label: 'Restart kernel for GPU accelerator mode',
    caption: 'Accelerator modes (cudf.pandas, cuml.accel) must load before pandas or sklearn',
    isEnabled: () => tracker.currentWidget?.sessionContext.session?.kernel !== undefined,
    execute: async () => {
      const sessionContext = tracker.currentWidget?.sessionContext;
      if (!sessionContext) {
        return;
      }
      if (ctx.sessionDialogs) {
        await ctx.sessionDialogs.restart(sessionContext);
      } else {
        await sessionContext.session?.kernel?.restart();
      }
    }
  });

  commands.addCommand(CommandIDs.checkDevice, {
    label: 'Check the kernel’s GPU',
    caption:
      'Load the gpuoptimize kernel extension and ask its doctor about the GPU; once loaded, also measure its copy rates and launch cost for the predictions',
    isEnabled: hasNotebook,
    execute: async () => {
      const bridge = model.bridge;
      if (!bridge) {
        return;
      }
      if (bridge.status === 'ready') {
        // Calibrated: the predictions then use this GPU's measured rates (src/ui/device.ts).
        await bridge.doctor(true).catch((err: Error) => Notification.error(err.message));
      } else {
        await model.connect();
      }
    }
  });

  commands.addCommand(CommandIDs.rewriteNotebook, {
    label: 'Rewrite whole notebook for GPU',
    caption: 'Open a copy of the notebook with every applicable GPU rewrite and a summary of the changes',
    isEnabled: () => hasNotebook() && ctx.rewriter !== null,
    execute: async () => {
      const notebook = tracker.currentWidget;
      if (!notebook || !ctx.rewriter) {
        return;
      }
      try {
        await openRewrittenNotebook(app, notebook, ctx.rewriter, model.deviceProfile, async why => {
          // as `gpuoptimize fix` without --even-if-slower: a rewrite predicted to lose time is written only when asked
          const answer = await showDialog({
            title: 'The GPU rewrite is not predicted to pay',
            body: `${why.charAt(0).toUpperCase()}${why.slice(1)}.`,
            buttons: [Dialog.cancelButton({ label: 'Keep the notebook as it is' }), Dialog.warnButton({ label: 'Write the rewrite anyway' })]
          });
          return answer.button.accept;
        }, model.runtime);
      } catch (err) {
        Notification.error(`The notebook could not be rewritten: ${(err as Error).message}`);
      }
    }
  });

  if (ctx.palette) {
    for (const command of [
      CommandIDs.openPanel,
      CommandIDs.analyzeNotebook,
      CommandIDs.benchmarkCell,
      CommandIDs.applySuggestion,
      CommandIDs.explainSuggestion,
      CommandIDs.restoreDismissed,
      CommandIDs.checkDevice,
      CommandIDs.rewriteNotebook
    ]) {
      ctx.palette.addItem({ command, category: PALETTE_CATEGORY });
    }
  }

  // Cell context menu: only what makes sense for one cell.
  const cellSelector = '.jp-Notebook .jp-Cell.jp-CodeCell';
  let rank = 60;
  for (const command of [
    CommandIDs.applySuggestion,
    CommandIDs.benchmarkCell,
    CommandIDs.explainSuggestion
  ]) {
    app.contextMenu.addItem({ command, selector: cellSelector, rank: rank++ });
  }
  app.contextMenu.addItem({
    command: CommandIDs.analyzeNotebook,
    selector: '.jp-Notebook',
    rank: rank++
  });
}
