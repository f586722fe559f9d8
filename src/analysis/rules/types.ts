/** What a rule is, and what it returns. */
import type { CellModel, NotebookModel } from '../notebook';
import type { DeviceProfile, Library, Prediction, RuleFamily, TextEdit } from '../types';

export interface RuleOptions {
  /** Suggestions predicted slower than this are refused as "too small" (default 1.5). */
  minSpeedup: number;
  device: DeviceProfile;
}

/** What a rule sees of one cell. */
export interface RuleContext {
  cell: CellModel;
  model: NotebookModel;
  options: RuleOptions;
  /** Per-cell scratch space shared by rules within one update (e.g. one array analysis). */
  shared: Map<string, unknown>;
}

/** The body of a suggestion; the engine adds the cell, the original text and the rule's fields. */
export interface Proposal {
  kind: 'suggest';
  title?: string;
  confidence: number;
  prediction: Prediction;
  edits: TextEdit[];
  candidate: string;
  imports: string[];
  /** Markdown; the engine appends the reference link. */
  explanation: string;
  notes: string[];
  /** A more specific section of the reference than the rule's default. */
  reference?: string;
  needsKernelRestart?: boolean;
}

export interface Decline {
  kind: 'refuse';
  reason: string;
}

export type RuleOutcome = Proposal | Decline;

export interface Rule {
  /** Stable code users cite and silence: GPU101. */
  id: string;
  title: string;
  family: RuleFamily;
  library: Library;
  /** references/<file>.md#<anchor> */
  reference: string;
  /**
   * Optional cheap test the engine runs before `check`: false only when `check` would surely
   * return null for this cell (e.g. the cell names nothing from the rule's library). It must
   * never change results, only skip work; it reads the model like `check` (and is tracked alike).
   */
  prefilter?(ctx: RuleContext): boolean;
  /** Null when the rule does not apply to the cell at all. */
  check(ctx: RuleContext): RuleOutcome | null;
}
