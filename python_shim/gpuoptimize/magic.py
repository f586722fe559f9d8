"""`%%gpuoptimize` and `%gpuoptimize`: the A/B run and the doctor from any frontend."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from . import api, device, harness

#: A line `# %% gpu` splits a cell: baseline above, candidate below.
SPLIT_LINE = re.compile(r"^[ \t]*#[ \t]*%%[ \t]*gpu[ \t]*$", re.MULTILINE)

NO_CANDIDATE = (
    "gpuoptimize: no GPU candidate for this cell, so nothing was run.\n"
    "Get one either way:\n"
    "  - in JupyterLab, open the GPU Optimizer panel and press Benchmark on a suggestion\n"
    "    for this cell (it registers the candidate with the kernel), or\n"
    "  - in any frontend, write the GPU version in the cell below a line `# %% gpu`:\n"
    "        %%gpuoptimize\n"
    "        y = np.sort(x)\n"
    "        # %% gpu\n"
    "        y = cp.asnumpy(cp.sort(cp.asarray(x)))"
)


def split_cell(cell: str) -> tuple[str, str | None]:
    """(baseline, candidate) of a cell; candidate None without a `# %% gpu` line."""
    m = SPLIT_LINE.search(cell)
    if m is None:
        return cell, None
    return cell[: m.start()], cell[m.end() :]


@magics_class
class GpuOptimizeMagics(Magics):
    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.cell_id: str | None = None

    def pre_run_cell(self, info: Any) -> None:
        """Remember the id of the cell about to run (JupyterLab sends it)."""
        self.cell_id = getattr(info, "cell_id", None)

    @magic_arguments()
    @argument(
        "command",
        nargs="?",
        default=None,
        help="line magic only: 'doctor' prints the GPU environment report",
    )
    @argument(
        "--budget",
        type=float,
        default=harness.DEFAULT_BUDGET_S,
        metavar="S",
        help="seconds each side repeats for after its first run (default %(default)s)",
    )
    @argument("--rtol", type=float, default=None, metavar="R", help="relative tolerance")
    @argument("--atol", type=float, default=None, metavar="A", help="absolute tolerance")
    @argument(
        "--apply",
        action="store_true",
        help="bind the candidate's outputs instead of the baseline's",
    )
    @argument("--json", action="store_true", help="print the result as JSON")
    @argument(
        "--allow-side-effects",
        action="store_true",
        help="repeat the cell even though it writes files, plots, prints in loops...",
    )
    @argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="stop a side after S seconds (default max(60, 20 x budget))",
    )
    @argument("--calibrate", action="store_true", help="doctor: also measure bandwidths")
    @line_cell_magic
    def gpuoptimize(self, line: str, cell: str | None = None) -> Any:
        """A/B-time a cell against its GPU rewrite and say which wins, and whether the
        results match.

        The candidate (the GPU version) comes from the JupyterLab extension, which
        registers it for the cell, or from the cell itself: code above a line
        `# %% gpu` is the baseline, code below it the candidate.

        Each side runs in its own copy of the namespace, inputs copied per run, first run
        timed apart, then repeated for the budget with a device synchronize before every
        clock read. Outputs are compared on the host with dtype-aware tolerances.

        Afterwards the cell has its normal effect: the baseline runs once more, untimed,
        in the notebook's own namespace, as if the cell had no magic (its names are bound,
        its last value is the cell's output). With --apply the candidate runs instead.
        Nothing runs for real when the A/B was refused or cancelled, or when the side to
        run failed.

        Cells with side effects (file writes, plots, network, printing in loops...) are
        refused unless --allow-side-effects.

            %gpuoptimize doctor [--calibrate]   GPUs, libraries, known conflicts
        """
        args = parse_argstring(self.gpuoptimize, line)
        if cell is None:
            return self._line(args)
        if args.command:
            print(f"gpuoptimize: unexpected argument {args.command!r} in the cell magic")
            return None
        return self._cell(args, cell)

    # -- line magic ----------------------------------------------------------------------
    def _line(self, args: Any) -> None:
        if args.command == "doctor":
            env = device.environment(calibrate_device=args.calibrate)
            if args.json:
                print(json.dumps(env, indent=1))
            else:
                print(device.format_report(env))
            return
        print(
            "usage: %gpuoptimize doctor [--calibrate] [--json]   or   %%gpuoptimize [options] "
            "as a cell magic (see %%gpuoptimize?)"
        )

    # -- cell magic ----------------------------------------------------------------------
    def _cell(self, args: Any, cell: str) -> Any:
        baseline, candidate = split_cell(cell)
        is_stale = None
        if candidate is None:
            reg = api.REGISTRY.lookup(self.cell_id, cell)
            if reg is None:
                print(NO_CANDIDATE)
                return None
            candidate = reg.candidate
            now = harness.source_hash(api.normalize_source(cell))
            made_for = reg.baseline_hash
            is_stale = lambda: made_for != now  # noqa: E731 (the candidate is for other text)
        baseline_py = api.transform_cell(baseline)
        candidate_py = api.transform_cell(api.normalize_source(candidate))
        result = harness.run_ab(
            baseline_py,
            candidate_py,
            self.shell.user_ns,
            budget_s=args.budget,
            rtol=args.rtol,
            atol=args.atol,
            allow_side_effects=args.allow_side_effects,
            timeout_s=args.timeout,
            is_stale=is_stale,
        )
        data = result.to_json()
        if args.json:
            print(json.dumps(data, indent=1))
        else:
            display(
                {
                    api.AB_MIME: data,
                    "text/plain": result.format(),
                    "image/svg+xml": bar_chart(result),
                },
                raw=True,
            )
        return self._bind(result, baseline_py, candidate_py, args.apply)

    def _bind(self, result: harness.ABResult, baseline: str, candidate: str, apply: bool) -> Any:
        """Give the cell its normal effect: run one side once more, for real and untimed,
        in the user's namespace (so functions it defines see the notebook's globals and
        objects it changes in place are the user's own)."""
        if result.verdict in ("refused", "cancelled"):
            return None
        use_candidate = apply and result.candidate.status == "ok"
        if apply and not use_candidate:
            print("gpuoptimize: the candidate failed, so the baseline runs instead")
        if not use_candidate and result.baseline.status != "ok":
            return None  # the baseline fails: the A/B result above says why
        source = candidate if use_candidate else baseline
        return harness.run_for_real(source, self.shell.user_ns)


def bar_chart(result: harness.ABResult) -> str:
    """A small SVG: baseline vs candidate, end-to-end and (where measured) device."""
    rows: list[tuple[str, float | None, float | None]] = [
        ("end-to-end", result.baseline.median_s, result.candidate.median_s)
    ]
    if result.candidate.device_s is not None:
        base_dev = result.baseline.device_s or result.baseline.median_s
        rows.append(("device", base_dev, result.candidate.device_s))
    values = [v for _, b, c in rows for v in (b, c) if v]
    width, bar_h, left = 360, 14, 84
    height = 20 + len(rows) * (2 * bar_h + 14)
    scale = (width - left - 70) / max(values) if values else 0.0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="11">',
        f'<text x="0" y="12">{html.escape(result.verdict)}</text>',
    ]
    y = 20
    for label, b, c in rows:
        parts.append(f'<text x="0" y="{y + bar_h + 4}">{label}</text>')
        for who, v, color in (("baseline", b, "#888888"), ("candidate", c, "#76b900")):
            w = max(1.0, (v or 0.0) * scale)
            parts.append(
                f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{color}">'
                f"<title>{who}</title></rect>"
            )
            parts.append(
                f'<text x="{left + w + 4:.1f}" y="{y + bar_h - 4}">{harness._fmt_s(v)}</text>'
            )
            y += bar_h
        y += 14
    parts.append("</svg>")
    return "".join(parts)


_registered: dict[int, GpuOptimizeMagics] = {}


def register(ip: Any) -> None:
    magics = GpuOptimizeMagics(ip)
    ip.register_magics(magics)
    ip.events.register("pre_run_cell", magics.pre_run_cell)
    _registered[id(ip)] = magics


def unregister(ip: Any) -> None:
    magics = _registered.pop(id(ip), None)
    if magics is not None:
        try:
            ip.events.unregister("pre_run_cell", magics.pre_run_cell)
        except ValueError:
            pass
