/**
 * Reading the CLI's inputs: notebooks (nbformat 4 and 3) and Python files, from paths and
 * folders, into the engine's `CellInput`s. Every problem becomes a message, never a throw,
 * so one bad file does not stop the others.
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { extname, join } from 'path';
import type { CellInput } from '../analysis/types';

/** Files larger than this are refused: a notebook this big is data, not code. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

export interface LoadedFile {
  path: string;
  kind: 'notebook' | 'python';
  cells: CellInput[];
  /** For .py files: the line (0-based) each cell starts at, to map findings back. */
  cellStartLines?: number[];
  /** The parsed notebook JSON (nbformat 4), kept so `fix` can write it back. */
  notebook?: NotebookJSON;
}

export interface SkippedFile {
  path: string;
  /** 'error' files count as "could not be analysed"; 'note' files were skipped on purpose. */
  severity: 'error' | 'note';
  message: string;
}

export interface NotebookCellJSON {
  cell_type: string;
  source: string | string[];
  id?: string;
  metadata?: Record<string, unknown>;
  outputs?: unknown[];
  execution_count?: number | null;
  [key: string]: unknown;
}

export interface NotebookJSON {
  nbformat: number;
  nbformat_minor: number;
  metadata: Record<string, unknown>;
  cells: NotebookCellJSON[];
}

function joinSource(src: unknown): string {
  if (Array.isArray(src)) {
    return src.map(s => String(s)).join('');
  }
  return typeof src === 'string' ? src : '';
}

function cellKind(type: unknown): CellInput['kind'] {
  if (type === 'code') {
    return 'code';
  }
  if (type === 'raw') {
    return 'raw';
  }
  return 'markdown';
}

/** The notebook's language, from its kernelspec or language_info; null if it does not say. */
function notebookLanguage(metadata: Record<string, unknown>): string | null {
  const ks = metadata.kernelspec as Record<string, unknown> | undefined;
  const li = metadata.language_info as Record<string, unknown> | undefined;
  const lang = (ks && ks.language) ?? (li && li.name);
  return typeof lang === 'string' ? lang.toLowerCase() : null;
}

/**
 * Parses notebook text. nbformat 3 (worksheets, `input`) is converted to the 4 layout, so the
 * rest of the CLI sees one shape.
 */
export function parseNotebook(path: string, text: string): LoadedFile | SkippedFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { path, severity: 'error', message: `not a valid notebook: invalid JSON (${(e as Error).message})` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { path, severity: 'error', message: 'not a valid notebook: the top level is not an object' };
  }
  const nb = raw as Record<string, unknown>;
  const metadata = (typeof nb.metadata === 'object' && nb.metadata !== null ? nb.metadata : {}) as Record<string, unknown>;
  let cellsJSON: NotebookCellJSON[];
  if (nb.nbformat === 3 || (nb.nbformat === undefined && Array.isArray(nb.worksheets))) {
    const worksheets = Array.isArray(nb.worksheets) ? nb.worksheets : [];
    cellsJSON = [];
    for (const ws of worksheets as Record<string, unknown>[]) {
      for (const c of (Array.isArray(ws.cells) ? ws.cells : []) as Record<string, unknown>[]) {
        const isCode = c.cell_type === 'code';
        cellsJSON.push({
          cell_type: isCode ? 'code' : c.cell_type === 'raw' ? 'raw' : 'markdown',
          source: joinSource(isCode ? c.input : c.source),
          metadata: {},
          ...(isCode ? { outputs: [], execution_count: null } : {})
        });
      }
    }
  } else if (nb.nbformat === 4 && Array.isArray(nb.cells)) {
    cellsJSON = nb.cells as NotebookCellJSON[];
  } else {
    return { path, severity: 'error', message: `not a valid notebook: unsupported nbformat ${String(nb.nbformat)}` };
  }
  const lang = notebookLanguage(metadata);
  if (lang !== null && lang !== 'python') {
    return { path, severity: 'note', message: `skipped: the notebook's kernel language is ${lang}, not Python` };
  }
  const cells: CellInput[] = cellsJSON.map((c, index) => ({
    id: typeof c.id === 'string' ? c.id : `cell-${index}`,
    index,
    kind: cellKind(c.cell_type),
    source: joinSource(c.source)
  }));
  const notebook: NotebookJSON = {
    nbformat: 4,
    nbformat_minor: typeof nb.nbformat_minor === 'number' && nb.nbformat === 4 ? nb.nbformat_minor : 5,
    metadata,
    cells: cellsJSON
  };
  return { path, kind: 'notebook', cells, notebook };
}

/** A cell marker of the percent format (`# %%`, `# %% [markdown]`, `#%%`). */
const CELL_MARKER = /^#\s*%%(.*)$/;

/** A .py file is one cell, or one cell per `# %%` block when it has markers. */
export function parsePythonFile(path: string, text: string): LoadedFile {
  const lines = text.split('\n');
  const starts: number[] = [];
  const kinds: CellInput['kind'][] = [];
  lines.forEach((line, i) => {
    const m = CELL_MARKER.exec(line);
    if (m) {
      starts.push(i);
      kinds.push(/\[markdown\]/.test(m[1]) ? 'markdown' : 'code');
    }
  });
  if (starts.length === 0) {
    return {
      path,
      kind: 'python',
      cells: [{ id: 'cell-0', index: 0, kind: 'code', source: text }],
      cellStartLines: [0]
    };
  }
  const cells: CellInput[] = [];
  const cellStartLines: number[] = [];
  // Code before the first marker is a cell of its own (imports usually live there).
  if (starts[0] > 0 && lines.slice(0, starts[0]).some(l => l.trim() !== '')) {
    cells.push({ id: 'cell-0', index: 0, kind: 'code', source: lines.slice(0, starts[0]).join('\n') });
    cellStartLines.push(0);
  }
  starts.forEach((start, k) => {
    const end = k + 1 < starts.length ? starts[k + 1] : lines.length;
    const index = cells.length;
    cells.push({
      id: `cell-${index}`,
      index,
      kind: kinds[k],
      source: lines.slice(start + 1, end).join('\n')
    });
    cellStartLines.push(start + 1);
  });
  return { path, kind: 'python', cells, cellStartLines };
}

/**
 * `text` (a .py file `parsePythonFile` read into `cells`) with each cell's source replaced by
 * `sources[k]`: the markers, their titles and every line outside the cells stay byte for byte,
 * so a rewrite of a percent-format script is the same script with its cells changed.
 */
export function replacePythonCells(text: string, loaded: LoadedFile, sources: readonly string[]): string {
  const lines = text.split('\n');
  const starts = loaded.cellStartLines ?? [0];
  // each cell runs from its start line to the next cell's marker (the line before its start), the
  // last one to the end of the file; a cell before the first marker ends at that marker
  const out: string[] = [];
  let at = 0;
  starts.forEach((start, k) => {
    const end = k + 1 < starts.length ? starts[k + 1] - 1 : lines.length;
    out.push(...lines.slice(at, start));
    out.push(...sources[k].split('\n'));
    at = end;
  });
  out.push(...lines.slice(at));
  return out.join('\n');
}

/** Cells as a percent-format script (`# %%` code cells, `# %% [markdown]` cells as comments). */
export function toPercentScript(cells: readonly { kind: string; source: string }[]): string {
  return cells
    .map(c => {
      if (c.kind === 'code') {
        return `# %%\n${c.source.replace(/\n+$/, '')}`;
      }
      const body = c.source.split('\n').map(l => (l === '' ? '#' : `# ${l}`)).join('\n');
      return `# %% [${c.kind === 'markdown' ? 'markdown' : 'raw'}]\n${body}`;
    })
    .join('\n\n') + '\n';
}

function looksBinary(buf: Buffer): boolean {
  const n = Math.min(buf.length, 8000);
  for (let i = 0; i < n; i++) {
    if (buf[i] === 0) {
      return true;
    }
  }
  return false;
}

/** Loads one file; the result says why when it cannot be analysed. */
export function loadFile(path: string): LoadedFile | SkippedFile {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (e) {
    return { path, severity: 'error', message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}` };
  }
  if (size > MAX_FILE_BYTES) {
    return {
      path,
      severity: 'error',
      message: `too large to analyse (${(size / 1e6).toFixed(0)} MB > ${MAX_FILE_BYTES / 1e6} MB)`
    };
  }
  const buf = readFileSync(path);
  if (looksBinary(buf)) {
    return { path, severity: 'error', message: 'binary file: not a notebook or Python source' };
  }
  const text = buf.toString('utf8');
  const ext = extname(path).toLowerCase();
  if (ext === '.ipynb') {
    return parseNotebook(path, text);
  }
  if (ext === '.py') {
    return parsePythonFile(path, text);
  }
  return { path, severity: 'error', message: `unsupported file type ${ext || '(none)'}: expected .ipynb or .py` };
}

const SKIPPED_DIRS = new Set(['node_modules', '__pycache__', '.ipynb_checkpoints', '.git', '.venv', 'venv']);

/** Expands folders into the .ipynb and .py files under them, sorted for stable output. */
export function expandPaths(paths: string[]): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.') || SKIPPED_DIRS.has(name)) {
        continue;
      }
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) {
        walk(full);
      } else if (/\.(ipynb|py)$/i.test(name)) {
        files.push(full);
      }
    }
  };
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      missing.push(p);
      continue;
    }
    if (st.isDirectory()) {
      walk(p);
    } else {
      files.push(p);
    }
  }
  return { files, missing };
}
