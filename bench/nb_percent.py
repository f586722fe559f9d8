"""Py-percent files <-> notebooks, cell for cell and byte for byte.

The whole-notebook bench (bench/notebooks_fix.sh, bench/run_notebooks.py) keeps its notebooks
as py-percent text, which diffs and reviews well, while `gpuoptimize fix` reads and writes
.ipynb. Timings and comparisons are per cell, so a conversion must never merge, split or
alter a cell: each cell's source survives .py -> .ipynb -> .py exactly (checked by
`roundtrip`). No jupytext on the GPU machine, hence this small format of our own:

    # %%                      a code cell; its source follows verbatim
    # %% [markdown]           a markdown cell; each line commented as `# text` (`#` if empty)

One blank line separates cells. Comment lines before the first marker are the file's header
(what the notebook is, how its data is made), not a cell. Plain Python: no nbformat needed.
"""

from __future__ import annotations

import json
import sys

CODE = "# %%"
MARKDOWN = "# %% [markdown]"


def parse(text: str) -> list[tuple[str, str]]:
    """The (cell_type, source) pairs of a py-percent text; raises ValueError on lines before
    the first marker that are not comments (they would silently belong to no cell)."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line in (CODE, MARKDOWN)]
    head = lines[: starts[0]] if starts else lines
    if any(line and not line.startswith("#") for line in head):
        raise ValueError("code before the first `# %%` marker")
    cells = []
    for k, start in enumerate(starts):
        last = k == len(starts) - 1
        body = "\n".join(lines[start + 1 : starts[k + 1] if not last else len(lines)])
        # the lines up to the next marker end with one empty line: the blank separator
        # line, or the empty string after the file's last line end
        if not body.endswith("\n"):
            raise ValueError(f"cell {k}: no blank line before the next marker or file end")
        body = body[:-1]
        if lines[start] == MARKDOWN:
            body = "\n".join(_uncomment(line) for line in body.split("\n"))
            cells.append(("markdown", body))
        else:
            cells.append(("code", body))
    return cells


def _uncomment(line: str) -> str:
    if line == "#":
        return ""
    if not line.startswith("# "):
        raise ValueError(f"markdown line not commented as `# `: {line!r}")
    return line[2:]


def render(cells: list[tuple[str, str]], header: str = "") -> str:
    """The py-percent text of `cells` (inverse of `parse`); `header`: comment lines on top."""
    parts = [header] if header else []
    for k, (kind, source) in enumerate(cells):
        if kind == "code" and any(line in (CODE, MARKDOWN) for line in source.split("\n")):
            raise ValueError(f"cell {k}: a line equal to a cell marker")
        if kind == "markdown":
            source = "\n".join(f"# {line}" if line else "#" for line in source.split("\n"))
        parts.append(f"{MARKDOWN if kind == 'markdown' else CODE}\n{source}\n")
    return "\n".join(parts)


def to_notebook(cells: list[tuple[str, str]]) -> dict:
    """A minimal nbformat 4.4 notebook (no cell ids needed) with a Python 3 kernelspec."""
    nb_cells = []
    for kind, source in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        nb_cells.append(cell)
    return {
        "cells": nb_cells,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 4,
    }


def from_notebook(nb: dict) -> list[tuple[str, str]]:
    """The (cell_type, source) pairs of a notebook's JSON (raw cells kept as code would not
    run: refused)."""
    cells = []
    for k, c in enumerate(nb["cells"]):
        if c["cell_type"] not in ("code", "markdown"):
            raise ValueError(f"cell {k}: {c['cell_type']} cells are not supported")
        src = c["source"]
        cells.append((c["cell_type"], src if isinstance(src, str) else "".join(src)))
    return cells


def roundtrip(cells: list[tuple[str, str]]) -> None:
    """Raise if `cells` do not survive render -> parse unchanged."""
    back = parse(render(cells))
    if back != cells:
        bad = next(k for k, (a, b) in enumerate(zip(cells, back, strict=False)) if a != b)
        raise ValueError(f"cell {bad} changes in a py-percent round trip ({len(cells)} cells)")


def main(argv: list[str]) -> int:
    """`nb_percent.py to-ipynb IN.py OUT.ipynb` or `nb_percent.py to-py IN.ipynb OUT.py
    [HEADER]`, each checking that the cells survive the way back."""
    if len(argv) < 3 or argv[0] not in ("to-ipynb", "to-py"):
        print(main.__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        text = f.read()
    if argv[0] == "to-ipynb":
        cells = parse(text)
        roundtrip(cells)
        out = json.dumps(to_notebook(cells), indent=1, ensure_ascii=False) + "\n"
    else:
        cells = from_notebook(json.loads(text))
        roundtrip(cells)
        header = (
            "\n".join(f"# {line}" for line in argv[3].split("\n")) + "\n" if len(argv) > 3 else ""
        )
        out = render(cells, header)
        if parse(out) != cells:
            raise ValueError("the header changes the cells")
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
