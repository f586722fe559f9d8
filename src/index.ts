/**
 * Plugin wiring only: which services each part needs and where it goes. Behaviour lives in
 * src/ui (model, panel, commands, badges, result renderer) and src/kernel (the bridge).
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, ISessionContextDialogs } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { CellBadges } from './ui/badges';
import { registerCommands } from './ui/commands';
import { createEngineFactory, createPlanRewriter } from './ui/engine';
import { GpuOptimizerModel } from './ui/model';
import { GpuOptimizerPanel } from './ui/panel';
import { abResultRendererFactory } from './ui/resultView';
import { readSettings } from './ui/settings';
import { PANEL_ID } from './ui/tokens';
import { PYTHON_GRAMMAR_URL, TREE_SITTER_RUNTIME_URL } from './wasmAssets';

const PLUGIN_ID = 'jupyterlab-gpuoptimize:plugin';

/** The side panel, cell badges, commands and settings. */
const optimizerPlugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'GPU rewrites for notebook cells, proven by A/B timing in the kernel',
  autoStart: true,
  requires: [INotebookTracker, IRenderMimeRegistry],
  optional: [ILayoutRestorer, ISettingRegistry, ICommandPalette, ISessionContextDialogs],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    rendermime: IRenderMimeRegistry,
    restorer: ILayoutRestorer | null,
    settingRegistry: ISettingRegistry | null,
    palette: ICommandPalette | null,
    sessionDialogs: ISessionContextDialogs | null
  ) => {
    const engineFactory = createEngineFactory({
      runtimeUrl: TREE_SITTER_RUNTIME_URL,
      grammarUrl: PYTHON_GRAMMAR_URL
    });
    const model = new GpuOptimizerModel(tracker, engineFactory);
    const panel = new GpuOptimizerPanel(model, app.commands, rendermime);
    app.shell.add(panel, 'right', { rank: 600 });
    restorer?.add(panel, PANEL_ID);
    new CellBadges(model, tracker, app.commands);

    const rewriter = createPlanRewriter({
      runtimeUrl: TREE_SITTER_RUNTIME_URL,
      grammarUrl: PYTHON_GRAMMAR_URL
    });
    registerCommands({ app, model, panel, tracker, palette, sessionDialogs, rewriter });

    if (settingRegistry) {
      void settingRegistry.load(PLUGIN_ID).then(
        settings => {
          const apply = () => {
            model.settings = readSettings(settings.composite);
            void model.analyze();
          };
          settings.changed.connect(apply);
          apply();
        },
        (err: Error) => console.error('gpuoptimize: could not load settings', err)
      );
    }
  }
};

/** Draws `application/vnd.gpuoptimize.ab+json` outputs (the `%%gpuoptimize` magic's). */
const resultRendererPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-gpuoptimize:ab-result-renderer',
  description: 'Renders gpuoptimize A/B results in cell outputs',
  autoStart: true,
  requires: [IRenderMimeRegistry],
  activate: (_: JupyterFrontEnd, rendermime: IRenderMimeRegistry) => {
    rendermime.addFactory(abResultRendererFactory, abResultRendererFactory.defaultRank);
  }
};

export default [optimizerPlugin, resultRendererPlugin];
