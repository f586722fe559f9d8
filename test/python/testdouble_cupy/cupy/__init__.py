"""TEST DOUBLE of CuPy for CPU-only CI: NumPy underneath. Not CuPy. See ../README.md."""

from __future__ import annotations

import re

import numpy as _np

from . import cuda, fft, linalg, random  # noqa: F401

IS_TEST_DOUBLE = True
__version__ = "0.0.0+testdouble"


class ndarray(_np.ndarray):  # noqa: N801  (CuPy's name)
    """A NumPy array that answers `.get()` like a CuPy device array. Its full reductions
    (`x.sum()`, `x.max()`, `x.argmax()`, `x.dot(y)` of vectors) give 0-d arrays, as CuPy's do,
    not NumPy scalars, and so does one element read by index (`x[0]`, `x[cp.argmax(x)]`);
    iterating (`for v in x`) still gives NumPy's scalars, where CuPy gives 0-d arrays too."""

    def __getitem__(self, key):
        item = super().__getitem__(key)
        if isinstance(item, (_np.number, _np.bool_)):
            return _np.asarray(item).view(ndarray)
        return item

    def __array_wrap__(self, arr, context=None, return_scalar=False):  # noqa: ARG002
        # (NumPy asks for a scalar after a full reduction; CuPy keeps a 0-d device array)
        return super().__array_wrap__(arr, context, False)

    def get(self, stream=None, order="C", out=None):  # noqa: ARG002
        return _np.array(self, order=order)

    def set(self, arr, stream=None):  # noqa: ARG002
        """`dev.set(host)`: copies the host array in (CuPy's host-to-device copy)."""
        self[...] = arr


def _device(x):
    """A result as CuPy gives it: arrays as device arrays, a NumPy scalar (a full reduction's:
    `cp.sum(x)`, `cp.trapz(y)`, `cp.linalg.norm(v)`) as a 0-d device array, tuples of arrays
    (`cp.histogram`, `cp.linalg.eigh`) item by item."""
    if isinstance(x, _np.ndarray):
        return x.view(ndarray)
    if isinstance(x, (_np.number, _np.bool_)):
        return _np.asarray(x).view(ndarray)
    if isinstance(x, tuple) and any(isinstance(v, _np.ndarray) for v in x):
        items = [_device(v) for v in x]
        return type(x)(*items) if hasattr(x, "_fields") else tuple(items)
    return x


def _method_on_device(name):
    numpy_method = getattr(_np.ndarray, name)

    def on_device(self, *args, **kwargs):
        return _device(numpy_method(self, *args, **kwargs))

    on_device.__name__ = name
    return on_device


# (methods NumPy answers with a scalar without asking __array_wrap__)
for _method in ("argmax", "argmin", "dot"):
    setattr(ndarray, _method, _method_on_device(_method))


def asarray(a, dtype=None, order=None):
    return _device(_np.array(a, dtype=dtype, order=order, copy=True))


array = asarray


def asnumpy(a, stream=None, order="C", out=None):  # noqa: ARG001
    return _np.array(a, order=order)


def get_array_module(*args):
    """CuPy's rule: this module where an argument is a device array, else NumPy."""
    import cupy

    return cupy if any(isinstance(a, ndarray) for a in args) else _np


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
# `abs` of a complex parameter (CuPy's complex<float>, complex<double>): its magnitude, of the
# float dtype of its parts, as NumPy's absolute computes it
_C_FUNCTIONS["abs"] = _np.abs
# the preamble functions the engine defines for NumPy's float % and // (its rules/arrays/
# float-remainder.ts: C's fmod with NumPy's sign fix, npy_divmod): NumPy's own functions here, so
# the double checks the rewrite's plumbing (promotion, out=, names), not that C; the GPU run does
_PREAMBLE_FUNCTIONS = {
    "npy_remainder": _np.remainder,
    "npy_remainderf": _np.remainder,
    "npy_floor_divide": _np.floor_divide,
    "npy_floor_dividef": _np.floor_divide,
}
_C_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?P<suffix>f?)|(?P<name>[A-Za-z_]\w*)|(?P<op>[-+*/(),]))"
)


_PARAM_TYPES = ("float32", "float64", "complex64", "complex128", "T")


class ElementwiseKernel:
    """`cp.ElementwiseKernel` for the C forms the engine emits: `out = <expression>`, or for a
    group of statements `const float t = <expression>; ...; out = <expression>` (locals of the
    kernel's type, several outputs), over typed float parameters (complex ones read as
    `abs(z)`), with + - * / ( ), float literals (`1.0f`) and C math functions (sqrt, exp,
    pow...), evaluated with NumPy (the same
    operations on the same dtypes; a local rounded to its type as C stores it). Called with the
    inputs, or the inputs and every output (written in place). Anything else (raw indexing, `i`,
    other statements, ternaries, preambles but the engine's npy_remainder/npy_floor_divide)
    raises NotImplementedError: the double does not pretend to run CUDA C. Parameters typed `T`
    take the dtype of the arguments that have one (all the same, float32 or float64), as CuPy's
    type placeholders do; Python numbers are cast to it."""

    def __init__(self, in_params, out_params, operation, name="kernel", **kwargs):
        self._functions = dict(_C_FUNCTIONS)
        preamble = kwargs.get("preamble")
        if preamble:
            defined = re.findall(r"__device__\s+\w+\s+(\w+)\s*\(", preamble)
            if not defined or any(f not in _PREAMBLE_FUNCTIONS for f in defined):
                raise NotImplementedError(
                    "TEST DOUBLE: ElementwiseKernel preambles other than the engine's "
                    "npy_remainder/npy_floor_divide are not supported"
                )
            self._functions.update({f: _PREAMBLE_FUNCTIONS[f] for f in defined})
        self.name = name
        self._in = [self._param(p) for p in in_params.split(",") if p.strip()]
        self._outs = [self._param(p) for p in out_params.split(",") if p.strip()]
        names = {n for _, n in self._in}
        outs = {n for _, n in self._outs}
        self._steps = []  # (dtype of a local or None for an output, name, compiled expression)
        for statement in (t for t in operation.split(";") if t.strip()):
            m = re.fullmatch(r"\s*(?:const (float|double) )?(\w+)\s*=\s*(.+?)\s*", statement, re.S)
            if not m or (m.group(1) is None and m.group(2) not in outs):
                raise NotImplementedError(
                    f"TEST DOUBLE: `<output> = <expr>` or a const local only: {statement!r}"
                )
            local = {"float": _np.float32, "double": _np.float64}.get(m.group(1))
            self._steps.append(
                (local, m.group(2), self._expression(m.group(3), names, name, self._functions))
            )
            if local is not None:
                names.add(m.group(2))
        if {n for local, n, _ in self._steps if local is None} != outs:
            raise NotImplementedError("TEST DOUBLE: every output assigned once")

    @staticmethod
    def _expression(expr, names, name, functions):
        pieces, pos = [], 0
        while pos < len(expr):
            t = _C_TOKEN.match(expr, pos)
            if not t or t.end() == pos:
                raise NotImplementedError(
                    f"TEST DOUBLE: unsupported C near {expr[pos : pos + 20]!r}"
                )
            if (
                t.group("name")
                and t.group("name") not in names
                and t.group("name") not in functions
            ):
                raise NotImplementedError(f"TEST DOUBLE: unknown name {t.group('name')!r}")
            pieces.append(t.group("num") or t.group("name") or t.group("op"))
            pos = t.end()
        return compile(" ".join(pieces), f"<ElementwiseKernel {name}>", "eval")

    @staticmethod
    def _param(text):
        parts = text.split()
        if len(parts) != 2 or parts[0] not in _PARAM_TYPES:
            raise NotImplementedError(
                f"TEST DOUBLE: parameter {text.strip()!r} (float, complex or T parameters only)"
            )
        return (None if parts[0] == "T" else _np.dtype(parts[0])), parts[1]

    def __call__(self, *args, **kwargs):
        nin = len(self._in)
        if kwargs or len(args) not in (nin, nin + len(self._outs)):
            raise NotImplementedError("TEST DOUBLE: the inputs, or the inputs and every output")
        env = dict(self._functions)
        # a `T` parameter's dtype: that of the arguments that have one (CuPy's
        # _decide_params_type: a mismatch is a TypeError; Python numbers take it)
        typed = {
            _np.dtype(a.dtype)
            for (dtype, _), a in zip(self._in + self._outs, args, strict=False)
            if dtype is None and hasattr(a, "dtype")
        }
        if len(typed) > 1:
            raise TypeError(f"TEST DOUBLE: Type is mismatched: {sorted(map(str, typed))}")
        t = typed.pop() if typed else None
        if any(d is None for d, _ in self._in + self._outs) and t not in (
            _np.dtype(_np.float32),
            _np.dtype(_np.float64),
        ):
            raise NotImplementedError(f"TEST DOUBLE: T as {t} (float32 or float64 only)")
        for (dtype, pname), a in zip(self._in, args, strict=False):
            dtype = t if dtype is None else dtype
            env[pname] = (
                _np.asarray(a, dtype=dtype) if isinstance(a, _np.ndarray) else dtype.type(a)
            )
        given = dict(zip((n for _, n in self._outs), args[nin:], strict=False))
        results = {}
        for local, pname, code in self._steps:
            value = eval(code, {"__builtins__": {}}, env)  # noqa: S307  (tokens checked above)
            if local is not None:
                env[pname] = _np.asarray(value, dtype=local)
            else:
                results[pname] = value
        outs = []
        for dtype, pname in self._outs:
            dtype = t if dtype is None else dtype
            if pname in given:
                given[pname][...] = _np.asarray(results[pname], dtype=dtype)
                outs.append(given[pname])
            else:
                outs.append(_device(_np.asarray(results[pname], dtype=dtype)))
        return outs[0] if len(outs) == 1 else tuple(outs)


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


class _Ufunc:
    """A NumPy ufunc whose call and methods (`cp.add.at`, `.reduce`, `.outer`) answer as
    CuPy's: device arrays, 0-d for a full reduction."""

    def __init__(self, ufunc):
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__

    def __call__(self, *args, **kwargs):
        return _device(self._ufunc(*args, **kwargs))

    def __getattr__(self, name):
        attr = getattr(self._ufunc, name)
        return _wrap(attr) if callable(attr) else attr


# NumPy answers these with a Python bool, CuPy with a 0-d device array (cupy/_logic/comparison.py)
_BOOL_ARRAYS = frozenset({"array_equal", "array_equiv", "allclose"})


def _wrap(f):
    if isinstance(f, _np.ufunc):
        return _Ufunc(f)
    boolean = getattr(f, "__name__", "") in _BOOL_ARRAYS

    def on_device(*args, **kwargs):
        result = f(*args, **kwargs)
        if boolean and isinstance(result, bool):
            return _np.asarray(result).view(ndarray)
        return _device(result)

    on_device.__name__ = getattr(f, "__name__", "function")
    on_device.__wrapped__ = f
    return on_device


# NumPy functions CuPy 14.2 does not have (cupy/_statistics/order.py has percentile, quantile
# and nanmedian only): real CuPy raises AttributeError for them, and so does the double, so a
# rewrite that called them would fail here as on the GPU (the product writes their device form:
# src/analysis/rules/arrays/nan-quantile.ts)
_NOT_IN_CUPY = frozenset({"nanpercentile", "nanquantile"})

# names CuPy 14.2 has that NumPy 2.4 no longer does: `cupy.trapz = trapezoid` (cupy/__init__.py)
_CUPY_ALIASES = {"trapz": "trapezoid"}


def __getattr__(name):
    """Everything else is NumPy's, with array results returned as double device arrays."""
    if name in _NOT_IN_CUPY:
        raise AttributeError(f"module 'cupy' has no attribute {name!r}")
    attr = getattr(_np, _CUPY_ALIASES.get(name, name))
    if isinstance(attr, type):  # dtypes and classes stay as they are (dtype=cp.float32)
        return attr
    if callable(attr):
        return _wrap(attr)
    return attr
