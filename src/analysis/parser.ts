/**
 * The Python parser: web-tree-sitter with the tree-sitter-python grammar.
 *
 * One init, many parses. This file never touches the file system so that webpack can bundle
 * it: the browser passes the wasm URLs (or bytes) in; Node callers use `parser-node.ts`,
 * which reads the bytes from node_modules and calls `initParser` with them.
 *
 * Offsets: web-tree-sitter parses JavaScript strings as UTF-16, so `node.startIndex` and
 * `node.endIndex` are JavaScript string indices, the same units as `TextEdit`.
 */
import { Language, Node, Parser, Tree } from 'web-tree-sitter';

export type SyntaxNode = Node;
export type SyntaxTree = Tree;

export interface ParserInitOptions {
  /**
   * Maps a runtime file name (`tree-sitter.wasm`) to its URL. Browsers pass the URL webpack
   * gave the asset; Node can leave it out (web-tree-sitter finds its own wasm beside itself).
   */
  locateFile?: (name: string, scriptDirectory: string) => string;
  /** The tree-sitter-python grammar: a URL (browser) or the file's bytes (Node). */
  languageWasm: string | Uint8Array;
}

/** A ready parser for Python source. */
export class PythonParser {
  /** How many parses this parser has run (the incremental tests read it). */
  parseCount = 0;

  constructor(private readonly parser: Parser) {}

  /** Parses one cell's (masked) source. Never throws on bad Python: errors become ERROR nodes. */
  parse(source: string): SyntaxTree {
    this.parseCount += 1;
    const tree = this.parser.parse(source);
    if (!tree) {
      throw new Error('tree-sitter returned no tree (no language set?)');
    }
    return tree;
  }
}

let pending: Promise<PythonParser> | null = null;
let ready: PythonParser | null = null;

/**
 * Initialises web-tree-sitter and the Python grammar once; later calls return the same parser.
 * If initialisation fails, the next call tries again.
 */
export function initParser(opts: ParserInitOptions): Promise<PythonParser> {
  if (!pending) {
    pending = (async () => {
      const moduleOptions = opts.locateFile ? { locateFile: opts.locateFile } : undefined;
      await Parser.init(moduleOptions);
      const language = await Language.load(opts.languageWasm);
      const parser = new Parser();
      parser.setLanguage(language);
      ready = new PythonParser(parser);
      return ready;
    })();
    pending.catch(() => {
      pending = null;
    });
  }
  return pending;
}

/** The initialised parser; throws with a clear message when `initParser` has not finished. */
export function getParser(): PythonParser {
  if (!ready) {
    throw new Error('The Python parser is not initialised: await initParser(...) first.');
  }
  return ready;
}

/** True once `initParser` has finished. */
export function isParserReady(): boolean {
  return ready !== null;
}
