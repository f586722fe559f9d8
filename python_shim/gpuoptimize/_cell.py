"""Static facts about a cell's source, read with `ast`: inputs, outputs, side effects.

Plain Python (no IPython). The harness uses these facts to decide what to copy per run,
what to compare afterwards, and what it must refuse to repeat.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

#: Name the harness binds the value of the cell's last expression to.
LAST_VALUE = "__gpuoptimize_last__"

#: Top-level modules whose use means a side may run on a GPU.
GPU_MODULES = frozenset(
    {
        "cupy",
        "cupyx",
        "numba",
        "torch",
        "warp",
        "cudf",
        "cuml",
        "cugraph",
        "nx_cugraph",
        "cuvs",
        "cucim",
        "kvikio",
        "dask_cuda",
        "pylibraft",
        "rmm",
        "jax",
    }
)

# Methods that change their receiver in place (list, dict, set, ndarray, DataFrame...).
_MUTATING_METHODS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "clear",
        "sort",
        "reverse",
        "update",
        "setdefault",
        "popitem",
        "add",
        "discard",
        "difference_update",
        "intersection_update",
        "symmetric_difference_update",
        "fill",
        "resize",
        "put",
        "itemset",
        "setflags",
        "partition",
        "byteswap",
        "copy_to_device",
        "set",
        "fit",
        "partial_fit",
        "add_edge",
        "add_edges_from",
        "add_node",
        "add_nodes_from",
        "remove_node",
        "remove_edge",
    }
)

# Calls (dotted names as written, last parts) that write files or talk to the outside.
_WRITER_METHODS = frozenset(
    {
        "to_csv",
        "to_parquet",
        "to_excel",
        "to_json",
        "to_pickle",
        "to_hdf",
        "to_feather",
        "to_sql",
        "to_orc",
        "to_stata",
        "to_clipboard",
        "savefig",
        "tofile",
        "write_text",
        "write_bytes",
        "touch",
        "unlink",
        "rmdir",
        "mkdir",
        "rename",
        "replace_file",
        "symlink_to",
    }
)
_WRITER_FUNCS = {
    ("np", "save"),
    ("np", "savez"),
    ("np", "savez_compressed"),
    ("np", "savetxt"),
    ("numpy", "save"),
    ("numpy", "savez"),
    ("numpy", "savez_compressed"),
    ("numpy", "savetxt"),
    ("cp", "save"),
    ("cp", "savez"),
    ("cupy", "save"),
    ("cupy", "savez"),
    ("torch", "save"),
    ("pickle", "dump"),
    ("json", "dump"),
    ("joblib", "dump"),
    ("os", "remove"),
    ("os", "unlink"),
    ("os", "rename"),
    ("os", "replace"),
    ("os", "makedirs"),
    ("os", "mkdir"),
    ("os", "rmdir"),
    ("os", "removedirs"),
    ("os", "system"),
    ("os", "chdir"),
    ("os", "putenv"),
    ("os", "kill"),
}
_EXTERNAL_MODULES = {
    "requests": "network access (requests)",
    "urllib": "network access (urllib)",
    "httpx": "network access (httpx)",
    "aiohttp": "network access (aiohttp)",
    "socket": "network access (socket)",
    "smtplib": "network access (smtplib)",
    "boto3": "network access (boto3)",
    "subprocess": "runs a subprocess",
    "shutil": "changes files (shutil)",
    "plt": "plots (matplotlib)",
    "pyplot": "plots (matplotlib)",
    "sns": "plots (seaborn)",
    "webbrowser": "opens a browser",
}
#: Names that conventionally hold modules: `np.sort(a)` calls a function of a module, it
#: does not sort `np` in place, and a module is never a cell's output.
MODULE_ALIASES = frozenset(
    {
        "np",
        "numpy",
        "cp",
        "cupy",
        "cupyx",
        "csp",
        "cpx",
        "pd",
        "scipy",
        "sp",
        "torch",
        "jnp",
        "jax",
        "math",
        "random",
        "os",
        "sys",
        "nb",
        "numba",
        "cuda",
        "cudf",
        "cuml",
        "wp",
        "warp",
        "nx",
        "ndimage",
        "ndi",
        "signal",
        "fft",
        "linalg",
        "sparse",
        "plt",
        "sns",
    }
)
_RANDOM_ATTRS = ("random", "default_rng", "rand", "randn", "randint", "randperm", "normal")


#: One operand of a sum or difference (`transform_operands`): a name (name, None), a frame's
#: column read by its name (frame, column), or an exact operand as a float (a number's
#: magnitude; nan for an expression computed from no transform).
Operand = tuple[str, str | None] | float


@dataclass
class CellFacts:
    """What the harness needs to know about one side's source."""

    inputs: list[str] = field(default_factory=list)
    #: Names bound only as `for` targets at the top level (loop counters, not results).
    loop_vars: set[str] = field(default_factory=set)
    #: The source's fused kernels (`fused_kernels`): the intermediates they keep in registers
    #: instead of binding them.
    fused_kernels: list[FusedKernel] = field(default_factory=list)
    #: Names bound from a clock read (`t0 = time.perf_counter()`, `elapsed = time.time() - t0`):
    #: timings of the run, not results (`clock_names`).
    clocks: set[str] = field(default_factory=set)
    #: Names bound from a vector decomposition (`vector_names`): compared up to sign.
    vectors: set[str] = field(default_factory=set)
    #: Names bound from an FFT-family call (`transform_names`): compared relative to their
    #: largest value.
    transforms: set[str] = field(default_factory=set)
    #: Each of `transforms` with the transform outputs it is computed from
    #: (`transform_sources`): their dtypes give the precision its values were computed in.
    transform_sources: dict[str, set[str]] = field(default_factory=dict)
    #: The frames among `transforms` whose columns the source spells out, each column with the
    #: transform outputs it is computed from, None for one computed from none
    #: (`transform_columns`): each column is judged at its own precision.
    transform_columns: dict[str, dict[str, set[str] | None]] = field(default_factory=dict)
    #: The names (and frames' columns) among `transforms` bound from a sum or difference, with
    #: its operands (`transform_operands`): their values, not the result's, set its rounding.
    transform_operands: dict[tuple[str, str | None], list[Operand]] = field(default_factory=dict)
    #: Names a top-level loop binds and reads within each iteration, read nowhere after it
    #: (`loop_temporaries`): one iteration's scratch values, not results of the cell.
    loop_temporaries: set[str] = field(default_factory=set)
    outputs: list[str] = field(default_factory=list)
    mutated: list[str] = field(default_factory=list)
    has_last_value: bool = False
    side_effects: list[str] = field(default_factory=list)
    uses_random: bool = False
    imports: set[str] = field(default_factory=set)
    referenced_modules: set[str] = field(default_factory=set)


def _dotted(node: ast.AST) -> list[str]:
    """`a.b.c` -> ["a", "b", "c"]; anything else -> []."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return []


def _root_name(node: ast.AST) -> str | None:
    """The name a subscript/attribute chain hangs from: `a[0].b` -> "a"."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _open_mode(call: ast.Call) -> str | None:
    mode: ast.AST | None = call.args[1] if len(call.args) > 1 else None
    for kw in call.keywords:
        if kw.arg == "mode":
            mode = kw.value
    if mode is None:
        return "r"
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return mode.value
    return None  # computed mode: unknown


class _Scanner(ast.NodeVisitor):
    """Walks a cell in execution order, tracking what is read before it is written."""

    def __init__(self) -> None:
        self.bound: set[str] = set()
        self.inputs: dict[str, None] = {}
        self.outputs: dict[str, None] = {}
        self.mutated: dict[str, None] = {}
        self.side_effects: list[str] = []
        self.uses_random = False
        self.imports: set[str] = set()
        self.referenced: set[str] = set()
        self._loop_depth = 0
        self._func_depth = 0
        self.loop_targets: set[str] = set()
        #: Names known to hold modules: conventional aliases and this cell's imports.
        self.modules: set[str] = set(MODULE_ALIASES)
        self.imported: set[str] = set()

    # -- names ------------------------------------------------------------------------
    def _read(self, name: str) -> None:
        self.referenced.add(name)
        if name not in self.bound:
            self.inputs.setdefault(name)

    def _bind(self, name: str) -> None:
        self.modules.discard(name)  # an assigned name holds a value (imports re-add it)
        if self._func_depth == 0:
            self.bound.add(name)
            self.outputs.setdefault(name)

    def _mutate(self, target: ast.AST) -> None:
        name = _root_name(target)
        if name is not None and name in self.modules:
            self._read(name)  # `np.sort(a)`, `np.random.shuffle`: a module, not a value
            return
        if name is not None:
            self._read(name)
            if self._func_depth == 0 or name in self.inputs:
                self.mutated.setdefault(name)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._read(node.id)
        else:
            self._bind(node.id)

    # -- statements in evaluation order -----------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for t in node.targets:
            self._target(t)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self._target(node.target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self._read(node.target.id)
            # `a += 1` on an ndarray or list changes the object in place.
            self.mutated.setdefault(node.target.id)
            self._bind(node.target.id)
        else:
            self._mutate(node.target)
            self.visit(node.target)

    def _target(self, t: ast.AST) -> None:
        if isinstance(t, ast.Name):
            self._bind(t.id)
        elif isinstance(t, ast.Tuple | ast.List):
            for e in t.elts:
                self._target(e)
        elif isinstance(t, ast.Starred):
            self._target(t.value)
        else:  # a[i] = ..., a.x = ...
            self._mutate(t)
            self.visit(t)

    def visit_Delete(self, node: ast.Delete) -> None:
        for t in node.targets:
            if isinstance(t, ast.Name):
                self.bound.discard(t.id)
            else:
                self._mutate(t)
                self.visit(t)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        self._target(node.target)
        if self._func_depth == 0:
            self.loop_targets |= _names_in(node.target)
        self._loop_depth += 1
        for s in node.body:
            self.visit(s)
        self._loop_depth -= 1
        for s in node.orelse:
            self.visit(s)

    visit_AsyncFor = visit_For

    def visit_While(self, node: ast.While) -> None:
        self._loop_depth += 1
        self.generic_visit(node)
        self._loop_depth -= 1

    def _comprehension(self, node: ast.AST) -> None:
        # Comprehension variables are local; free names inside are reads.
        saved = set(self.bound)
        self._func_depth += 1
        self._loop_depth += 1
        for gen in node.generators:  # type: ignore[attr-defined]
            self.visit(gen.iter)
            self._target(gen.target)
            self.bound |= _names_in(gen.target)
            for cond in gen.ifs:
                self.visit(cond)
        for part in ("elt", "key", "value"):
            if hasattr(node, part):
                self.visit(getattr(node, part))
        self._loop_depth -= 1
        self._func_depth -= 1
        self.bound = saved

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(d)
        self._bind(node.name)
        saved = set(self.bound)
        self.bound |= _arg_names(node.args) | _locals_of(node)
        self._func_depth += 1
        for s in node.body:
            self.visit(s)
        self._func_depth -= 1
        self.bound = saved | {node.name}

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        saved = set(self.bound)
        self.bound |= _arg_names(node.args)
        self._func_depth += 1
        self.visit(node.body)
        self._func_depth -= 1
        self.bound = saved

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for d in node.decorator_list + node.bases:
            self.visit(d)
        self._func_depth += 1
        for s in node.body:
            self.visit(s)
        self._func_depth -= 1
        self._bind(node.name)

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.imports.add(a.name.split(".")[0])
            bound = (a.asname or a.name).split(".")[0]
            self._bind(bound)
            self.modules.add(bound)
            if self._func_depth == 0:
                self.imported.add(bound)
            self._external(a.name.split(".")[0], node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = (node.module or "").split(".")[0]
        if mod:
            self.imports.add(mod)
            self._external(mod, node)
        for a in node.names:
            if a.name != "*":
                self._bind(a.asname or a.name)
                if (node.module or "").endswith("pyplot") or a.name == "pyplot":
                    self.side_effects.append(f"line {node.lineno}: plots (matplotlib)")

    def visit_Global(self, node: ast.Global) -> None:
        if self._func_depth:
            for n in node.names:
                self.outputs.setdefault(n)

    def _external(self, mod: str, node: ast.AST) -> None:
        if mod in _EXTERNAL_MODULES and mod not in ("plt", "sns", "pyplot"):
            self.side_effects.append(f"line {node.lineno}: {_EXTERNAL_MODULES[mod]}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        parts = _dotted(node)
        if parts:
            if parts[0] in _EXTERNAL_MODULES and len(parts) > 1:
                self._note(node, _EXTERNAL_MODULES[parts[0]])
            if any(p in _RANDOM_ATTRS for p in parts[1:]) and parts[0] in (
                "np",
                "numpy",
                "cp",
                "cupy",
                "random",
                "torch",
                "jax",
                "rng",
            ):
                self.uses_random = True
            if parts[0] == "os" and len(parts) > 1 and parts[1] == "environ":
                pass  # reading the environment is harmless; writes are caught below
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        parts = _dotted(f)
        if isinstance(f, ast.Name):
            if f.id == "open":
                mode = _open_mode(node)
                if mode is None or any(c in mode for c in "wax+"):
                    self._note(node, f"writes a file (open(..., {mode!r}))")
            elif f.id == "input":
                self._note(node, "asks for input (input())")
            elif f.id == "print" and self._loop_depth:
                self._note(node, "prints inside a loop")
            elif f.id in ("display", "exec", "eval", "breakpoint"):
                self._note(node, f"calls {f.id}()")
            elif f.id in ("default_rng", "RandomState"):
                self.uses_random = True
        elif isinstance(f, ast.Attribute):
            if f.attr in _WRITER_METHODS:
                self._note(node, f"writes or changes files (.{f.attr}())")
            elif f.attr == "open":
                # Path.open(mode), gzip.open(path, mode), ...: any literal mode that writes.
                consts = [a for a in node.args if isinstance(a, ast.Constant)]
                consts += [k.value for k in node.keywords if k.arg == "mode"]
                for c in consts:
                    v = getattr(c, "value", None)
                    writes = isinstance(v, str) and bool(set(v) & set("wax+"))
                    if writes and set(v) <= set("rwabxt+"):
                        self._note(node, f"writes a file (.open(..., {v!r}))")
            elif f.attr == "plot" or f.attr == "show":
                self._note(node, f"plots (.{f.attr}())")
            if len(parts) >= 2 and (parts[-2], parts[-1]) in _WRITER_FUNCS:
                self._note(node, f"writes or changes files ({'.'.join(parts)}())")
            if f.attr in _MUTATING_METHODS:
                self._mutate(f.value)
            if parts[-2:] == ["random", "shuffle"] and node.args:
                self._mutate(node.args[0])
        for kw in node.keywords:
            if kw.arg == "out":
                for el in kw.value.elts if isinstance(kw.value, ast.Tuple) else [kw.value]:
                    self._mutate(el)
            if kw.arg == "inplace" and not (
                isinstance(kw.value, ast.Constant) and kw.value.value is False
            ):
                if isinstance(f, ast.Attribute):
                    self._mutate(f.value)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            self._mutate(node)
            if _dotted(node.value) == ["os", "environ"]:
                self._note(node, "changes os.environ")
        self.generic_visit(node)

    def _note(self, node: ast.AST, what: str) -> None:
        line = getattr(node, "lineno", 0)
        entry = f"line {line}: {what}"
        if entry not in self.side_effects:
            self.side_effects.append(entry)


def _names_in(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _arg_names(args: ast.arguments) -> set[str]:
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
    return names


def _locals_of(fn: ast.AST) -> set[str]:
    """Names a function body assigns (its locals), minus those declared global."""
    declared_global: set[str] = set()
    assigned: set[str] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Global):
            declared_global.update(n.names)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            assigned.add(n.id)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n is not fn:
            assigned.add(n.name)
        elif isinstance(n, ast.alias):
            assigned.add((n.asname or n.name).split(".")[0])
    return assigned - declared_global


@dataclass(frozen=True)
class FusedKernel:
    """One GPU103 kernel for a group of statements (`cp.ElementwiseKernel(in, out, operation,
    ...)`), by its C names."""

    #: Every C name it declares: its parameters and its locals.
    names: frozenset[str]
    #: The locals that stand for a Python name: an intermediate nothing reads after the fused
    #: statements, declared `const double y = ...` and never bound by the rewrite.
    locals: frozenset[str]


#: An output's register in a fused kernel's operation: its declaration, then the output set to it.
_REGISTER_PAIR = re.compile(r"\bconst (?:float|double) (\w+) = [^;]*; (\w+) = \1\s*(?:;|$)")


def _param_names(params: str) -> set[str]:
    """The names of an ElementwiseKernel's parameter list (`'float64 x, float64 z'`)."""
    return {p.split()[-1] for p in params.split(",") if p.strip()}


def fused_kernels(tree: ast.AST) -> list[FusedKernel]:
    """The source's `*.ElementwiseKernel(in, out, operation, ...)` calls whose parameter lists
    and operation are string literals, as GPU103 writes them. An output's own register (`const
    double y_ = ...; y = y_`: later statements of the group read it) is not a local that stands
    for a Python name: the rewrite binds the output."""
    kernels: list[FusedKernel] = []
    for n in ast.walk(tree):
        args = n.args if isinstance(n, ast.Call) else []
        if not (
            isinstance(n, ast.Call)
            and _dotted(n.func)[-1:] == ["ElementwiseKernel"]
            and len(args) >= 3
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args[:3])
        ):
            continue
        in_params, out_params, operation = (a.value for a in args[:3])  # type: ignore[attr-defined]
        outputs = _param_names(out_params)
        declared = re.findall(r"\bconst (?:float|double) (\w+) = ", operation)
        # the line pair fusion.ts writes for an output read later: `const T y_ = v; y = y_`
        pairs = _REGISTER_PAIR.findall(operation)
        registers = {local for local, out in pairs if out in outputs}
        kernels.append(
            FusedKernel(
                names=frozenset(_param_names(in_params) | outputs | set(declared)),
                locals=frozenset(set(declared) - registers),
            )
        )
    return kernels


_CLOCKS = frozenset(
    {"perf_counter", "perf_counter_ns", "time", "time_ns", "monotonic", "monotonic_ns"}
    | {"default_timer"}
)


#: Calls whose vectors are unique only up to sign: an output bound from one that differs may be
#: equal up to each column's or row's sign (compare.compare_up_to_sign).
_VECTOR_DECOMPOSITIONS = frozenset({"eigh", "eig", "svd", "eigsh", "eigs", "svds", "lobpcg"})


#: FFT-family calls (numpy.fft, scipy.fft, scipy.fftpack, cupy.fft; scipy.signal's spectral
#: functions, which run one): their rounding follows the transform's norm, so an output bound
#: from an expression with one is compared relative to its largest value
#: (compare.compare_relative_to_largest).
_TRANSFORMS = frozenset(
    {f"{i}{r}fft{d}" for i in ("", "i") for r in ("", "r") for d in ("", "2", "n")}
    | {"hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn"}
    | {f"{i}{t}{d}" for i in ("", "i") for t in ("dct", "dst") for d in ("", "n")}
    | {"fftconvolve", "oaconvolve", "welch", "periodogram", "csd", "spectrogram", "stft"}
)


def _bound_from_calls(tree: ast.AST, called: frozenset[str], *, whole: bool) -> set[str]:
    """Names the cell assigns (`_assignments`: not inside a def, lambda or class) from a call of
    a function named in `called` (its last dotted name): the whole value (`whole`: `w, v =
    np.linalg.eigh(A)`), or any call the expression makes when it runs, comprehensions included
    (`elapsed = time.perf_counter() - t0`; a lambda's body runs later, if ever). Tuple and list
    targets bind each of their names."""
    names: set[str] = set()
    for n in _assignments(tree):
        calls = [n.value] if whole else list(_walk_scope(n.value))
        if any(isinstance(c, ast.Call) and (_dotted(c.func) or [""])[-1] in called for c in calls):
            names |= _target_names(n)
    return names


#: Nodes whose bodies are another scope: names they assign are not the cell's, and the code
#: in them runs when called, not where it stands. A comprehension is not one here: it runs
#: where it stands, and only its own loop variables are local to it.
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _walk_scope(node: ast.AST) -> Iterable[ast.AST]:
    """`ast.walk` of `node` that does not enter a def, lambda or class (`node` itself
    included: the value of `f = lambda x: np.fft.fft(x)` calls nothing when it runs)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, _SCOPES):
            todo.extend(ast.iter_child_nodes(n))


def _assignments(tree: ast.AST) -> list[ast.Assign | ast.AugAssign | ast.AnnAssign]:
    """Every assignment with a value in the cell's own scope (not in a def, lambda or class
    body: those bind the function's locals or the class's attributes), in source order."""
    found = [
        n
        for n in _walk_scope(tree)
        if isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign) and n.value is not None
    ]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _target_names(n: ast.Assign | ast.AugAssign | ast.AnnAssign) -> set[str]:
    """The names an assignment binds: tuple and list targets bind each of their names."""
    return {
        e.id
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        for e in (t.elts if isinstance(t, ast.Tuple | ast.List) else [t])
        if isinstance(e, ast.Name)
    }


def clock_names(tree: ast.AST) -> set[str]:
    """Names the source binds from expressions that read a clock (`time.perf_counter()`,
    `timeit.default_timer()`, `perf_counter()` imported by name): each run gives other values."""
    return _bound_from_calls(tree, _CLOCKS, whole=False)


def vector_names(tree: ast.AST) -> set[str]:
    """Names the source binds from a vector decomposition (`w, v = np.linalg.eigh(A)`, `U, s, Vt
    = svd(M)`, `res = eigh(A)`): only these are compared up to sign."""
    return _bound_from_calls(tree, _VECTOR_DECOMPOSITIONS, whole=True)


def transform_names(tree: ast.AST) -> set[str]:
    """Names the source binds from an expression with an FFT-family call (`X = np.fft.fft(x)`,
    `S = np.abs(np.fft.rfft(frames * w)) ** 2`, `f, P = signal.welch(x)`, a call of a function
    the source defines that runs one: `c = xcorr(img)`), or from one that reads such a name
    bound before it (`F = np.fft.fft2(x); power = np.abs(F) ** 2`: the transform's rounding
    carries into what is computed from it; not a comparison of it), or fills one with such a
    value (`est.append(subpixel(c))`, `df["err"] = ...`): only these are compared relative to
    their largest value."""
    return set(transform_sources(tree))


def transform_sources(tree: ast.AST) -> dict[str, set[str]]:
    """`transform_names`, each with the transform outputs it is computed from (`power` of
    `F = np.fft.fft2(x); power = np.abs(F) ** 2`: {"F"}; through every step, so `m =
    power.mean(0)` gives {"F", "power"}); an output bound from the call itself has none. The
    derived name's values carry the rounding of the precision those were computed in
    (a float64 centroid computed from a float32 power spectrum has float32's)."""
    return _TransformProvenance(tree).sources


def transform_columns(tree: ast.AST) -> dict[str, dict[str, set[str] | None]]:
    """The frames among `transform_names` built column by column where the source says which
    column holds what (`pd.DataFrame({"true_y": t[:, 0], "est_y": est[:, 0]})`, then
    `df["err"] = np.hypot(df["est_y"] - df["true_y"], ...)`): each column with the transform
    outputs it is computed from, None for a column computed from none (judged at its own
    dtype's tolerance, not the frame's lowest precision). A frame rebound otherwise, or filled
    through anything but a column by its name, has no entry: its columns are judged as the
    whole frame's sources say."""
    return _TransformProvenance(tree).frame_columns()


def transform_operands(tree: ast.AST) -> dict[tuple[str, str | None], list[Operand]]:
    """The names among `transform_names` (and frames' columns, `transform_columns`, as (frame,
    column)) bound last from a sum or difference (`err = est - true_shifts`, `df["err"] =
    np.hypot(df["est_y"] - df["true_y"], ...)`, through abs/hypot/negation), each with its
    operands (`_sum_operands`). A difference of two values of about 40 that comes out near 0.2
    carries their rounding, not its own: about rtol * 40, which is 2e-3 of 0.2 (cancellation);
    its tolerance is set by its largest operand's values, as theirs is."""
    return _TransformProvenance(tree).sum_operands()


#: Elementwise calls through which a difference's rounding passes unchanged in size (at most
#: that of their arguments'): |x|, hypot(x, y), -x.
_SIZE_KEEPING = frozenset({"abs", "absolute", "fabs", "hypot", "negative", "positive"})


def _sum_operands(expr: ast.AST) -> list[ast.AST] | None:
    """The operands of the sum or difference `expr` is (`a - b`, `a + b - 3`, `np.abs(a - b)`,
    `np.hypot(a - b, c - d)`, `np.add(a, b)`): each a name, a subscript or attribute of one, a
    number, or any other expression (a product, a call: the caller judges it); None when
    `expr` is no sum or difference (a product's rounding is relative to the product itself)."""
    leaves: list[ast.AST] = []
    sums = 0

    def visit(e: ast.AST) -> None:
        nonlocal sums
        called = (_dotted(e.func) or [""])[-1] if isinstance(e, ast.Call) else None
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub | ast.UAdd):
            visit(e.operand)
        elif isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add | ast.Sub):
            sums += 1
            visit(e.left)
            visit(e.right)
        elif (
            isinstance(e, ast.Call)
            and called in ("add", "subtract")
            and len(e.args) == 2
            and not e.keywords
        ):
            sums += 1
            visit(e.args[0])
            visit(e.args[1])
        elif isinstance(e, ast.Call) and called in _SIZE_KEEPING and not e.keywords and e.args:
            for a in e.args:
                visit(a)
        else:
            leaves.append(e)

    visit(expr)
    return leaves if sums else None


def _simple_leaf(e: ast.AST) -> bool:
    """A number, or a name or a subscript or attribute of one (`est`, `df["est_y"]`,
    `pos[:, 0]`): an operand whose values the harness can look up."""
    if isinstance(e, ast.Constant):
        return type(e.value) in (int, float)
    return isinstance(e, ast.Name | ast.Subscript | ast.Attribute) and _root_name(e) is not None


#: Calls that make an empty container (`est = list()`): what it holds comes from its fills.
#: (An array of zeros holds zeros until every element is written: `_whole_index`.)
_PLACEHOLDERS = frozenset({"list", "dict", "set", "deque", "OrderedDict", "defaultdict"})


def _placeholder(value: ast.AST) -> bool:
    """`[]`, `{}`, `()`, `list()`, `deque()`: an empty container (`_PLACEHOLDERS`)."""
    if isinstance(value, ast.List | ast.Tuple | ast.Set) and not value.elts:
        return True
    if isinstance(value, ast.Dict) and not value.keys:
        return True
    return isinstance(value, ast.Call) and (_dotted(value.func) or [""])[-1] in _PLACEHOLDERS


def _constant(value: ast.AST) -> bool:
    """A number (`0`, `-1.5`, `np.nan`): exact in both runs, no value computed from others."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub | ast.UAdd):
        return _constant(value.operand)
    if isinstance(value, ast.Constant):
        return type(value.value) in (int, float, bool) or value.value is None
    return (_dotted(value) or [""])[-1] in ("nan", "inf", "NaN", "pi", "e")


def _loop_targets(tree: ast.AST) -> dict[int, set[str]]:
    """For each node of the cell's scope inside a `for` loop, the names its enclosing loops
    bind each iteration (by the node's id)."""
    found: dict[int, set[str]] = {}

    def visit(node: ast.AST, targets: set[str]) -> None:
        if isinstance(node, _SCOPES):
            return
        if isinstance(node, ast.For | ast.AsyncFor):
            inner = targets | {x.id for x in ast.walk(node.target) if isinstance(x, ast.Name)}
            for child in [*node.body, *node.orelse]:
                visit(child, inner)
            return
        if targets:
            found[id(node)] = targets
        for child in ast.iter_child_nodes(node):
            visit(child, targets)

    visit(tree, set())
    return found


def _whole_index(index: ast.AST, loop: set[str]) -> bool:
    """Whether a subscript write `x[index] = v` fills the whole of `x` (as far as the source
    shows): `x[:]`, `x[...]`, or an index that reads a variable of an enclosing loop
    (`for k in range(n): x[k] = ...`, `x[k, :]`); a fixed index (`x[0]`) writes one element."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if all(
        (isinstance(p, ast.Slice) and p.lower is None and p.upper is None and p.step is None)
        or (isinstance(p, ast.Constant) and p.value is Ellipsis)
        for p in parts
    ):
        return True
    return bool(loop) and any(
        isinstance(x, ast.Name) and x.id in loop for p in parts for x in ast.walk(p)
    )


#: Method calls that put their arguments into the object they are called on (`est.append(v)`):
#: the object is then computed from what the arguments are computed from.
_FILLING_METHODS = frozenset(
    {"append", "extend", "insert", "add", "update", "setdefault", "appendleft", "extendleft"}
)


class _TransformProvenance:
    """Which names (and which frames' columns) the source computes from an FFT-family call's
    output, followed in source order (a loop's body runs in order too) through assignments,
    in-place fills (`est.append(...)`, `x[k] = ...` in a loop over k, `df["col"] = ...`) and
    calls of the functions the source defines (a def or a lambda whose body runs a transform,
    or reads a transform output of the cell, when it is called). A comparison or boolean test
    of an output is not its rounding (`big = power > 1`).

    A container is computed from a transform only where ALL it holds is: one element written
    from a transform (`summary[2] = P.max()`) beside others from none (`summary[1] =
    g.std()`, or the zeros it was made of) leaves it at its own dtype's tolerance (`mixed`),
    and a frame's column written by its name is that column only (`df["pmax"] = P.max(1)`:
    the frame's other columns are computed from none). A value that is a sum of a transform's
    output and an exact value whose size the source does not show (`np.add(subpixel(c, p),
    origin)`) has no scale its rounding can be judged by: not computed from a transform either
    (its own dtype's tolerance, which the exact part's size does not loosen)."""

    def __init__(self, tree: ast.AST) -> None:
        self.functions = _defined_functions(tree)
        self.runs_transform = _functions_running_transforms(self.functions)
        self.sources: dict[str, set[str]] = {
            name: set() for name in _bound_from_calls(tree, _TRANSFORMS, whole=False)
        }
        self.columns: dict[str, dict[str, set[str] | None]] = {}
        #: (name, column or None) -> the operands of the sum or difference that bound it last
        self.operands: dict[tuple[str, str | None], list[Operand]] = {}
        #: names holding values computed from a transform beside values computed from none
        self.mixed: set[str] = set()
        #: names bound last to an empty container or a number (`est = []`, `total = 0`)
        self.fresh: set[str] = set()
        #: names bound last to a value computed from no transform (`s = g.copy()`)
        self.plain: set[str] = set()
        #: names bound last to zeros (`acc = np.zeros(n)`): a sum of transform outputs adds to
        #: them exactly (`acc += np.abs(np.fft.rfft(f))`)
        self.zeroed: set[str] = set()
        self.loops = _loop_targets(tree)
        for n in _filling_statements(tree):
            if isinstance(n, ast.Expr):
                self._fill(n.value)  # type: ignore[arg-type]
            elif not isinstance(n.value, ast.Compare | ast.BoolOp):
                self._assign(n)
        for name in self.mixed:
            self._drop(name)

    def frame_columns(self) -> dict[str, dict[str, set[str] | None]]:
        return {
            name: cols
            for name, cols in self.columns.items()
            if name in self.sources and any(c is not None for c in cols.values())
        }

    def sum_operands(self) -> dict[tuple[str, str | None], list[Operand]]:
        """`transform_operands`: those of the names (and frames' columns) computed from a
        transform's output."""
        columns = self.frame_columns()
        return {
            (name, col): ops
            for (name, col), ops in self.operands.items()
            if (col is None and name in self.sources and name not in columns)
            or (col is not None and columns.get(name, {}).get(col) is not None)
        }

    def _operands_of(self, expr: ast.AST) -> list[Operand] | None | bool:
        """`_sum_operands` of `expr`: a frame's column read by its name (`df["est_y"]`) as
        (frame, column), a name (or its subscript) as (name, None), an exact operand (a number,
        or an expression computed from no transform) as a float (a number's magnitude, else
        nan). None when `expr` is no sum, or every operand is computed from a transform but
        not all are names (judged by its own values); False when an operand computed from a
        transform is no name the harness can look up and another is exact: nothing shows the
        size of its rounding."""
        leaves = _sum_operands(expr)
        if leaves is None:
            return None
        out: list[Operand] = []
        exact = opaque = False
        for leaf in leaves:
            if not _simple_leaf(leaf):
                if self.computed_from(leaf) is None:
                    exact = True
                    out.append(math.nan)
                else:
                    opaque = True
            elif isinstance(leaf, ast.Constant):
                exact = True
                out.append(abs(float(leaf.value)))  # type: ignore[arg-type]
            elif (
                isinstance(leaf, ast.Subscript)
                and isinstance(leaf.value, ast.Name)
                and isinstance(leaf.slice, ast.Constant)
                and leaf.value.id in self.columns
            ):
                out.append((leaf.value.id, leaf.slice.value))  # type: ignore[arg-type]
            else:
                out.append((_root_name(leaf), None))  # type: ignore[arg-type]
            if isinstance(leaf, ast.Name | ast.Subscript | ast.Attribute):
                exact |= self.computed_from(leaf) is None
        if opaque:
            return False if exact or self.computed_from(ast.Tuple(elts=leaves)) is None else None
        return out

    def _bind_operands(self, key: tuple[str, str | None], expr: ast.AST | None) -> bool:
        """Records the operands `expr` (the value `key` is bound to) is a sum of; False when
        they leave its rounding's size unknown (`_operands_of`)."""
        ops = None if expr is None else self._operands_of(expr)
        if ops is False:
            self.operands.pop(key, None)
            return False
        if ops is None or ops is True:
            self.operands.pop(key, None)
        else:
            self.operands[key] = ops
        return True

    def _reads(self, fn_name: str, seen: set[str] | None = None) -> set[str]:
        """The cell's globals a function it defines reads when it runs, through the others it
        calls (`def register(frames): ... xcorr(frames[k])` reads xcorr's `F_ref`)."""
        seen = set() if seen is None else seen
        seen.add(fn_name)
        reads = _global_reads(self.functions[fn_name])
        for g in list(reads):
            if g in self.functions and g not in seen:
                reads |= self._reads(g, seen)
        return reads

    def computed_from(self, expr: ast.AST) -> set[str] | None:
        """The transform outputs `expr` is computed from (with theirs), or None when it is
        computed from no transform's output and runs none."""
        derived = False
        found: set[str] = set()
        todo = [expr]
        while todo:
            node = todo.pop()
            if isinstance(node, _SCOPES):
                continue  # a lambda's body runs later, if ever
            column = self._column_read(node)
            if column is not False:
                if column is not None:
                    derived = True
                    found |= column
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in self.sources and node.id not in self.mixed:
                    derived = True
                    found |= {node.id} | self.sources[node.id]
            elif isinstance(node, ast.Call):
                called = (_dotted(node.func) or [""])[-1]
                if called in _TRANSFORMS:
                    derived = True
                if isinstance(node.func, ast.Name) and node.func.id in self.functions:
                    if node.func.id in self.runs_transform:
                        derived = True
                    # the transform outputs of the cell it reads when it runs (`F_ref` in
                    # `def xcorr(img): ... np.conj(F_ref)`), through the functions it calls
                    for g in self._reads(node.func.id) & set(self.sources):
                        derived = True
                        found |= {g} | self.sources[g]
            todo.extend(ast.iter_child_nodes(node))
        return found if derived else None

    def _column_read(self, node: ast.AST) -> set[str] | None | bool:
        """`df["est_y"]` of a frame whose columns are known: that column's sources (None: a
        column computed from no transform); False for anything else."""
        if not (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name)
            and isinstance(node.slice, ast.Constant)
        ):
            return False
        cols = self.columns.get(node.value.id)
        if cols is None:
            return False
        # a column the source does not write by its name is one the frame was made with, from
        # no transform (a frame made from one as a whole has no `columns`)
        return cols.get(node.slice.value)  # type: ignore[call-overload]

    def _add(self, name: str, via: set[str]) -> None:
        if name not in self.mixed:
            self.sources[name] = self.sources.get(name, set()) | (via - {name})

    def _drop(self, name: str) -> None:
        """`name` holds values computed from no transform beside ones computed from one: its
        own dtype's tolerance (`mixed`)."""
        self.mixed.add(name)
        self.sources.pop(name, None)
        for col in self.columns.pop(name, {}):
            self.operands.pop((name, col), None)
        self.operands.pop((name, None), None)

    def _all_derived(self, name: str) -> bool:
        """Whether everything `name` holds so far is computed from a transform (or it holds
        nothing yet: `est = []`)."""
        if name in self.mixed or name in self.plain:
            return False
        if name in self.columns:
            return all(c is not None for c in self.columns[name].values())
        return name in self.sources or name in self.fresh

    def _assign(self, n: ast.Assign | ast.AugAssign | ast.AnnAssign) -> None:
        via = self.computed_from(n.value)  # type: ignore[arg-type]
        targets = n.targets if isinstance(n, ast.Assign) else [n.target]
        bound = [
            e for t in targets for e in (t.elts if isinstance(t, ast.Tuple | ast.List) else [t])
        ]
        whole = len(bound) == 1 and isinstance(n, ast.Assign | ast.AnnAssign)
        loop = self.loops.get(id(n), set())
        for t in bound:
            if isinstance(t, ast.Name):
                if isinstance(n, ast.AugAssign):
                    self._augment(t.id, n, via)
                    continue
                self.mixed.discard(t.id)  # bound anew
                for col in self.columns.pop(t.id, {}):
                    self.operands.pop((t.id, col), None)
                if whole and n.value is not None and (_placeholder(n.value) or _constant(n.value)):
                    self.fresh.add(t.id)
                else:
                    self.fresh.discard(t.id)
                if via is None and t.id not in self.fresh:
                    self.plain.add(t.id)
                else:
                    self.plain.discard(t.id)
                zeros = (
                    whole
                    and isinstance(n.value, ast.Call)
                    and ((_dotted(n.value.func) or [""])[-1] in ("zeros", "zeros_like"))
                )
                (self.zeroed.add if zeros else self.zeroed.discard)(t.id)
                if via is not None:
                    self._add(t.id, via)
                if not self._bind_operands((t.id, None), n.value if whole else None):
                    self._drop(t.id)
                    continue
                built = _frame_literal(n.value) if isinstance(n, ast.Assign) else None
                if built is not None:
                    self.columns[t.id] = {k: self.computed_from(v) for k, v in built.items()}
                    for k, v in built.items():
                        if not self._bind_operands((t.id, k), v):
                            self.columns[t.id][k] = None
                continue
            root = _root_name(t)
            if root is None:
                continue
            self.operands.pop((root, None), None)  # no longer the sum it was bound to
            column = _column_written(t)
            if column is not None:
                self._write_column(root, column, t, n, via, loop)
                continue
            value = n.value if isinstance(n, ast.Assign | ast.AnnAssign) else None
            complete = (
                isinstance(t, ast.Subscript)
                and isinstance(t.value, ast.Name)
                and _whole_index(t.slice, loop)
            )
            self._write(root, via, value, complete)

    def _augment(self, name: str, n: ast.AugAssign, via: set[str] | None) -> None:
        """`x += v` (or -=, *=, ...): x's values combined with v's. A transform's output
        added to values computed from none, or values computed from none (a number included:
        `pos += 1e6`) added to a transform's output, leave no scale its rounding can be judged
        by; a product keeps its factors' relative rounding."""
        self.operands.pop((name, None), None)
        additive = isinstance(n.op, ast.Add | ast.Sub)
        if via is not None:
            if self._all_derived(name) or (additive and name in self.zeroed):
                self.plain.discard(name)
                self.zeroed.discard(name)
                self._add(name, via)
            else:
                self._drop(name)
        elif name in self.sources and (additive or not _constant(n.value)):
            self._drop(name)

    def _write(self, root: str, via: set[str] | None, value: ast.AST | None, whole: bool) -> None:
        """Part of `root` written (`x[k] = v`, `est.append(v)`) with a value computed from
        `via` (None: from no transform); `whole`: the writes fill all of it (in a loop over
        its index, or a fill of an empty container)."""
        if via is not None and value is not None and self._operands_of(value) is False:
            self._drop(root)  # a transform's output plus an exact value of unknown size
            return
        if via is None:
            if value is not None and _constant(value):
                return  # a number: exact in both runs
            self.fresh.discard(root)  # it holds a value computed from no transform now
            self.zeroed.discard(root)
            self.plain.add(root)
            if root in self.sources or root in self.columns:
                self._drop(root)
            return
        if root in self.mixed:
            return
        if self._all_derived(root) or whole:
            self.plain.discard(root)
            self._add(root, via)
            for col in self.columns.pop(root, {}):
                self.operands.pop((root, col), None)
        else:
            self._drop(root)  # one element from a transform, the others from none

    def _write_column(
        self,
        root: str,
        column: str,
        t: ast.AST,
        n: ast.Assign | ast.AugAssign | ast.AnnAssign,
        via: set[str] | None,
        loop: set[str],
    ) -> None:
        """`df["col"] = v` (the whole column) or `df.loc[i, "col"] = v` (part of it): that
        column computed from `via`, the frame's others as they were."""
        if root in self.mixed:
            return
        # `df["col"] = v`, or `df.loc[:, "col"] = v` (its rows all, or each in a loop over them)
        whole_column = isinstance(t.value, ast.Name) or _whole_index(  # type: ignore[attr-defined]
            t.slice.elts[0],  # type: ignore[attr-defined]
            loop,
        )
        if root not in self.columns:
            if root in self.sources and root not in self.fresh:
                # a frame computed from a transform as a whole: its columns are not known
                if via is None and not (isinstance(n, ast.AugAssign) or _constant(n.value)):
                    self._drop(root)
                elif via is not None:
                    self._add(root, via)
                return
            self.columns[root] = {}
        cols = self.columns[root]
        if isinstance(n, ast.AugAssign):
            if via is not None and cols.get(column) is None:
                cols[column] = None  # a plain column plus a transform's output
            self.operands.pop((root, column), None)
            return
        if whole_column:
            cols[column] = via
            if not self._bind_operands((root, column), n.value):
                cols[column] = None
        elif via is None:
            if not _constant(n.value):
                cols[column] = None
                self.operands.pop((root, column), None)
        elif cols.get(column) is None:
            cols[column] = None  # some rows from a transform, the others from none
        else:
            cols[column] = cols[column] | via  # type: ignore[operator]
        if cols.get(column) is not None:
            self._add(root, cols[column])  # type: ignore[arg-type]

    def _fill(self, call: ast.Call) -> None:
        root = _root_name(call.func.value)  # type: ignore[attr-defined]
        args = [*call.args, *(k.value for k in call.keywords)]
        args = [a for a in args if not isinstance(a, ast.Compare | ast.BoolOp)]
        if root is None:
            return
        self.operands.pop((root, None), None)
        via = self.computed_from(ast.Tuple(elts=args))
        if via is None and all(_constant(a) for a in args):
            return
        for a in args:
            if _sum_operands(a) is not None and self._operands_of(a) is False:
                self._drop(root)  # a transform's output plus an exact value of unknown size
                return
        self._write(root, via, None, root in self.fresh)


def _column_written(t: ast.AST) -> str | None:
    """The column a subscript write names: `df["col"] = v`, `df.loc[i, "col"] = v`,
    `df.at[i, "col"] = v`; None for any other target."""
    if not isinstance(t, ast.Subscript):
        return None
    if isinstance(t.value, ast.Name):
        key = t.slice
    elif (
        isinstance(t.value, ast.Attribute)
        and t.value.attr in ("loc", "at")
        and isinstance(t.value.value, ast.Name)
    ):
        key = (
            t.slice.elts[-1] if isinstance(t.slice, ast.Tuple) and len(t.slice.elts) == 2 else None
        )
    else:
        return None
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value
    return None


def _filling_statements(tree: ast.AST) -> list[ast.AST]:
    """The cell's assignments (`_assignments`) and its statements that fill an object through a
    method (`est.append(v)`, `_FILLING_METHODS`), in source order."""
    fills = [
        n
        for n in _walk_scope(tree)
        if isinstance(n, ast.Expr)
        and isinstance(n.value, ast.Call)
        and isinstance(n.value.func, ast.Attribute)
        and n.value.func.attr in _FILLING_METHODS
        and _root_name(n.value.func.value) is not None
    ]
    found: list[ast.AST] = [*_assignments(tree), *fills]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))  # type: ignore[attr-defined]


def _frame_literal(value: ast.AST) -> dict[str, ast.AST] | None:
    """The columns of `pd.DataFrame({"a": x, "b": y})` (or `DataFrame(dict(a=x, b=y))`,
    `data=` the same), by name; None for any other value or a column name not spelled out."""
    if not (isinstance(value, ast.Call) and (_dotted(value.func) or [""])[-1] == "DataFrame"):
        return None
    data = value.args[0] if value.args else None
    for kw in value.keywords:
        if kw.arg == "data":
            data = kw.value
    if isinstance(data, ast.Dict):
        keys = [k.value if isinstance(k, ast.Constant) else None for k in data.keys]
        if all(isinstance(k, str) for k in keys):
            return dict(zip(keys, data.values, strict=True))  # type: ignore[arg-type]
    if (
        isinstance(data, ast.Call)
        and isinstance(data.func, ast.Name)
        and data.func.id == "dict"
        and not data.args
        and all(k.arg is not None for k in data.keywords)
    ):
        return {k.arg: k.value for k in data.keywords}  # type: ignore[misc]
    return None


def _defined_functions(tree: ast.AST) -> dict[str, ast.AST]:
    """The functions the cell defines at its own scope, by name: each `def`, and each name
    bound to a lambda (`f = lambda x: ...`)."""
    found: dict[str, ast.AST] = {}
    for n in _walk_scope(tree):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
            found[n.name] = n
        elif (
            isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Lambda)
            and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name)
        ):
            found[n.targets[0].id] = n.value
    return found


def _functions_running_transforms(functions: dict[str, ast.AST]) -> set[str]:
    """Which of `functions` run an FFT-family call when called: their own, or one of the
    others' they call (`def xcorr(img): return np.fft.ifft2(...)`; `def best(img): return
    peak(xcorr(img))`)."""

    def calls(fn: ast.AST) -> set[str]:
        return {(_dotted(c.func) or [""])[-1] for c in ast.walk(fn) if isinstance(c, ast.Call)}

    called = {name: calls(fn) for name, fn in functions.items()}
    running = {name for name, c in called.items() if c & _TRANSFORMS}
    while True:
        more = {name for name, c in called.items() if c & running} - running
        if not more:
            return running
        running |= more


def _global_reads(fn: ast.AST) -> set[str]:
    """The names a function reads that are not its own (parameters, names it binds): the
    cell's globals it reads when it runs."""
    args = fn.args  # type: ignore[attr-defined]
    own = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    own |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    loads: set[str] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else own).add(n.id)
    return loads - own


def _loads(nodes: Iterable[ast.AST]) -> set[str]:
    """Every name read anywhere in `nodes`."""
    return {
        n.id
        for node in nodes
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def loop_temporaries(tree: ast.Module) -> set[str]:
    """Names a top-level loop of the source binds and then reads within the same iteration, read
    nowhere after the loop (`un` of `for _ in range(n): un = u.copy(); u[1:-1] = ... un ...`):
    each iteration's scratch value, not a result of the cell, which a rewrite (a ping-pong
    stencil kernel) may do without. Not one: a value carried from one iteration to the next
    (read before it is bound: `s = s + x`, or read by a `while` test), one the loop binds but
    never reads (its last value may be what the cell computes for later cells)."""
    temporaries: set[str] = set()
    for k, stmt in enumerate(tree.body):
        if not isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
            continue
        body = _Scanner()
        for s in stmt.body:
            body.visit(s)
        header = stmt.test if isinstance(stmt, ast.While) else stmt.iter
        read_elsewhere = _loads([header, *stmt.orelse, *tree.body[k + 1 :]])
        temporaries |= (set(body.outputs) & body.referenced) - set(body.inputs) - read_elsewhere
    return temporaries


#: The names fusion.ts `cName` never gives a kernel's C variable as they are (C_RESERVED there:
#: C/C++ keywords, CUDA built-ins, CuPy's and the launchers' own names, Python keywords, the C
#: math functions with their float variants). test_harness_kernel_locals.py checks this copy
#: against fusion.ts.
_C_MATH = (
    "sqrt cbrt exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan atan2 hypot sinh"
    " cosh tanh asinh acosh atanh floor ceil trunc rint fabs copysign fmax fmin pow"
).split()
C_RESERVED = frozenset(
    """None True False and as assert async await def del elif except finally from global import
    in is lambda nonlocal not or pass raise with yield i n _ind T cp cupy isinstance TypeError
    ValueError warnings auto bool break case char class const continue default delete do double
    else enum extern false float for friend goto if inline int long namespace new operator
    private protected public register return short signed sizeof static struct switch template
    this true typedef typename union unsigned virtual void volatile while threadIdx blockIdx
    blockDim gridDim warpSize size_t ptrdiff_t min max abs pow M_PI fmod fmodf npy_remainder
    npy_remainderf npy_floor_divide npy_floor_dividef""".split()
    + _C_MATH
    + [f"{f}f" for f in _C_MATH]
)


def c_spelling(name: str) -> str:
    """The C name GPU103 gives the Python name `name` (fusion.ts `cName`) where the kernel has
    not taken it yet: a reserved name (or one with characters C lacks) given a `_` suffix,
    leading underscores dropped (CuPy's own names start with one: `_t` is `t`), and an `a_`
    prefix where what is left does not start with a letter or is reserved (`_in` is `a_in`)."""
    ascii_name = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) is not None
    if not ascii_name or name in C_RESERVED:
        name = re.sub(r"[^A-Za-z0-9_]", "", name) + "_"
    base = name.lstrip("_")
    if not re.match(r"[A-Za-z]", base) or base in C_RESERVED:
        base = f"a_{base}"
    return base


def _spells(local: str, name: str, taken: frozenset[str]) -> bool:
    """Is the C local `local` of a kernel declaring `taken` GPU103's spelling of `name`: its
    c_spelling, or that with the digit suffix cName adds where the spelling is taken (`y2` only
    where the kernel also declares `y`; `y3` where it declares `y` and `y2`)."""
    base = c_spelling(name)
    if local == base:
        return True
    suffix = re.fullmatch(rf"{re.escape(base)}([1-9][0-9]*)", local)
    return (
        suffix is not None
        and int(suffix[1]) >= 2
        and base in taken
        and all(f"{base}{k}" in taken for k in range(2, int(suffix[1])))
    )


def kept_in_kernel(names: Iterable[str], kernels: Iterable[FusedKernel]) -> set[str]:
    """Which of `names` (the baseline binds them, the candidate does not) the candidate keeps as
    a local of one of its fused `kernels` instead of binding it. A local matches a name by the
    exact C spelling GPU103 gives it (`_spells`), never by a mere prefix (`x` is not kept
    because a local `x2` or `x_` stands for the Python `x2` or `x_`); a local that could spell
    two of the names claims neither, so the harness reports both as not bound."""
    missing = set(names)
    kept: set[str] = set()
    for k in kernels:
        for local in k.locals:
            spelled = {n for n in missing if _spells(local, n, k.names)}
            if len(spelled) == 1:
                kept |= spelled
    return kept


def analyze(source: str) -> CellFacts:
    """Inputs, outputs, side effects... of one cell. Raises SyntaxError on bad source."""
    tree = ast.parse(source)
    s = _Scanner()
    for stmt in tree.body:
        s.visit(stmt)
    has_last = bool(tree.body) and isinstance(tree.body[-1], ast.Expr)
    # Modules are never outputs: names bound by `import` (a module alias that only has a
    # method called on it, `np.sort(a)`, is not even read as a change, see _mutate).
    outputs = [n for n in s.outputs if n not in s.imported]
    # An input changed in place is an output too: later cells see the change.
    outputs += [m for m in s.mutated if m not in s.outputs]
    provenance = _TransformProvenance(tree)
    transforms = provenance.sources
    return CellFacts(
        inputs=list(s.inputs),
        loop_vars=s.loop_targets,
        fused_kernels=fused_kernels(tree),
        clocks=clock_names(tree),
        vectors=vector_names(tree),
        transforms=set(transforms),
        transform_sources=transforms,
        transform_columns=provenance.frame_columns(),
        transform_operands=provenance.sum_operands(),
        loop_temporaries=loop_temporaries(tree),
        outputs=outputs,
        mutated=list(s.mutated),
        has_last_value=has_last,
        side_effects=s.side_effects,
        uses_random=s.uses_random,
        imports=s.imports,
        referenced_modules={n for n in s.referenced},
    )


def _parse_binding_last_value(source: str, filename: str) -> ast.Module:
    """The cell's tree, its last expression (if it ends with one) assigned to LAST_VALUE."""
    tree = ast.parse(source, filename=filename)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        tree.body[-1] = ast.copy_location(
            ast.Assign(targets=[ast.Name(LAST_VALUE, ast.Store())], value=last.value), last
        )
    return tree


def compile_cell(source: str, filename: str) -> object:
    """Compile a cell so that its last expression's value is bound to LAST_VALUE."""
    tree = _parse_binding_last_value(source, filename)
    ast.fix_missing_locations(tree)
    return compile(tree, filename, "exec")


#: Calls that can move data between host and device: `x.get()`, `cp.asarray(a)`, ...
TRANSFER_ATTRS = frozenset(
    {
        "get",
        "asnumpy",
        "asarray",
        "array",
        "to_device",
        "copy_to_host",
        "cpu",
        "cuda",
        "numpy",
        "to",
        "from_numpy",
        "from_pandas",
        "to_pandas",
        "to_numpy",
        "to_cupy",
        "from_dlpack",
        "set",
        # Constructors that copy a host object to the device (or back): the meter
        # counts a call only when its result and its argument live on different sides.
        *(
            "csr_matrix",
            "csc_matrix",
            "coo_matrix",
            "dia_matrix",
            "DataFrame",
            "Series",
            "as_tensor",
            "tensor",
        ),
    }
)
#: Bare-name calls (`from cupyx.scipy.sparse import csr_matrix`) the meter also times.
TRANSFER_FUNCS = frozenset(
    {
        "csr_matrix",
        "csc_matrix",
        "coo_matrix",
        "dia_matrix",
        "asarray",
        "asnumpy",
        "to_device",
        "from_pandas",
        "as_tensor",
        "from_numpy",
    }
)
TRANSFER_HOOK = "__gpuoptimize_transfer__"


class _TransferRewriter(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in TRANSFER_ATTRS:
            return ast.copy_location(
                ast.Call(
                    func=ast.Name(TRANSFER_HOOK, ast.Load()),
                    args=[f.value, ast.Constant(f.attr), *node.args],
                    keywords=node.keywords,
                ),
                node,
            )
        if isinstance(f, ast.Name) and f.id in TRANSFER_FUNCS:
            # csr_matrix(M) -> __gpuoptimize_transfer__.call(csr_matrix, M)
            return ast.copy_location(
                ast.Call(
                    func=ast.Attribute(ast.Name(TRANSFER_HOOK, ast.Load()), "call", ast.Load()),
                    args=[f, *node.args],
                    keywords=node.keywords,
                ),
                node,
            )
        return node


def _is_transfer_call(n: ast.AST) -> bool:
    if not isinstance(n, ast.Call):
        return False
    f = n.func
    return (isinstance(f, ast.Attribute) and f.attr in TRANSFER_ATTRS) or (
        isinstance(f, ast.Name) and f.id in TRANSFER_FUNCS
    )


def has_transfer_calls(source: str) -> bool:
    return any(_is_transfer_call(n) for n in ast.walk(ast.parse(source)))


def compile_instrumented(source: str, filename: str) -> object:
    """Like compile_cell, with every possible transfer call routed through TRANSFER_HOOK."""
    tree = _TransferRewriter().visit(_parse_binding_last_value(source, filename))
    ast.fix_missing_locations(tree)
    return compile(tree, filename, "exec")
