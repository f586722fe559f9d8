/**
 * Node-only loader for the parser (jest, the CLI). The browser bundle never imports this file:
 * it reads the grammar's wasm from node_modules with `require.resolve`.
 */
import { readFileSync } from 'fs';
import { initParser, ParserInitOptions, PythonParser } from './parser';

/** Reads tree-sitter-python's grammar wasm from node_modules. */
export function readPythonGrammarWasm(): Uint8Array {
  const path = require.resolve('tree-sitter-python/tree-sitter-python.wasm');
  return new Uint8Array(readFileSync(path));
}

/** `initParser` with Node defaults: the grammar and runtime wasm from node_modules. */
export function initNodeParser(opts: Partial<ParserInitOptions> = {}): Promise<PythonParser> {
  const locateFile =
    opts.locateFile ??
    ((name: string): string => (name === 'tree-sitter.wasm' ? require.resolve('web-tree-sitter/tree-sitter.wasm') : name));
  return initParser({
    locateFile,
    languageWasm: opts.languageWasm ?? readPythonGrammarWasm()
  });
}
