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
import { Language, Parser, Tree, TreeCursor } from 'web-tree-sitter';

/**
 * A syntax node: a plain JavaScript copy of one tree-sitter node.
 *
 * web-tree-sitter answers every property of its `Node` (type, children, fields...) with a call
 * into wasm and a new wrapper object, which made the rules' repeated walks over a cell cost ~20x
 * the parse. `PythonParser.parse` therefore copies each tree once into these objects (one cursor
 * walk) and frees the wasm tree; the model and the rules walk plain objects. The members mirror
 * web-tree-sitter's `Node` (the subset the analysis uses), so code reads the same.
 *
 * The arrays (`children`, `namedChildren`) are shared and frozen: copy before changing them.
 */
export class SyntaxNode {
  /** Unique among all nodes this process has built (so ids never collide across cells). */
  readonly id: number;
  readonly type: string;
  readonly typeId: number;
  readonly isNamed: boolean;
  readonly isMissing: boolean;
  readonly startIndex: number;
  readonly endIndex: number;
  /** The field this node fills in its parent (`function`, `left`...), or null. */
  readonly fieldName: string | null;
  parent: SyntaxNode | null = null;
  /** True when this node is an ERROR, MISSING, or contains one. */
  hasError = false;
  children: readonly SyntaxNode[] = EMPTY;
  namedChildren: readonly SyntaxNode[] = EMPTY;
  private textCache: string | undefined;

  constructor(
    readonly tree: SyntaxTree,
    typeId: number,
    type: string,
    isNamed: boolean,
    isMissing: boolean,
    startIndex: number,
    endIndex: number,
    fieldName: string | null
  ) {
    this.id = nextNodeId++;
    this.typeId = typeId;
    this.type = type;
    this.isNamed = isNamed;
    this.isMissing = isMissing;
    this.startIndex = startIndex;
    this.endIndex = endIndex;
    this.fieldName = fieldName;
    this.hasError = isMissing || typeId === ERROR_SYMBOL;
  }

  get isError(): boolean {
    return this.typeId === ERROR_SYMBOL;
  }

  /** The node's source text (the masked source the tree was parsed from). */
  get text(): string {
    if (this.textCache === undefined) {
      this.textCache = this.tree.source.slice(this.startIndex, this.endIndex);
    }
    return this.textCache;
  }

  /** Row (0-based, counted in `\n`) and column (JavaScript string units) of the start. */
  get startPosition(): { row: number; column: number } {
    return this.tree.positionAt(this.startIndex);
  }

  get endPosition(): { row: number; column: number } {
    return this.tree.positionAt(this.endIndex);
  }

  get childCount(): number {
    return this.children.length;
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  child(index: number): SyntaxNode | null {
    return this.children[index] ?? null;
  }

  namedChild(index: number): SyntaxNode | null {
    return this.namedChildren[index] ?? null;
  }

  get firstChild(): SyntaxNode | null {
    return this.children[0] ?? null;
  }

  get lastChild(): SyntaxNode | null {
    return this.children[this.children.length - 1] ?? null;
  }

  get firstNamedChild(): SyntaxNode | null {
    return this.namedChildren[0] ?? null;
  }

  get lastNamedChild(): SyntaxNode | null {
    return this.namedChildren[this.namedChildren.length - 1] ?? null;
  }

  get nextSibling(): SyntaxNode | null {
    return this.sibling(this.parent?.children, 1);
  }

  get previousSibling(): SyntaxNode | null {
    return this.sibling(this.parent?.children, -1);
  }

  get nextNamedSibling(): SyntaxNode | null {
    return this.sibling(this.parent?.namedChildren, 1);
  }

  get previousNamedSibling(): SyntaxNode | null {
    return this.sibling(this.parent?.namedChildren, -1);
  }

  /** The first child filling `name` (like web-tree-sitter's `childForFieldName`). */
  childForFieldName(name: string): SyntaxNode | null {
    const cs = this.children;
    for (let k = 0; k < cs.length; k++) {
      if (cs[k].fieldName === name) {
        return cs[k];
      }
    }
    return null;
  }

  childrenForFieldName(name: string): SyntaxNode[] {
    return this.children.filter(c => c.fieldName === name);
  }

  /** Descendants (this node included) of the given type(s), in source order. */
  descendantsOfType(types: string | readonly string[]): SyntaxNode[] {
    const want = typeof types === 'string' ? [types] : types;
    const found: SyntaxNode[] = [];
    const rec = (n: SyntaxNode): void => {
      if (want.includes(n.type)) {
        found.push(n);
      }
      for (const c of n.children) {
        rec(c);
      }
    };
    rec(this);
    return found;
  }

  toString(): string {
    return this.namedChildren.length === 0 ? `(${this.type})` : `(${this.type} ${this.namedChildren.map(c => c.toString()).join(' ')})`;
  }

  private sibling(list: readonly SyntaxNode[] | undefined, step: number): SyntaxNode | null {
    if (!list) {
      return null;
    }
    const k = list.indexOf(this);
    return k < 0 ? null : list[k + step] ?? null;
  }
}

/** A parsed cell: the root node and the source it was parsed from. Holds no wasm memory. */
export class SyntaxTree {
  rootNode!: SyntaxNode;
  private lineStarts: number[] | null = null;

  constructor(readonly source: string) {}

  /** Kept for callers written against web-tree-sitter's Tree: nothing to free. */
  delete(): void {
    // the wasm tree was freed right after the copy
  }

  positionAt(index: number): { row: number; column: number } {
    if (!this.lineStarts) {
      this.lineStarts = [0];
      for (let k = this.source.indexOf('\n'); k >= 0; k = this.source.indexOf('\n', k + 1)) {
        this.lineStarts.push(k + 1);
      }
    }
    const starts = this.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= index) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return { row: lo, column: index - starts[lo] };
  }
}

const EMPTY: readonly SyntaxNode[] = Object.freeze([]);
/** tree-sitter's symbol for ERROR nodes (`(TSSymbol)-1`). */
const ERROR_SYMBOL = 0xffff;
let nextNodeId = 1;

/**
 * The cursor operations a copy needs. Two implementations: web-tree-sitter's public
 * `TreeCursor`, and the same wasm exports called directly (no per-call marshalling through
 * JavaScript, ~4x faster); the direct one is used when the module exposes them.
 */
interface CursorOps {
  typeId(): number;
  isNamed(): boolean;
  isMissing(): boolean;
  startIndex(): number;
  endIndex(): number;
  fieldId(): number;
  gotoFirstChild(): boolean;
  gotoNextSibling(): boolean;
  gotoParent(): boolean;
  delete(): void;
}

/** The wasm exports of web-tree-sitter's module this file calls directly. */
interface WasmCursorExports {
  _ts_tree_root_node_wasm(tree: number): void;
  _ts_tree_cursor_new_wasm(tree: number): void;
  _ts_tree_cursor_delete_wasm(tree: number): void;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_current_node_is_named_wasm(tree: number): number;
  _ts_tree_cursor_current_node_is_missing_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_tree_cursor_current_field_id_wasm(tree: number): number;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
}

const WASM_CURSOR_EXPORTS: readonly (keyof WasmCursorExports)[] = [
  '_ts_tree_root_node_wasm',
  '_ts_tree_cursor_new_wasm',
  '_ts_tree_cursor_delete_wasm',
  '_ts_tree_cursor_current_node_type_id_wasm',
  '_ts_tree_cursor_current_node_is_named_wasm',
  '_ts_tree_cursor_current_node_is_missing_wasm',
  '_ts_tree_cursor_start_index_wasm',
  '_ts_tree_cursor_end_index_wasm',
  '_ts_tree_cursor_current_field_id_wasm',
  '_ts_tree_cursor_goto_first_child_wasm',
  '_ts_tree_cursor_goto_next_sibling_wasm',
  '_ts_tree_cursor_goto_parent_wasm'
];

/** The module object, if it carries every export this file calls (else null: use TreeCursor). */
function wasmCursorExports(module: object | undefined): WasmCursorExports | null {
  if (!module) {
    return null;
  }
  const m = module as Record<string, unknown>;
  return WASM_CURSOR_EXPORTS.every(k => typeof m[k] === 'function') ? (module as unknown as WasmCursorExports) : null;
}

/** The wasm handle of a web-tree-sitter Tree (its internal slot 0). */
function treeHandle(tree: Tree): number {
  return (tree as unknown as { 0: number })[0];
}

function directCursor(m: WasmCursorExports, tree: Tree): CursorOps {
  // The cursor lives in web-tree-sitter's transfer buffer between calls: each call reads it
  // from there and the goto calls write it back, so nothing else may run in between.
  const t = treeHandle(tree);
  m._ts_tree_root_node_wasm(t);
  m._ts_tree_cursor_new_wasm(t);
  return {
    typeId: () => m._ts_tree_cursor_current_node_type_id_wasm(t),
    isNamed: () => m._ts_tree_cursor_current_node_is_named_wasm(t) === 1,
    isMissing: () => m._ts_tree_cursor_current_node_is_missing_wasm(t) === 1,
    startIndex: () => m._ts_tree_cursor_start_index_wasm(t),
    endIndex: () => m._ts_tree_cursor_end_index_wasm(t),
    fieldId: () => m._ts_tree_cursor_current_field_id_wasm(t),
    gotoFirstChild: () => m._ts_tree_cursor_goto_first_child_wasm(t) === 1,
    gotoNextSibling: () => m._ts_tree_cursor_goto_next_sibling_wasm(t) === 1,
    gotoParent: () => m._ts_tree_cursor_goto_parent_wasm(t) === 1,
    delete: () => m._ts_tree_cursor_delete_wasm(t)
  };
}

function publicCursor(tree: Tree): CursorOps {
  const c: TreeCursor = tree.walk();
  return {
    typeId: () => c.nodeTypeId,
    isNamed: () => c.nodeIsNamed,
    isMissing: () => c.nodeIsMissing,
    startIndex: () => c.startIndex,
    endIndex: () => c.endIndex,
    fieldId: () => c.currentFieldId,
    gotoFirstChild: () => c.gotoFirstChild(),
    gotoNextSibling: () => c.gotoNextSibling(),
    gotoParent: () => c.gotoParent(),
    delete: () => c.delete()
  };
}

/** Names of node types and fields by id, read once from the language. */
interface LanguageNames {
  types: string[];
  /** Whether each node type is named (a cursor call per node saved). */
  named: boolean[];
  fields: (string | null)[];
}

function languageNames(language: Language): LanguageNames {
  const types: string[] = [];
  const named: boolean[] = [];
  for (let id = 0; id < language.nodeTypeCount; id++) {
    types.push(language.nodeTypeForId(id) ?? 'ERROR');
    named.push(language.nodeTypeIsNamed(id));
  }
  const fields: (string | null)[] = [null];
  for (let id = 1; id <= language.fieldCount; id++) {
    fields.push(language.fieldNameForId(id));
  }
  return { types, named, fields };
}

/** Copies a web-tree-sitter tree into plain objects (one pre-order cursor walk). */
function copyTree(source: string, cursor: CursorOps, names: LanguageNames): SyntaxTree {
  const out = new SyntaxTree(source);
  const make = (parent: SyntaxNode | null): SyntaxNode => {
    const typeId = cursor.typeId();
    const fieldId = parent ? cursor.fieldId() : 0;
    const start = cursor.startIndex();
    const end = cursor.endIndex();
    // namedness follows the (alias) symbol's metadata; only zero-width nodes can be MISSING
    const isNamed = typeId < names.named.length ? names.named[typeId] : cursor.isNamed();
    const isMissing = start === end && cursor.isMissing();
    const node = new SyntaxNode(out, typeId, names.types[typeId] ?? 'ERROR', isNamed, isMissing, start, end, fieldId ? names.fields[fieldId] ?? null : null);
    node.parent = parent;
    return node;
  };
  const root = make(null);
  // explicit stack: (node, its children so far)
  const stack: { node: SyntaxNode; children: SyntaxNode[] }[] = [];
  let current = root;
  for (;;) {
    if (cursor.gotoFirstChild()) {
      stack.push({ node: current, children: [] });
      current = make(current);
      stack[stack.length - 1].children.push(current);
      continue;
    }
    // current is a leaf: climb until a sibling exists
    let moved = false;
    while (stack.length > 0) {
      if (cursor.gotoNextSibling()) {
        const top = stack[stack.length - 1];
        current = make(top.node);
        top.children.push(current);
        moved = true;
        break;
      }
      finish(stack.pop()!);
      cursor.gotoParent();
    }
    if (!moved) {
      break;
    }
  }
  out.rootNode = root;
  return out;

  function finish(entry: { node: SyntaxNode; children: SyntaxNode[] }): void {
    const n = entry.node;
    const named: SyntaxNode[] = [];
    let err = n.isError || n.isMissing;
    for (const c of entry.children) {
      if (c.isNamed) {
        named.push(c);
      }
      if (c.hasError || c.isError || c.isMissing) {
        err = true;
      }
    }
    n.children = Object.freeze(entry.children);
    n.namedChildren = Object.freeze(named);
    n.hasError = err;
  }
}

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
  private readonly names: LanguageNames;
  private readonly direct: WasmCursorExports | null;

  constructor(
    private readonly parser: Parser,
    wasmModule?: object
  ) {
    if (!parser.language) {
      throw new Error('tree-sitter parser has no language');
    }
    this.names = languageNames(parser.language);
    this.direct = wasmCursorExports(wasmModule);
  }

  /** Whether trees are copied through the wasm exports directly (else web-tree-sitter's TreeCursor). */
  get copiesDirectly(): boolean {
    return this.direct !== null;
  }

  /** Parses one cell's (masked) source. Never throws on bad Python: errors become ERROR nodes. */
  parse(source: string): SyntaxTree {
    return this.parseWith(source, this.direct !== null);
  }

  /** `parse`, choosing the copy path (the tests compare both). */
  parseWith(source: string, direct: boolean): SyntaxTree {
    this.parseCount += 1;
    const tree = this.parser.parse(source);
    if (!tree) {
      throw new Error('tree-sitter returned no tree (no language set?)');
    }
    const cursor = direct && this.direct ? directCursor(this.direct, tree) : publicCursor(tree);
    try {
      return copyTree(source, cursor, this.names);
    } finally {
      cursor.delete();
      tree.delete();
    }
  }

  /** The raw web-tree-sitter tree (tests compare the copy against it); the caller deletes it. */
  parseRaw(source: string): Tree {
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
      // Emscripten makes this object the module itself: it then carries the wasm exports the
      // tree copy calls directly (when another caller initialised web-tree-sitter first, it
      // stays empty and the copy uses the public TreeCursor).
      const moduleOptions: object = opts.locateFile ? { locateFile: opts.locateFile } : {};
      await Parser.init(moduleOptions);
      const language = await Language.load(opts.languageWasm);
      const parser = new Parser();
      parser.setLanguage(language);
      ready = new PythonParser(parser, moduleOptions);
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
