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
  readonly type: string;
  readonly startIndex: number;
  readonly endIndex: number;
  /** The field this node fills in its parent (`function`, `left`...), or null. */
  readonly fieldName: string | null;
  /** Position of this node in its tree's pre-order list (`SyntaxTree.nodes`). */
  readonly order: number;
  /** Where this node's subtree ends in that list (exclusive): its descendants are `order + 1 .. subtreeEnd - 1`. */
  subtreeEnd: number;
  parent: SyntaxNode | null = null;
  namedChildren: readonly SyntaxNode[] = EMPTY;
  /**
   * Scratch slots for the analysis (one field each instead of a Map keyed by node): what a
   * derived value was computed for (`memoKey`, e.g. one rules run of one model) and the value.
   * Only the owner of a key reads or writes the slot with that key (see notebook.ts).
   */
  memoKey: object | null = null;
  memoValue: unknown = undefined;
  /** The same, for a second memo that lives as long as one notebook model (qualified names). */
  nameKey: object | null = null;
  nameValue: string | null = null;
  /** What `callArguments` read from this call (it depends on the tree only). */
  argsCache: { positional: SyntaxNode[]; keywords: Map<string, SyntaxNode> } | null = null;
  /** NAMED | MISSING | HAS_ERROR | COMPACT bits (one field instead of four). */
  private flags: number;
  /**
   * The children; while COMPACT, anonymous leaves (punctuation, keywords, operators) are still
   * numbers there (rows of `tree.leaves`), made into nodes when `children` is first read.
   */
  private childList: readonly (SyntaxNode | number)[] = EMPTY;
  private textCache: string | undefined;

  constructor(
    readonly tree: SyntaxTree,
    type: string,
    isNamed: boolean,
    isMissing: boolean,
    startIndex: number,
    endIndex: number,
    fieldName: string | null,
    order: number
  ) {
    this.type = type;
    this.startIndex = startIndex;
    this.endIndex = endIndex;
    this.fieldName = fieldName;
    this.order = order;
    this.subtreeEnd = order + 1;
    this.flags = (isNamed ? NAMED : 0) | (isMissing || type === 'ERROR' ? errorBits(isMissing) : 0);
  }

  /** Unique among all nodes this process has built (each tree reserves a range of ids). */
  get id(): number {
    return this.tree.firstId + this.order;
  }

  get isNamed(): boolean {
    return (this.flags & NAMED) !== 0;
  }

  get isMissing(): boolean {
    return (this.flags & MISSING) !== 0;
  }

  /** True when this node is an ERROR, MISSING, or contains one. */
  get hasError(): boolean {
    return (this.flags & HAS_ERROR) !== 0;
  }

  /** All children, named and anonymous (the anonymous leaves are made into nodes on first use). */
  get children(): readonly SyntaxNode[] {
    if ((this.flags & COMPACT) !== 0) {
      const list = this.childList;
      const out = new Array<SyntaxNode>(list.length);
      for (let k = 0; k < list.length; k++) {
        const c = list[k];
        out[k] = typeof c === 'number' ? this.tree.leafNode(c, this) : c;
      }
      this.childList = Object.freeze(out);
      this.flags &= ~COMPACT;
    }
    return this.childList as readonly SyntaxNode[];
  }

  /**
   * Set by the copy once the children are known: `list` holds nodes and (compact) leaf rows,
   * `named` the named nodes among them, `err` whether one of them has an error.
   */
  setChildren(list: readonly (SyntaxNode | number)[], named: readonly SyntaxNode[], compact: boolean, err: boolean): void {
    this.childList = list;
    this.namedChildren = named;
    this.flags |= (compact ? COMPACT : 0) | (err ? HAS_ERROR : 0);
  }

  get isError(): boolean {
    return this.type === 'ERROR';
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
    const cs = this.childList;
    for (let k = 0; k < cs.length; k++) {
      const c = cs[k];
      if (typeof c === 'number' ? this.tree.leafField(c) === name : c.fieldName === name) {
        return typeof c === 'number' ? this.children[k] : c;
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
  /**
   * The id of `rootNode`; its nodes have ids `firstId .. firstId + nodes.length - 1`, the
   * anonymous leaves the ids after those.
   */
  firstId = 0;
  /**
   * Every node but the anonymous leaves, in pre-order: `rootNode` first. (Anonymous leaves are
   * kept as rows of `leaves` until their parent's `children` is read; walks skip them anyway.)
   */
  nodes: readonly SyntaxNode[] = EMPTY;
  /** LEAF_FIELDS numbers a row: type id, start, end, field id, missing (1 or 0). */
  leaves: readonly number[] = [];
  private lineStarts: number[] | null = null;

  constructor(
    readonly source: string,
    private readonly names: LanguageNames
  ) {}

  /** The anonymous leaf of row `row` as a node (its parent makes it once, when asked). */
  leafNode(row: number, parent: SyntaxNode): SyntaxNode {
    const at = row * LEAF_FIELDS;
    const l = this.leaves;
    const fieldId = l[at + 3];
    const node = new SyntaxNode(
      this,
      this.names.types[l[at]] ?? 'ERROR',
      false,
      l[at + 4] === 1,
      l[at + 1],
      l[at + 2],
      fieldId ? this.names.fields[fieldId] ?? null : null,
      this.nodes.length + row
    );
    node.parent = parent;
    return node;
  }

  /** The field an anonymous leaf fills, without making the node. */
  leafField(row: number): string | null {
    const fieldId = this.leaves[row * LEAF_FIELDS + 3];
    return fieldId ? this.names.fields[fieldId] ?? null : null;
  }

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
const NAMED = 1;
const MISSING = 2;
const HAS_ERROR = 4;
/** `childList` still holds leaf rows (numbers). */
const COMPACT = 8;
/** Numbers per row of `SyntaxTree.leaves`. */
const LEAF_FIELDS = 5;
/** A MISSING node has an error; so has an ERROR node (tree-sitter's symbol 0xffff, type 'ERROR'). */
function errorBits(isMissing: boolean): number {
  return isMissing ? MISSING | HAS_ERROR : HAS_ERROR;
}
/** The first id of the next tree's range (`SyntaxNode.id`). */
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
    types.push(internalized(language.nodeTypeForId(id) ?? 'ERROR'));
    named.push(language.nodeTypeIsNamed(id));
  }
  const fields: (string | null)[] = [null];
  for (let id = 1; id <= language.fieldCount; id++) {
    const name = language.fieldNameForId(id);
    fields.push(name === null ? null : internalized(name));
  }
  return { types, named, fields };
}

/**
 * The engine's own (internalized) copy of a string read from wasm memory. The names web-tree-sitter
 * decodes are plain heap strings: every `node.type === 'call'` compared their characters; an
 * internalized string equals a literal by identity. A property key is internalized, so the key
 * read back is.
 */
function internalized(s: string): string {
  return Object.keys({ [s]: 0 })[0];
}

/**
 * Copies a web-tree-sitter tree into plain objects (one pre-order cursor walk). Nodes are made in
 * pre-order into `tree.nodes`; each remembers its position there (`order`) and the end of its
 * subtree (`subtreeEnd`), so walks can run over that array without recursion.
 */
function copyTree(source: string, cursor: CursorOps, names: LanguageNames): SyntaxTree {
  const out = new SyntaxTree(source, names);
  const nodes: SyntaxNode[] = [];
  const leaves: number[] = [];
  const { types, named: namedTypes, fields } = names;
  const make = (typeId: number, isNamed: boolean, isMissing: boolean, start: number, end: number, fieldId: number, parent: SyntaxNode | null): SyntaxNode => {
    const node = new SyntaxNode(out, types[typeId] ?? 'ERROR', isNamed, isMissing, start, end, fieldId ? fields[fieldId] ?? null : null, nodes.length);
    node.parent = parent;
    nodes.push(node);
    return node;
  };
  // the open ancestors of the cursor's node; the children made so far, all open ancestors'
  // together (each ancestor's are the top of the list from where `firsts` says)
  const parents: SyntaxNode[] = [];
  const firsts: number[] = [];
  const pending: (SyntaxNode | number)[] = [];
  /**
   * Reads the node under the cursor (a child of `parent`) into `pending`: a node, or for an
   * anonymous leaf a row of `leaves` (returns null: nothing to descend into).
   */
  const arrive = (parent: SyntaxNode): SyntaxNode | null => {
    const typeId = cursor.typeId();
    const fieldId = cursor.fieldId();
    const start = cursor.startIndex();
    const end = cursor.endIndex();
    // namedness follows the (alias) symbol's metadata; only zero-width nodes can be MISSING
    const isNamed = typeId < namedTypes.length ? namedTypes[typeId] : cursor.isNamed();
    const isMissing = start === end && cursor.isMissing();
    if (!isNamed) {
      if (!cursor.gotoFirstChild()) {
        pending.push(leaves.length / LEAF_FIELDS);
        leaves.push(typeId, start, end, fieldId, isMissing ? 1 : 0);
        return null;
      }
      // an anonymous node with children (rare): a node like the others
      cursor.gotoParent();
    }
    const node = make(typeId, isNamed, isMissing, start, end, fieldId, parent);
    pending.push(node);
    return node;
  };
  const rootTypeId = cursor.typeId();
  const rootStart = cursor.startIndex();
  const rootEnd = cursor.endIndex();
  const root = make(rootTypeId, rootTypeId < namedTypes.length ? namedTypes[rootTypeId] : cursor.isNamed(), rootStart === rootEnd && cursor.isMissing(), rootStart, rootEnd, 0, null);
  let current: SyntaxNode | null = root;
  for (;;) {
    if (current !== null && cursor.gotoFirstChild()) {
      parents.push(current);
      firsts.push(pending.length);
      current = arrive(current);
      continue;
    }
    // current is a leaf: climb until a sibling exists
    let moved = false;
    while (parents.length > 0) {
      if (cursor.gotoNextSibling()) {
        current = arrive(parents[parents.length - 1]);
        moved = true;
        break;
      }
      const first = firsts.pop()!;
      // one exact-size array per parent
      finish(parents.pop()!, pending.slice(first), nodes.length, leaves);
      pending.length = first;
      cursor.gotoParent();
    }
    if (!moved) {
      break;
    }
  }
  out.rootNode = root;
  out.nodes = nodes;
  out.leaves = leaves;
  out.firstId = nextNodeId;
  nextNodeId += nodes.length + leaves.length / LEAF_FIELDS;
  return out;
}

/** The `count` named nodes among `children`, in an array of exactly that size. */
function namedOf(children: readonly (SyntaxNode | number)[], count: number): SyntaxNode[] {
  const out = new Array<SyntaxNode>(count);
  let j = 0;
  for (let k = 0; k < children.length; k++) {
    const c = children[k];
    if (typeof c !== 'number' && c.isNamed) {
      out[j++] = c;
    }
  }
  return out;
}

/**
 * Sets a node's children once they are all made (`end`: where its subtree ends in pre-order;
 * `leaves`: the rows the numbers among `children` point to).
 */
function finish(n: SyntaxNode, children: (SyntaxNode | number)[], end: number, leaves: readonly number[]): void {
  let named = 0;
  let rows = 0;
  let err = false;
  for (let k = 0; k < children.length; k++) {
    const c = children[k];
    if (typeof c === 'number') {
      rows++;
      // a MISSING leaf is an error of its parent
      if (leaves[c * LEAF_FIELDS + 4] === 1) {
        err = true;
      }
      continue;
    }
    if (c.isNamed) {
      named++;
    }
    if (c.hasError) {
      err = true;
    }
  }
  const list = Object.freeze(children);
  // most nodes have only named children or none: share the array then
  const namedList = named === children.length ? (list as readonly SyntaxNode[]) : named === 0 ? EMPTY : Object.freeze(namedOf(children, named));
  n.setChildren(list, namedList, rows > 0, err);
  n.subtreeEnd = end;
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
