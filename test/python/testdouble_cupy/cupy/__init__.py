"""TEST DOUBLE of CuPy for CPU-only CI: NumPy underneath. Not CuPy. See ../README.md."""

from __future__ import annotations

import re

import numpy as _np

from . import cuda, fft, linalg, random  # noqa: F401

IS_TEST_DOUBLE = True
__version__ = "0.0.0+testdouble"


class ndarray(_np.ndarray):  # noqa: N801  (CuPy's name)
    """A NumPy array that answers `.get()` like a CuPy device array."""

    def get(self, stream=None, order="C", out=None):  # noqa: ARG002
        return _np.array(self, order=order)

    def set(self, arr, stream=None):  # noqa: ARG002
        """`dev.set(host)`: copies the host array in (CuPy's host-to-device copy)."""
        self[...] = arr


def _device(x):
    if isinstance(x, _np.ndarray):
        return x.view(ndarray)
    return x


def asarray(a, dtype=None, order=None):
    return _device(_np.array(a, dtype=dtype, order=order, copy=True))


array = asarray


def asnumpy(a, stream=None, order="C", out=None):  # noqa: ARG001
    return _np.array(a, order=order)


def get_array_module(*args):  # noqa: ARG001
    import cupy

    return cupy


def fuse(*dargs, **dkwargs):  # noqa: ARG001
    """`@cp.fuse()` or `@cp.fuse`: the double runs the Python function as is."""

    def wrap(f):
        def fused(*args, **kwargs):
            return _device(_np.asarray(f(*args, **kwargs)))

        fused.__wrapped__ = f
        return fused

    if len(dargs) == 1 and callable(dargs[0]) and not dkwargs:
        return wrap(dargs[0])
    return wrap


_C_FUNCTIONS = {
    "sqrt": _np.sqrt,
    "cbrt": _np.cbrt,
    "exp": _np.exp,
    "exp2": _np.exp2,
    "expm1": _np.expm1,
    "log": _np.log,
    "log2": _np.log2,
    "log10": _np.log10,
    "log1p": _np.log1p,
    "sin": _np.sin,
    "cos": _np.cos,
    "tan": _np.tan,
    "asin": _np.arcsin,
    "acos": _np.arccos,
    "atan": _np.arctan,
    "atan2": _np.arctan2,
    "hypot": _np.hypot,
    "sinh": _np.sinh,
    "cosh": _np.cosh,
    "tanh": _np.tanh,
    "asinh": _np.arcsinh,
    "acosh": _np.arccosh,
    "atanh": _np.arctanh,
    "floor": _np.floor,
    "ceil": _np.ceil,
    "trunc": _np.trunc,
    "rint": _np.rint,
    "fabs": _np.fabs,
    "copysign": _np.copysign,
    "fmax": _np.fmax,
    "fmin": _np.fmin,
    "pow": _np.power,
}
# the single-precision names a float32 kernel uses (sqrtf, expf, powf...): the same NumPy
# functions, which compute in the arrays' float32
_C_FUNCTIONS.update({f"{name}f": fn for name, fn in list(_C_FUNCTIONS.items())})
_C_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?P<suffix>f?)|(?P<name>[A-Za-z_]\w*)|(?P<op>[-+*/(),]))"
)


class ElementwiseKernel:
    """`cp.ElementwiseKernel` for the one C form the engine emits: `out = <expression>` over
    typed float parameters, with + - * / ( ), float literals (`1.0f`) and C math functions
    (sqrt, exp, pow...), evaluated with NumPy (the same operations on the same dtypes). Anything
    else (raw indexing, `i`, statements, ternaries, preambles) raises NotImplementedError: the
    double does not pretend to run CUDA C."""

    def __init__(self, in_params, out_params, operation, name="kernel", **kwargs):
        if kwargs.get("preamble"):
            raise NotImplementedError("TEST DOUBLE: ElementwiseKernel preambles are not supported")
        self.name = name
        self._in = [self._param(p) for p in in_params.split(",") if p.strip()]
        outs = [self._param(p) for p in out_params.split(",") if p.strip()]
        if len(outs) != 1:
            raise NotImplementedError("TEST DOUBLE: one output parameter only")
        self._out = outs[0]
        m = re.fullmatch(r"\s*(\w+)\s*=\s*(.+?);?\s*", operation, re.S)
        if not m or m.group(1) != self._out[1]:
            raise NotImplementedError(f"TEST DOUBLE: operation must be `{self._out[1]} = <expr>`")
        names = {n for _, n in self._in}
        pieces, pos, expr = [], 0, m.group(2)
        while pos < len(expr):
            t = _C_TOKEN.match(expr, pos)
            if not t or t.end() == pos:
                raise NotImplementedError(
                    f"TEST DOUBLE: unsupported C near {expr[pos : pos + 20]!r}"
                )
            if (
                t.group("name")
                and t.group("name") not in names
                and t.group("name") not in _C_FUNCTIONS
            ):
                raise NotImplementedError(f"TEST DOUBLE: unknown name {t.group('name')!r}")
            pieces.append(t.group("num") or t.group("name") or t.group("op"))
            pos = t.end()
        self._code = compile(" ".join(pieces), f"<ElementwiseKernel {name}>", "eval")

    @staticmethod
    def _param(text):
        parts = text.split()
        if len(parts) != 2 or parts[0] in ("raw", "T") or parts[0] not in ("float32", "float64"):
            raise NotImplementedError(
                f"TEST DOUBLE: parameter {text.strip()!r} (typed float parameters only)"
            )
        return _np.dtype(parts[0]), parts[1]

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) != len(self._in):
            raise NotImplementedError("TEST DOUBLE: inputs only (no out=, size=, block_size=)")
        env = dict(_C_FUNCTIONS)
        for (dtype, pname), a in zip(self._in, args, strict=True):
            env[pname] = (
                _np.asarray(a, dtype=dtype) if isinstance(a, _np.ndarray) else dtype.type(a)
            )
        result = eval(self._code, {"__builtins__": {}}, env)  # noqa: S307  (tokens checked above)
        return _device(_np.asarray(result, dtype=self._out[0]))


class RawKernel:
    """Not runnable on NumPy: the double refuses rather than pretend."""

    def __init__(self, code, name, **kwargs):  # noqa: ARG002
        self.name = name

    def __call__(self, *args, **kwargs):  # noqa: ARG002
        raise NotImplementedError("TEST DOUBLE: RawKernel (CUDA C) cannot run on NumPy")


class _Pool:
    def free_all_blocks(self):
        return None

    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0


_pool = _Pool()


def get_default_memory_pool():
    return _pool


def get_default_pinned_memory_pool():
    return _pool


def _wrap(f):
    def on_device(*args, **kwargs):
        return _device(f(*args, **kwargs))

    on_device.__name__ = getattr(f, "__name__", "function")
    on_device.__wrapped__ = f
    return on_device


def __getattr__(name):
    """Everything else is NumPy's, with array results returned as double device arrays."""
    attr = getattr(_np, name)
    if isinstance(attr, type):  # dtypes and classes stay as they are (dtype=cp.float32)
        return attr
    if callable(attr):
        return _wrap(attr)
    return attr
