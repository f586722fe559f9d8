/**
 * What Apply changes, computed without touching the notebook: the new source of the
 * suggestion's cell, plus the imports it needs added once at the notebook's import cell.
 *
 * Pure (no DOM, no JupyterLab) so the refusal rules and the import placement are unit tested
 * (test/unit/ui-demo.test.ts). The model performs the plan cell by cell through the shared
 * model (src/ui/model.ts says why not in one transaction).
 */
import type { Suggestion } from '../analysis/types';

/** The part of a notebook cell Apply needs to see. */
export interface CellText {
  id: string;
  kind: 'code' | 'markdown' | 'raw';
  source: string;
}

export interface CellChange {
  cellId: string;
  /** The cell's source before the change (for messages and tests). */
  before: string;
  after: string;
}

export type ApplyPlan =
  | { ok: true; changes: CellChange[]; addedImports: string[] }
  | { ok: false; reason: 'missing-cell' | 'stale'; message: string };

/** Collapses runs of spaces so `import  cupy as cp` and `import cupy as cp` compare equal. */
function normaliseImport(line: string): string {
  return line.trim().replace(/\s+/g, ' ');
}

const TOP_LEVEL_IMPORT = /^(import\s+\S|from\s+\S+\s+import\s)/;

/**
 * Index of the line after the last top-level import statement of `source`, or -1 if it has
 * none. Parenthesised and backslash-continued imports count as one statement, so nothing is
 * ever inserted inside them.
 */
export function lineAfterLastImport(source: string): number {
  const lines = source.split('\n');
  let after = -1;
  for (let i = 0; i < lines.length; i++) {
    if (!TOP_LEVEL_IMPORT.test(lines[i])) {
      continue;
    }
    let end = i;
    if (lines[i].includes('(') && !lines[i].includes(')')) {
      while (end + 1 < lines.length && !lines[end].includes(')')) {
        end++;
      }
    } else {
      while (end + 1 < lines.length && lines[end].trimEnd().endsWith('\\')) {
        end++;
      }
    }
    after = end + 1;
    i = end;
  }
  return after;
}

/** Whether some top-level line of `source` is exactly this import (spacing aside). */
function hasImportLine(source: string, importLine: string): boolean {
  const wanted = normaliseImport(importLine);
  return source.split('\n').some(line => !/^\s/.test(line) && normaliseImport(line) === wanted);
}

function insertLines(source: string, at: number, newLines: string[]): string {
  const lines = source.split('\n');
  lines.splice(at, 0, ...newLines);
  return lines.join('\n');
}

/**
 * Plans Apply for `suggestion` on the notebook's current `cells`.
 *
 * Refuses when the cell is gone or its text is no longer the text the suggestion was computed
 * from (the user typed since): applying then would overwrite their edit.
 *
 * Imports the candidate needs go to the notebook's import cell: the first code cell above the
 * suggestion's cell that has top-level imports, after its last import (and are taken out of
 * the candidate if the engine put them there). An import already made above the cell is not
 * added again. With no import cell above, they open the suggestion's own cell.
 */
export function planApply(cells: readonly CellText[], suggestion: Suggestion): ApplyPlan {
  const targetIndex = cells.findIndex(c => c.id === suggestion.cellId);
  if (targetIndex < 0) {
    return {
      ok: false,
      reason: 'missing-cell',
      message: 'The cell this suggestion was made for is no longer in the notebook.'
    };
  }
  const target = cells[targetIndex];
  if (target.source !== suggestion.original) {
    return {
      ok: false,
      reason: 'stale',
      message:
        'Not applied: the cell changed after this suggestion was computed, and applying it would overwrite your edit. The suggestions are being refreshed.'
    };
  }

  // Only imports that have run by the time the cell runs count: cells above it (and the cell
  // itself), and not inside a cell magic such as `%%gpuoptimize`, whose body may never bind.
  const importsInScope = cells
    .slice(0, targetIndex + 1)
    .filter(c => c.kind === 'code' && !c.source.trimStart().startsWith('%%'));
  let importCellIndex = -1;
  for (let i = 0; i < targetIndex; i++) {
    if (cells[i].kind === 'code' && lineAfterLastImport(cells[i].source) >= 0) {
      importCellIndex = i;
      break;
    }
  }

  // The engine may put the imports in the candidate too (the CLI applies candidates cell by
  // cell, so they must stand alone). With an import cell above, they move there instead, so
  // the notebook imports each library once.
  let candidate = suggestion.candidate;
  if (importCellIndex >= 0) {
    candidate = removeImportLines(candidate, suggestion.imports);
  }
  const missingImports = suggestion.imports.filter(
    imp =>
      !importsInScope.some(c => c.id !== target.id && hasImportLine(c.source, imp)) &&
      !hasImportLine(candidate, imp)
  );
  // One copy of each, in the order the engine gave.
  const addedImports = [...new Set(missingImports.map(normaliseImport))];

  const changes: CellChange[] = [];
  if (addedImports.length > 0) {
    if (importCellIndex >= 0) {
      const importCell = cells[importCellIndex];
      changes.push({
        cellId: importCell.id,
        before: importCell.source,
        after: insertLines(importCell.source, lineAfterLastImport(importCell.source), addedImports)
      });
    } else {
      const at = lineAfterLastImport(candidate);
      candidate = insertLines(candidate, at >= 0 ? at : cellMagicLines(candidate), addedImports);
    }
  }
  changes.push({ cellId: target.id, before: target.source, after: candidate });
  return { ok: true, changes, addedImports };
}

/** `source` without its top-level lines that are exactly one of `imports` (and the blank line they leave at the top). */
function removeImportLines(source: string, imports: readonly string[]): string {
  const wanted = new Set(imports.map(normaliseImport));
  const kept = source.split('\n').filter(line => /^\s/.test(line) || !wanted.has(normaliseImport(line)));
  while (kept.length > 1 && kept[0].trim() === '') {
    kept.shift();
  }
  return kept.join('\n');
}

/** 1 if the cell opens with a cell magic line (`%%time`), which must stay first; else 0. */
function cellMagicLines(source: string): number {
  return source.startsWith('%%') ? 1 : 0;
}

const GPUOPTIMIZE_MAGIC_LINE = /^\s*%%gpuoptimize\b[^\n]*\n?/;

/**
 * The candidate as a self-contained cell for the A/B run and for `register_candidate`: its
 * imports first, and without a `%%gpuoptimize` line (the shim strips it from the baseline;
 * left in the candidate, timing the candidate would run the magic again, recursively).
 */
export function candidateWithImports(suggestion: Suggestion): string {
  const body = suggestion.candidate.replace(GPUOPTIMIZE_MAGIC_LINE, '');
  const missing = suggestion.imports.filter(imp => !hasImportLine(body, imp));
  if (missing.length === 0) {
    return body;
  }
  const at = cellMagicLines(body);
  return insertLines(body, at, missing);
}
