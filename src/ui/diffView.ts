/**
 * A read-only unified diff of a cell (original) against its GPU rewrite (candidate):
 * @codemirror/merge's unified view inside a CodeMirror editor that uses JupyterLab's own
 * editor theme and Python highlighting, so it looks like a cell in light and dark themes.
 */
import { python } from '@codemirror/lang-python';
import { syntaxHighlighting } from '@codemirror/language';
import { unifiedMergeView } from '@codemirror/merge';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { jupyterHighlightStyle, jupyterTheme } from '@jupyterlab/codemirror';

export class DiffView {
  constructor(
    parent: HTMLElement,
    readonly original: string,
    readonly candidate: string
  ) {
    this._view = new EditorView({
      parent,
      state: EditorState.create({
        doc: candidate,
        extensions: [
          jupyterTheme,
          syntaxHighlighting(jupyterHighlightStyle),
          python(),
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          // The side panel is narrow: wrap rather than hide the end of long lines.
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({
            'aria-label': 'Changes: removed lines of the original cell, then added lines of the rewrite'
          }),
          unifiedMergeView({
            original,
            mergeControls: false,
            highlightChanges: true,
            gutter: true,
            syntaxHighlightDeletions: true,
            // Long cells: show the changed lines with a little context, fold the rest.
            collapseUnchanged: { margin: 2, minSize: 5 }
          })
        ]
      })
    });
  }

  dispose(): void {
    this._view.destroy();
  }

  private readonly _view: EditorView;
}
