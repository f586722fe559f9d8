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
 * A syntax node: a view of one row of its tree's node table (see `SyntaxTree`).
 *
 * web-tree-sitter answers every property of its `Node` (type, children, fields...) with a call
 * into wasm and a new wrapper object, which made the rules' repeated walks over a cell cost ~20x
 * the parse. `PythonParser.parse` therefore copies each tree once into a table of numbers (one
 * cursor walk) and frees the wasm tree. A `SyntaxNode` is two fields (the tree, the row); it is
 * made when asked for and not kept: a notebook's trees hold no node objects, so the garbage
 * collector never copies them (keeping one object per node cost more than the copy itself).
 * The members mirror web-tree-sitter's `Node` (the subset the analysis uses), so code reads the
 * same.
 *
 * Two views of one node are different objects: compare nodes by `id` (or `order` within a tree),
 * never with `===`. Arrays returned (`children`, `namedChildren`) are new on each call.
 */
export class SyntaxNode {
  constructor(
    readonly tree: SyntaxTree,
    /** The node's row: its position in its tree's pre-order (the root is 0). */
    readonly order: number
  ) {}

  get type(): string {
    return this.tree.typeAt(this.order);
  }

  get startIndex(): number {
    return this.tree.data[this.order * ROW + START];
  }

  get endIndex(): number {
    return this.tree.data[this.order * ROW + END];
  }

  /** Where this node's subtree ends in pre-order (exclusive): its descendants are `order + 1 .. subtreeEnd - 1`. */
  get subtreeEnd(): number {
    return this.tree.data[this.order * ROW + SUBTREE_END];
  }

  /** The field this node fills in its parent (`function`, `left`...), or null. */
  get fieldName(): string | null {
    return this.tree.fieldAt(this.order);
  }

  /** Unique among all nodes this process has parsed (each tree reserves a range of ids). */
  get id(): number {
    return this.tree.firstId + this.order;
  }

  get isNamed(): boolean {
    return (this.tree.data[this.order * ROW + KIND] & NAMED_BIT) !== 0;
  }

  get isMissing(): boolean {
    return (this.tree.data[this.order * ROW + KIND] & MISSING_BIT) !== 0;
  }

  /** True when this node is an ERROR, MISSING, or contains one. */
  get hasError(): boolean {
    return (this.tree.data[this.order * ROW + KIND] & ERROR_BIT) !== 0;
  }

  get isError(): boolean {
    return this.type === 'ERROR';
  }

  get parent(): SyntaxNode | null {
    const p = this.tree.data[this.order * ROW + PARENT];
    return p < 0 ? null : new SyntaxNode(this.tree, p);
  }

  /** All children, named and anonymous. */
  get children(): SyntaxNode[] {
    const t = this.tree;
    const d = t.data;
    const out: SyntaxNode[] = [];
    const end = d[this.order * ROW + SUBTREE_END];
    for (let c = this.order + 1; c < end; c = d[c * ROW + SUBTREE_END]) {
      out.push(new SyntaxNode(t, c));
    }
    return out;
  }

  /** The named children. */
  get namedChildren(): SyntaxNode[] {
    const t = this.tree;
    const d = t.data;
    const out: SyntaxNode[] = [];
    const end = d[this.order * ROW + SUBTREE_END];
    for (let c = this.order + 1; c < end; c = d[c * ROW + SUBTREE_END]) {
      if ((d[c * ROW + KIND] & NAMED_BIT) !== 0) {
        out.push(new SyntaxNode(t, c));
      }
    }
    return out;
  }

  /** The node's source text (the masked source the tree was parsed from). */
  get text(): string {
    const d = this.tree.data;
    return this.tree.source.slice(d[this.order * ROW + START], d[this.order * ROW + END]);
  }

  /** Row (0-based, counted in `\n`) and column (JavaScript string units) of the start. */
  get startPosition(): { row: number; column: number } {
    return this.tree.positionAt(this.startIndex);
  }

  get endPosition(): { row: number; column: number } {
    return this.tree.positionAt(this.endIndex);
  }

  get childCount(): number {
    return this.countChildren(false);
  }

  get namedChildCount(): number {
    return this.countChildren(true);
  }

  child(index: number): SyntaxNode | null {
    return this.nthChild(index, false);
  }

  namedChild(index: number): SyntaxNode | null {
    return this.nthChild(index, true);
  }

  get firstChild(): SyntaxNode | null {
    return this.nthChild(0, false);
  }

  get lastChild(): SyntaxNode | null {
    return this.lastOf(false);
  }

  get firstNamedChild(): SyntaxNode | null {
    return this.nthChild(0, true);
  }

  get lastNamedChild(): SyntaxNode | null {
    return this.lastOf(true);
  }

  get nextSibling(): SyntaxNode | null {
    return this.siblingAfter(false);
  }

  get previousSibling(): SyntaxNode | null {
    return this.siblingBefore(false);
  }

  get nextNamedSibling(): SyntaxNode | null {
    return this.siblingAfter(true);
  }

  get previousNamedSibling(): SyntaxNode | null {
    return this.siblingBefore(true);
  }

  /** The first child filling `name` (like web-tree-sitter's `childForFieldName`). */
  childForFieldName(name: string): SyntaxNode | null {
    const t = this.tree;
    const fieldId = t.fieldId(name);
    if (fieldId === 0) {
      return null;
    }
    const d = t.data;
    const end = d[this.order * ROW + SUBTREE_END];
    for (let c = this.order + 1; c < end; c = d[c * ROW + SUBTREE_END]) {
      if (d[c * ROW + KIND] >>> FIELD_SHIFT === fieldId) {
        return new SyntaxNode(t, c);
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
    const t = this.tree;
    const found: SyntaxNode[] = [];
    const end = this.subtreeEnd;
    for (let k = this.order; k < end; k++) {
      if (want.includes(t.typeAt(k))) {
        found.push(new SyntaxNode(t, k));
      }
    }
    return found;
  }

  toString(): string {
    const named = this.namedChildren;
    return named.length === 0 ? `(${this.type})` : `(${this.type} ${named.map(c => c.toString()).join(' ')})`;
  }

  private countChildren(namedOnly: boolean): number {
    const d = this.tree.data;
    const end = d[this.order * ROW + SUBTREE_END];
    let count = 0;
    for (let c = this.order + 1; c < end; c = d[c * ROW + SUBTREE_END]) {
      if (!namedOnly || (d[c * ROW + KIND] & NAMED_BIT) !== 0) {
        count++;
      }
    }
    return count;
  }

  private nthChild(index: number, namedOnly: boolean): SyntaxNode | null {
    const d = this.tree.data;
    const end = d[this.order * ROW + SUBTREE_END];
    let k = 0;
    for (let c = this.order + 1; c < end; c = d[c * ROW + SUBTREE_END]) {
      if (!namedOnly || (d[c * ROW + KIND] & NAMED_BIT) !== 0) {
        if (k++ === index) {
          return new SyntaxNode(this.tree, c);
        }
      }
    }
    return null;
  }

  private lastOf(namedOnly: boolean): SyntaxNode | null {
    const d = this.tree.data;
    const end = d[this.order * ROW + SUBTREE_END];
    let last = -1;
    for (let c = this.order + 1; c < end; c = d[c * ROW + SUBTREE_END]) {
      if (!namedOnly || (d[c * ROW + KIND] & NAMED_BIT) !== 0) {
        last = c;
      }
    }
    return last < 0 ? null : new SyntaxNode(this.tree, last);
  }

  private siblingAfter(namedOnly: boolean): SyntaxNode | null {
    const d = this.tree.data;
    const p = d[this.order * ROW + PARENT];
    if (p < 0) {
      return null;
    }
    const end = d[p * ROW + SUBTREE_END];
    for (let c = d[this.order * ROW + SUBTREE_END]; c < end; c = d[c * ROW + SUBTREE_END]) {
      if (!namedOnly || (d[c * ROW + KIND] & NAMED_BIT) !== 0) {
        return new SyntaxNode(this.tree, c);
      }
    }
    return null;
  }

  private siblingBefore(namedOnly: boolean): SyntaxNode | null {
    const d = this.tree.data;
    const p = d[this.order * ROW + PARENT];
    if (p < 0) {
      return null;
    }
    let last = -1;
    for (let c = p + 1; c < this.order; c = d[c * ROW + SUBTREE_END]) {
      if (!namedOnly || (d[c * ROW + KIND] & NAMED_BIT) !== 0) {
        last = c;
      }
    }
    return last < 0 ? null : new SyntaxNode(this.tree, last);
  }
}

/**
 * A parsed cell: the source and its node table. Holds no wasm memory and no node objects.
 *
 * The table (`data`) has one row of `ROW` numbers per node, every node (anonymous leaves too) in
 * pre-order, the root in row 0: kind bits (type id, field id, named/missing/error flags), start,
 * end, parent row, and the row where the node's subtree ends. A node's first child is the next
 * row, its next sibling the row where its subtree ends; so walks are loops over rows.
 *
 * Values the analysis derives per node and asks for again and again are kept per tree, by row,
 * with the object they were computed for (`memo`): see notebook.ts and syntax.ts.
 */
export class SyntaxTree {
  readonly rootNode: SyntaxNode;
  /** Node type names by type id (`typeAt`; the walks in syntax.ts read rows through it). */
  readonly typeNames: readonly string[];
  /** The id of row 0; row k has id `firstId + k` (`SyntaxNode.id`). */
  readonly firstId: number;
  private lineStarts: number[] | null = null;
  private memos: (Memo | undefined)[] | null = null;
  private types: TypeIndex | null = null;

  constructor(
    readonly source: string,
    private readonly names: LanguageNames,
    /** The node table (see the class comment). */
    readonly data: Int32Array,
    /** Number of nodes (rows). */
    readonly count: number
  ) {
    this.rootNode = new SyntaxNode(this, 0);
    this.typeNames = names.types;
    this.firstId = nextNodeId;
    nextNodeId += count;
  }

  /** The node at row `k` (a new view). */
  node(k: number): SyntaxNode {
    return new SyntaxNode(this, k);
  }

  typeAt(k: number): string {
    return this.typeNames[this.data[k * ROW + KIND] & TYPE_MASK] ?? 'ERROR';
  }

  fieldAt(k: number): string | null {
    const f = this.data[k * ROW + KIND] >>> FIELD_SHIFT;
    return f === 0 ? null : this.names.fields[f] ?? null;
  }

  isNamedAt(k: number): boolean {
    return (this.data[k * ROW + KIND] & NAMED_BIT) !== 0;
  }

  subtreeEndAt(k: number): number {
    return this.data[k * ROW + SUBTREE_END];
  }

  /** The language's id of a field name (0 when the grammar has no such field). */
  fieldId(name: string): number {
    return this.names.fieldIds.get(name) ?? 0;
  }

  /**
   * The per-row slots of one memo (`slot` tells which: inferred values, qualified names, call
   * arguments) for `owner`, the object the values were computed for (one rules run, one model):
   * a tree keeps one owner per slot; asking with another owner starts the slots afresh.
   */
  memo(slot: number, owner: object): unknown[] {
    // exactly one entry per slot (an array grown by assignment would hold 17: kept as long as the tree)
    const memos = (this.memos ??= new Array<Memo | undefined>(MEMO_SLOTS));
    let m = memos[slot];
    if (m === undefined || m.owner !== owner) {
      m = { owner, values: [] };
      memos[slot] = m;
    }
    return m.values;
  }

  /** Lets go of a memo's values (when its owner is done with them). */
  forget(slot: number, owner: object): void {
    const m = this.memos?.[slot];
    if (m !== undefined && m.owner === owner) {
      this.memos![slot] = undefined;
    }
  }

  /**
   * The rows of each named node type, in pre-order, leaving out the nodes inside an anonymous
   * node's subtree (which the walks never reach), and which rows those are (`walkTypes`). Built
   * on first use (one pass over the rows) and kept: it depends on the tree only.
   */
  typeIndex(): TypeIndex {
    if (this.types) {
      return this.types;
    }
    const d = this.data;
    const names = this.typeNames;
    const rows = new Map<string, number[]>();
    const hidden = new Uint8Array(this.count);
    let hideUntil = 0;
    for (let k = 0; k < this.count; k++) {
      if (k < hideUntil) {
        hidden[k] = 1;
        continue;
      }
      const kind = d[k * ROW + KIND];
      if ((kind & NAMED_BIT) === 0) {
        hideUntil = d[k * ROW + SUBTREE_END];
        continue;
      }
      const type = names[kind & TYPE_MASK] ?? 'ERROR';
      const list = rows.get(type);
      if (list) {
        list.push(k);
      } else {
        rows.set(type, [k]);
      }
    }
    this.types = { rows, hidden };
    return this.types;
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

/** `SyntaxTree.typeIndex`: rows by node type (named nodes the walks reach), and the rows they never reach. */
export interface TypeIndex {
  readonly rows: ReadonlyMap<string, readonly number[]>;
  /** 1 for a row inside an anonymous node's subtree. */
  readonly hidden: Uint8Array;
}

/** One memo of a tree: the values by row, and what they were computed for. */
interface Memo {
  owner: object;
  values: unknown[];
}

/** Memo slots (`SyntaxTree.memo`). */
export const MEMO_VALUES = 0;
export const MEMO_NAMES = 1;
export const MEMO_ARGS = 2;
const MEMO_SLOTS = 3;

/** Numbers per row of `SyntaxTree.data`, and what each holds (the row walks of syntax.ts read them too). */
export const ROW = 5;
/** type id (bits 0-15), flags (16-18), field id (from FIELD_SHIFT) */
export const KIND = 0;
const START = 1;
const END = 2;
const PARENT = 3;
export const SUBTREE_END = 4;
export const TYPE_MASK = 0xffff;
export const NAMED_BIT = 1 << 16;
const MISSING_BIT = 1 << 17;
/** The node is an ERROR or MISSING node, or contains one. */
const ERROR_BIT = 1 << 18;
const FIELD_SHIFT = 19;
/** tree-sitter's ERROR symbol. */
const ERROR_SYMBOL = 0xffff;
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
  /** Field ids by name (`childForFieldName`). */
  fieldIds: Map<string, number>;
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
  const fieldIds = new Map<string, number>();
  fields.forEach((name, id) => {
    if (name !== null && !fieldIds.has(name)) {
      fieldIds.set(name, id);
    }
  });
  return { types, named, fields, fieldIds };
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

/** The copy's working table, grown as needed and reused by every copy (trees get an exact-size slice). */
let scratch = new Int32Array(4096 * ROW);
/** The open ancestors' rows during a copy (reused likewise). */
let ancestors = new Int32Array(256);

/**
 * Copies a web-tree-sitter tree into a node table (one pre-order cursor walk; see `SyntaxTree`).
 */
function copyTree(source: string, cursor: CursorOps, names: LanguageNames): SyntaxTree {
  const namedTypes = names.named;
  let d = scratch;
  let n = 0;
  let depth = 0;
  /** Writes the node under the cursor as row `n` (child of row `parent`); returns its row. */
  const arrive = (parent: number): number => {
    const typeId = cursor.typeId();
    const start = cursor.startIndex();
    const end = cursor.endIndex();
    // namedness follows the (alias) symbol's metadata; only zero-width nodes can be MISSING
    const isNamed = typeId < namedTypes.length ? namedTypes[typeId] : cursor.isNamed();
    const isMissing = start === end && cursor.isMissing();
    if ((n + 1) * ROW > d.length) {
      const grown = new Int32Array(d.length * 2);
      grown.set(d);
      d = scratch = grown;
    }
    const at = n * ROW;
    d[at + KIND] =
      (typeId & TYPE_MASK) |
      (isNamed ? NAMED_BIT : 0) |
      (isMissing ? MISSING_BIT | ERROR_BIT : typeId === ERROR_SYMBOL ? ERROR_BIT : 0) |
      (cursor.fieldId() << FIELD_SHIFT);
    d[at + START] = start;
    d[at + END] = end;
    d[at + PARENT] = parent;
    d[at + SUBTREE_END] = n + 1;
    return n++;
  };
  let current = arrive(-1);
  for (;;) {
    if (cursor.gotoFirstChild()) {
      if (depth === ancestors.length) {
        const grown = new Int32Array(depth * 2);
        grown.set(ancestors);
        ancestors = grown;
      }
      ancestors[depth++] = current;
      current = arrive(current);
      continue;
    }
    // current has no children: climb until a sibling exists, closing the subtrees left
    let moved = false;
    while (depth > 0) {
      if (cursor.gotoNextSibling()) {
        current = arrive(ancestors[depth - 1]);
        moved = true;
        break;
      }
      d[ancestors[--depth] * ROW + SUBTREE_END] = n;
      cursor.gotoParent();
    }
    if (!moved) {
      break;
    }
  }
  // a node has an error when one of its descendants has (children come after their parent)
  for (let k = n - 1; k > 0; k--) {
    if ((d[k * ROW + KIND] & ERROR_BIT) !== 0) {
      d[d[k * ROW + PARENT] * ROW + KIND] |= ERROR_BIT;
    }
  }
  return new SyntaxTree(source, names, d.slice(0, n * ROW), n);
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
