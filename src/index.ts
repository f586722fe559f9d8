import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { Parser, Language } from 'web-tree-sitter';
import { TREE_SITTER_RUNTIME_URL, PYTHON_GRAMMAR_URL } from './wasmAssets';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-gpuoptimize:plugin',
  description: 'GPU rewrites for notebook cells, proven by A/B timing',
  autoStart: true,
  activate: async (app: JupyterFrontEnd) => {
    await Parser.init({ locateFile: () => TREE_SITTER_RUNTIME_URL });
    const lang = await Language.load(PYTHON_GRAMMAR_URL);
    const p = new Parser();
    p.setLanguage(lang);
    console.log('gpuoptimize parse', p.parse('x = 1')?.rootNode.toString());
  }
};

export default plugin;
