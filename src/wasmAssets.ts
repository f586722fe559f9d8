/**
 * URLs of the WebAssembly files the analysis engine needs in the browser.
 *
 * Webpack emits both files as assets of the extension bundle (webpack.config.js); the
 * engine itself (src/analysis) never imports them, so it stays bundler-agnostic.
 */
import treeSitterRuntime from 'web-tree-sitter/tree-sitter.wasm';
import pythonGrammar from 'tree-sitter-python/tree-sitter-python.wasm';

export const TREE_SITTER_RUNTIME_URL: string = treeSitterRuntime;
export const PYTHON_GRAMMAR_URL: string = pythonGrammar;
