"""Output equivalence on the host, with dtype-aware tolerances.

`compare(name, baseline, candidate)` returns an `OutputComparison` (the protocol's
OutputComparison as data). The baseline is the reference: tolerances are relative to its
values. Device values (CuPy, PyTorch, Numba device arrays, cuDF) are copied to the host
first. What this module cannot compare is reported as "unverified", never as "equal".

A different result type is a different result, whatever the values: tolerances apply to
values, never to types. "not_equal" with method "dtype" or "type" (and a detail saying what
changed and why later cells see it) when the candidate changes
- an array's or a NumPy scalar's dtype (complex128 -> complex64, float64 -> float32...),
  a frame's column dtypes, a sparse matrix's dtype;
- a NumPy scalar into a Python number or back (`float(r)`, `r.item()`): under NEP 50 a
  Python number is a *weak* scalar (float32 array * 2.0 stays float32) and a NumPy scalar
  is not (float32 array * np.float64(2.0) is float64), so later cells compute in another
  dtype; one Python number type into another (int -> float, bool -> int);
- a NumPy scalar into a 0-d array on the host or back (`cp.asnumpy(r)` of a reduction):
  same dtype and promotion, but a 0-d array is mutable, unhashable (no dict key or set
  member) and not an instance of Python's float/complex as np.float64/np.complex128 are
  (json.dumps, isinstance checks), and it prints as `array(1.5)`;
- a container's type (list -> tuple, dict -> OrderedDict), a frame's kind, a sparse
  matrix's class or format (csr_matrix -> csr_array: `*` is a matrix product for one, an
  elementwise product for the other).
Where a name's value lives is not a type change: a CuPy array is compared with a NumPy array by
dtype, shape and values, and a CuPy 0-d array (what CuPy's reductions return: a device has
no scalars) with a NumPy scalar of the same dtype is compared by value, the detail saying so
(NumPy promotes 0-d arrays and NumPy scalars alike, and the residency plan converts at host
boundaries). Inside a host container (a list, tuple, dict, object array, dataclass) it is
compared by value too, but the comparison keeps a detail that starts with `HELD_ON_DEVICE`
(`held on the device: feats['x'][0] is a cupy.ndarray ... where the original has
numpy.ndarray ...`), which the harness turns into a warning: host code that reads the container
later (np.stack, pandas, matplotlib) gets the device value as it is and refuses it. The rewrite
copies a container's device values back wherever the notebook shows the container or a later
cell reads it; one that only its own cell uses (a pair of sums added up) may keep them, and a
per-cell check cannot see the later cells, so this is a warning, not a failure. The other way
round (a host value where the original held a device one) is "not_equal", method "type".

Sparse matrices (SciPy, or cupyx copied to the host) are compared by class, shape, dtype, nnz
and their index arrays exactly, then data with the tolerances: a matrix whose duplicates were
summed (or whose indices were sorted) is not_equal even where every product with it agrees,
and the detail says it is the same matrix stored differently.

Plain Python: numpy and pandas are imported only when a value needs them.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import fractions
import math
import statistics
import sys
import types
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

EQUAL = "equal"
NOT_EQUAL = "not_equal"
UNVERIFIED = "unverified"
STATISTICAL = "statistical"

# Worst first: how statuses combine when a container holds several values.
_RANK = {NOT_EQUAL: 3, UNVERIFIED: 2, STATISTICAL: 1, EQUAL: 0}

#: Default (rtol, atol) by dtype. The lower precision of the two sides decides.
DEFAULT_TOLERANCES = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1e-2, 1e-5),
    "float32": (1e-5, 1e-6),
    "float64": (1e-7, 1e-9),
    "complex64": (1e-5, 1e-6),
    "complex128": (1e-7, 1e-9),
    "longdouble": (1e-7, 1e-9),
}

# Python values compared with `==`: their equality is value equality.
_VALUE_TYPES: tuple[type, ...] = (
    str,
    bytes,
    bytearray,
    type(None),
    range,
    frozenset,
    set,
    datetime.date,  # and datetime.datetime
    datetime.time,
    datetime.timedelta,
    decimal.Decimal,
    fractions.Fraction,
)

#: Fewest samples for a statistical comparison of random outputs.
MIN_STATISTICAL_SAMPLES = 30

#: Why a single number computed from random streams that differs is "unverified".
RANDOM_SCALAR_DETAIL = (
    "a single value computed from random streams: one value cannot be compared by "
    "statistics and the harness cannot tell how many samples it summarizes"
)


#: Fewest runs per side for comparing a scalar from random streams by the spread of its repeats.
MIN_SCALAR_REPEATS = 5

#: A scalar from random streams matches when |mean_a - mean_b| <= SCALAR_SE_LIMIT *
#: sqrt(se_a^2 + se_b^2), se = standard error of a side's mean over its repeats. 5, as the
#: bench's own Monte Carlo check: with 5 repeats a side (Student's t, ~4-8 degrees of freedom)
#: a true match fails less than 1% of the time.
SCALAR_SE_LIMIT = 5.0


@dataclass
class OutputComparison:
    """How one output of the candidate compares with the baseline's."""

    name: str
    status: str
    method: str
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    detail: str | None = None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("max_abs_err", "max_rel_err"):
            v = d[k]
            d[k] = float(v) if v is not None and math.isfinite(v) else None
        return d


def combine_status(statuses: list[str]) -> str:
    """The overall status of several comparisons (the worst one); none -> unverified."""
    if not statuses:
        return UNVERIFIED
    return max(statuses, key=_RANK.__getitem__)


# ---------------------------------------------------------------------------------------
# Moving values to the host


def _type_root(x: Any) -> str:
    return type(x).__module__.split(".")[0]


def is_device_value(x: Any) -> bool:
    """True for values that live in GPU memory (CuPy, Numba device arrays, CUDA tensors,
    cuDF objects). The CUDA simulator's fake device arrays count as device values."""
    root = _type_root(x)
    if root == "cudf":
        return True
    if root == "torch":
        return bool(getattr(x, "is_cuda", False))
    if type(x).__name__ == "FakeCUDAArray":
        return True
    if type(x).__module__.startswith("cupyx.scipy.sparse"):
        return hasattr(x, "get")  # a sparse matrix in device memory
    try:
        return hasattr(x, "__cuda_array_interface__")
    except Exception:
        return False


def to_host(x: Any) -> Any:
    """A host (NumPy / pandas / Python) version of `x`; `x` itself when already there."""
    root = _type_root(x)
    if root in ("cupy", "cupyx") and hasattr(x, "get"):
        return x.get()
    if root == "cudf" and hasattr(x, "to_pandas"):
        return x.to_pandas()
    if root == "torch" and hasattr(x, "detach"):
        t = x.detach().cpu()
        if str(t.dtype) == "torch.bfloat16":
            return t.float().numpy()
        return t.numpy() if t.dim() else t.numpy()[()]
    if hasattr(x, "copy_to_host") and callable(x.copy_to_host):
        return x.copy_to_host()
    if root in ("jax", "jaxlib"):
        import numpy as np

        return np.asarray(x)
    return x


def is_random_state(x: Any) -> bool:
    """True for random number generators (NumPy Generator/RandomState/BitGenerator,
    CuPy's, `random.Random`, torch.Generator): state a cell advances, not a result."""
    import random as _random

    if isinstance(x, _random.Random):
        return True
    t = type(x)
    mod = t.__module__ or ""
    if mod.startswith(("numpy.random", "cupy.random")):
        return t.__name__ in ("Generator", "RandomState") or any(
            c.__name__ in ("BitGenerator", "Generator", "RandomState") for c in t.__mro__
        )
    return mod.startswith("torch") and t.__name__ == "Generator"


# ---------------------------------------------------------------------------------------
# Arrays


def default_tolerance(dtype_a: Any, dtype_b: Any) -> tuple[float, float]:
    """(rtol, atol) for comparing arrays of these dtypes: the looser of the two."""
    best = (0.0, 0.0)
    for dt in (str(dtype_a), str(dtype_b)):
        tol = DEFAULT_TOLERANCES.get(dt)
        if tol is not None and tol[0] > best[0]:
            best = tol
    return best


def _is_arraylike(x: Any) -> bool:
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.ndarray | np.generic)


def _compare_arrays(
    name: str, a: Any, b: Any, rtol: float | None, atol: float | None, random: bool
) -> OutputComparison:
    """Shape, dtype, then values. A dtype difference is not_equal (method "dtype") whatever
    the values; the values are still compared and the detail says how they stand."""
    import numpy as np

    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return OutputComparison(
            name, NOT_EQUAL, "shape", detail=f"shape {a.shape} vs candidate {b.shape}"
        )
    r = _compare_array_values(name, a, b, rtol, atol, random)
    if a.dtype == b.dtype:
        return r
    values = {
        EQUAL: f"values equal under {r.method}",
        STATISTICAL: "values match by statistics",
        NOT_EQUAL: "values differ too",
        UNVERIFIED: "values not verified",
    }[r.status]
    detail = f"dtype {a.dtype} vs candidate {b.dtype}: {_dtype_consequence(a.dtype, b.dtype)}"
    detail += f"; {values}" + (f" ({r.detail})" if r.detail else "")
    return OutputComparison(name, NOT_EQUAL, "dtype", r.max_abs_err, r.max_rel_err, detail)


def compare_up_to_sign(
    name: str, a: Any, b: Any, rtol: float | None, atol: float | None
) -> OutputComparison | None:
    """Eigenvectors and singular vectors are unique only up to each vector's sign (LAPACK and
    cuSOLVER may pick different ones): `b` equal to `a` once each column (eigenvectors, U) or
    each row (Vt) is given the sign that matches `a`'s, as an EQUAL comparison saying so. None
    when no flipping makes them equal (or they are not real 2-D arrays of one shape)."""
    import numpy as np

    a = np.asarray(to_host(a))
    b = np.asarray(to_host(b))
    if a.ndim != 2 or a.shape != b.shape or a.dtype.kind != "f" or b.dtype.kind != "f":
        return None
    for axis, what in ((0, "column"), (1, "row")):
        # the sign of each vector's dot product with the baseline's (0 counts as +)
        sign = np.where(np.sum(a * b, axis=axis, keepdims=True) < 0, -1.0, 1.0).astype(b.dtype)
        r = _compare_arrays(name, a, b * sign, rtol, atol, False)
        if r.status == EQUAL:
            flipped = int((sign < 0).sum())
            return OutputComparison(
                name,
                EQUAL,
                f"{r.method} up to sign",
                r.max_abs_err,
                r.max_rel_err,
                detail=f"equal once {flipped} {what}(s) change sign: eigenvectors and singular"
                " vectors are unique only up to sign (LAPACK and cuSOLVER pick their own)",
            )
    return None


class OperandScale(NamedTuple):
    """The operands computed from a transform of the sum or difference a value is
    (`harness._operand_scale`): their largest |value|, their root mean square, their names,
    and whether the sum has an exact operand too (a number, a value computed from no
    transform)."""

    largest: float
    rms: float
    names: str
    exact: bool


#: The most a sum's operands may loosen its relative L2 bound (their rms over its own): a
#: difference that cancels to 1/100 of its operands carries 100 times their relative rounding;
#: one that cancels further is judged no looser than that.
L2_OPERAND_CAP = 100.0


def compare_relative_to_largest(
    name: str,
    a: Any,
    b: Any,
    rtol: float | None,
    computed_in: tuple[Any, str] | None = None,
    operands: OperandScale | None = None,
) -> OutputComparison | None:
    """An FFT's outputs (and what is computed from them: a power spectrum |rfft(x)|**2) carry a
    rounding error set by the transform's norm, not by each bin: cuFFT and pocketfft order their
    butterflies differently, and a bin far below the peak (a sine's leakage) differs by far more
    than its own size, though no more than rounding of the largest values. `b` equal to `a` when
    both
      max|a - b| <= rtol * max|a|          (no bin differs by more than the largest's rounding)
      ||a - b||_2 <= rtol * ||a||_2         (norm-wise: the transform's own error bound)
    hold, as an EQUAL comparison saying so: the first alone would pass an array whose every
    entry is off by almost rtol * max|a| (a derived quantity that is wrong everywhere by a
    little), which no transform's rounding does. rtol: the user's, or the default of the lower
    precision of the two dtypes and `computed_in` ((dtype, words): the precision the values were
    computed in, when lower than their own: a float64 centroid computed from a float32 power
    spectrum carries float32's rounding). `operands` (`OperandScale`): `a` is a sum or
    difference of operands computed from a transform (`err = est - true_shifts`: values of
    about 40 whose difference is about 0.2), whose rounding it carries, not its own: both
    conditions are then taken relative to those operands (|a - b| <= rtol * their largest
    |value|; ||a - b||_2 <= rtol * ||operand||_2, as rms(operand) / rms(a) times rtol in
    relative L2, at most `L2_OPERAND_CAP` times rtol), as those operands themselves are judged
    (cancellation). Where another operand is exact (a number, epoch times, an origin of 1e6:
    `drift = t1 - t0 + est`), only the operands computed from a transform set the scale, though
    the exact part makes `a` larger (tighter than by `a`'s own values then). None when the
    difference is larger, the
    NaN/infinity positions differ, or they are not numeric arrays of one shape and dtype (those
    differences stand)."""
    import numpy as np

    a = np.asarray(to_host(a))
    b = np.asarray(to_host(b))
    if a.shape != b.shape or a.dtype != b.dtype or a.dtype.kind not in "fc" or a.size == 0:
        return None
    precision = ""
    if rtol is None:
        rtol = default_tolerance(a.dtype, b.dtype)[0]
        if computed_in is not None:
            low = DEFAULT_TOLERANCES.get(str(computed_in[0]), (0.0, 0.0))[0]
            if low > rtol:
                rtol = low
                precision = f"; at {computed_in[0]}'s tolerance: computed from {computed_in[1]}"
    fa = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    fb = b.astype(fa.dtype)
    finite = np.isfinite(fa)
    if not (
        np.array_equal(finite, np.isfinite(fb))
        and np.array_equal(fa[~finite], fb[~finite], equal_nan=True)
    ):
        return None
    abs_err = np.abs(fa[finite] - fb[finite])
    largest = float(np.abs(fa[finite]).max(initial=0.0))
    max_abs = float(abs_err.max(initial=0.0))
    rel_l2 = _relative_l2(abs_err, fa[finite])
    scale, scale_words, rms = largest, f"max |value| {largest:.3g}", _rms(fa[finite])
    ref_rms = rms
    if operands is not None and operands.exact:
        scale, ref_rms = operands.largest, operands.rms
        scale_words = (
            f"the largest |value| {scale:.3g} of its operands computed from a transform "
            f"({operands.names}; its exact operands carry none of that rounding; its own max "
            f"|value| {largest:.3g})"
        )
    elif operands is not None and operands.largest > largest:
        scale, ref_rms = operands.largest, max(rms, operands.rms)
        scale_words = (
            f"its operands' largest |value| {scale:.3g} (a sum or difference of "
            f"{operands.names}: their rounding, not its own, max |value| {largest:.3g})"
        )
    l2_limit = rtol * (min(L2_OPERAND_CAP, ref_rms / rms) if rms > 0 else 1.0)
    if max_abs > rtol * scale or rel_l2 > l2_limit:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = abs_err / np.abs(fa[finite])
    rel = rel[np.abs(fa[finite]) > 0]
    return OutputComparison(
        name,
        EQUAL,
        f"relative to the largest value (rtol={rtol:g})",
        max_abs,
        float(rel.max()) if rel.size else 0.0,
        detail=f"compared relative to the largest value (FFT rounding): max |difference| "
        f"{max_abs:.3g} <= {rtol:g} * {scale_words} and relative L2 error {rel_l2:.3g} <= "
        f"{l2_limit:.3g}{precision}; an FFT's rounding follows the transform's norm, so bins far "
        "below the peak differ by more than their own size",
    )


def compare_frame_relative_to_largest(
    name: str,
    a: Any,
    b: Any,
    rtol: float | None,
    computed_in: tuple[Any, str] | None = None,
    columns: dict[Any, tuple[tuple[Any, str] | None, OperandScale | None]] | None = None,
) -> OutputComparison | None:
    """Two frames (or series) computed from an FFT's output (`pd.DataFrame({"centroid": ...})`),
    with the same index, columns and dtypes and their other columns equal: each float column
    that fails its dtype's tolerance as `compare_relative_to_largest` judges an array.
    `columns` (where the source spells the frame's columns out, `_cell.transform_columns`):
    the columns computed from a transform's output, each with the precision it was computed
    in (None: its own dtype's) and, for one bound from a sum or difference, its operands'
    largest value (`compare_relative_to_largest`'s `operands`); a float column not in it is
    computed from none and keeps its dtype's tolerance. Without it every float column is judged
    at `computed_in`. None when the frames differ in anything but float values; otherwise the
    verdict, its detail naming the column that fails at the precision it was judged at (not
    merely the first column that needed more than its dtype's tolerance), and how each column
    that needed more was judged."""
    parts = _frame_float_columns(name, a, b)
    if parts is None:
        return None
    out = []
    judged: list[str] = []
    for label, column, x, y in parts:
        r = _compare_arrays(label, x, y, rtol, None, False)
        if r.status == EQUAL:
            out.append(r)
            continue
        derived = columns is None or column in columns
        precision, operands = (
            (computed_in, None) if columns is None else columns.get(column, (None, None))
        )
        relative = (
            compare_relative_to_largest(label, x, y, rtol, precision, operands) if derived else None
        )
        if relative is not None:
            judged.append(f"{label} {_how_judged(relative, x, precision, operands, rtol)}")
            out.append(relative)
            continue
        why = (
            f"fails relative to the largest value at {_tolerance_words(x, precision)} too"
            if derived and rtol is None
            else "computed from no transform's output: judged at its dtype's tolerance"
            if not derived
            else None
        )
        out.append(dataclasses.replace(r, detail="; ".join(filter(None, [r.detail, why]))))
    combined = _combine(name, out, "float columns relative to the largest value", None)
    if judged:
        combined.detail = "; ".join(filter(None, [combined.detail, *judged]))
    return combined


def _how_judged(
    r: OutputComparison,
    x: Any,
    precision: tuple[Any, str] | None,
    operands: OperandScale | None,
    rtol: float | None,
) -> str:
    """One phrase on how `compare_relative_to_largest` passed a frame's column: at which
    precision's tolerance and why, relative to which largest value."""
    import numpy as np

    words = f"{r.method} at {_tolerance_words(x, precision if rtol is None else None)}"
    finite = np.abs(x[np.isfinite(x)]) if x.size else x
    if operands is not None and operands.exact:
        words += (
            f", of its operands computed from a transform ({operands.names}): its exact "
            "operands carry none of their rounding"
        )
    elif operands is not None and operands.largest > float(finite.max(initial=0.0)):
        words += f", of its operands ({operands.names}): a sum or difference carries their rounding"
    return words


def _tolerance_words(x: Any, precision: tuple[Any, str] | None) -> str:
    """ "float32's tolerance (computed from power (float32))" where `precision` is lower than
    `x`'s dtype, else "float64's tolerance"."""
    if precision is not None:
        low = DEFAULT_TOLERANCES.get(str(precision[0]), (0.0, 0.0))[0]
        if low > DEFAULT_TOLERANCES.get(str(x.dtype), (0.0, 0.0))[0]:
            return f"{precision[0]}'s tolerance (computed from {precision[1]})"
    return f"{x.dtype}'s tolerance"


def _dtype_consequence(da: Any, db: Any) -> str:
    """One phrase on what a dtype change does to the cells that read the result."""
    if da.kind == db.kind and da.kind in "fc":
        low = "lower" if db.itemsize < da.itemsize else "higher"
        return f"{low} precision, and later arithmetic with it runs in {db}, not {da}"
    if da.kind != db.kind:
        return "another kind of number: later arithmetic promotes differently"
    return "a different width: later arithmetic promotes differently (and overflows elsewhere)"


#: Object arrays up to this many elements are compared element by element (as a list is).
#: In larger ones every element's class and every plain value (number, string, None...) is
#: compared, and this many of the other elements (arrays, objects: the costly ones), evenly
#: spaced; when those all match, the array is unverified, not equal.
_OBJECT_ELEMENTS = 10_000


def _compare_objects(
    name: str, a: Any, b: Any, rtol: float | None, atol: float | None, random: bool
) -> OutputComparison:
    """Two object arrays of one shape (`fig, axes = plt.subplots(1, 2)`: Axes; a ragged stack
    of arrays; a column of Python numbers), as host containers: each pair of elements as those
    values are (`_element`: a device array where the original has a NumPy one differs)."""
    import numpy as np

    fa, fb = a.ravel(), b.ravel()

    def at(i: int) -> str:
        return f"{name}[{', '.join(str(int(k)) for k in np.unravel_index(i, a.shape))}]"

    if a.size <= _OBJECT_ELEMENTS:
        parts = [_element(at(i), fa[i], fb[i], rtol, atol, random) for i in range(a.size)]
        return _combine(name, parts, "elementwise", None)
    ta = [type(x) for x in fa]
    other_class = np.flatnonzero([t is not type(y) for t, y in zip(ta, fb, strict=True)])
    if other_class.size:
        i = int(other_class[0])
        first = _element(at(i), fa[i], fb[i], rtol, atol, random)
        if first.method != "type":
            first = _type_mismatch(at(i), fa[i], fb[i])
        return OutputComparison(
            name,
            NOT_EQUAL,
            "type",
            detail=f"{other_class.size} of {a.size} elements are of another class, first "
            f"{first.name}: {first.detail}",
        )
    parts: list[OutputComparison] = []
    plain = np.zeros(a.size, dtype=bool)
    codes: dict[type, int] = {}
    code = np.fromiter((codes.setdefault(t, len(codes)) for t in ta), np.intp, len(ta))
    for cls, k in codes.items():
        where = np.flatnonzero(code == k)
        as_array = _plain_values(cls, fa[where], fb[where])
        if as_array is None:
            continue
        plain[where] = True
        xa, xb = as_array
        label = f"{name}[<{cls.__name__} elements>]"
        if xa.dtype.kind == "O":
            # str, None, dates, ints beyond int64...: `==` is their value equality
            bad = [j for j, (x, y) in enumerate(zip(xa, xb, strict=True)) if not x == y]
            detail = f"{len(bad)} differ, first {at(int(where[bad[0]]))}" if bad else None
            parts.append(OutputComparison(label, NOT_EQUAL if bad else EQUAL, "==", detail=detail))
            continue
        r = _compare_array_values(label, xa, xb, rtol, atol, random)
        if r.status != EQUAL and r.detail:
            # the index in the detail counts that class's elements only
            r.detail = f"{r.detail} (among the {where.size} {cls.__name__} elements)"
        parts.append(r)
    others = np.flatnonzero(~plain)
    chosen = others
    if others.size > _OBJECT_ELEMENTS:
        chosen = others[np.linspace(0, others.size - 1, _OBJECT_ELEMENTS).astype(np.intp)]
    parts += [_element(at(int(i)), fa[i], fb[i], rtol, atol, random) for i in chosen]
    r = _combine(name, parts, "elementwise", None)
    what = (
        f"{a.size} elements: every element's class compared, the {int(plain.sum())} numbers and "
        f"plain values (str, None...) by value, {chosen.size} of the {others.size} others "
        + ("(all)" if chosen.size == others.size else "(evenly spaced, first and last included)")
    )
    if r.status == EQUAL and chosen.size < others.size:
        r.status = UNVERIFIED
        what += f": those all equal, the other {others.size - chosen.size} not compared"
    r.detail = "; ".join(filter(None, [what, r.detail]))
    return r


def _plain_values(cls: type, xa: Any, xb: Any) -> tuple[Any, Any] | None:
    """Elements of one class `cls` from two object arrays as two arrays their values compare
    in: a NumPy number's dtype, float64/complex128 for Python floats and complexes, int64 for
    Python ints that fit, bool for bools, and the objects themselves for plain values whose
    `==` is value equality (str, None, dates, np.str_...: compared exactly). None for anything
    else."""
    import numpy as np

    if issubclass(cls, np.generic):
        if np.dtype(cls).kind not in "biufc":
            return xa, xb  # np.str_, np.datetime64...: exactly, as objects
        return xa.astype(np.dtype(cls)), xb.astype(np.dtype(cls))
    py = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}.get(cls)
    try:
        if py is not None:
            return xa.astype(py), xb.astype(py)
    except OverflowError:  # a Python int beyond int64: exactly, as an object
        return xa, xb
    if issubclass(cls, _VALUE_TYPES):
        return xa, xb
    return None


def _compare_array_values(
    name: str, a: Any, b: Any, rtol: float | None, atol: float | None, random: bool
) -> OutputComparison:
    import numpy as np

    notes: list[str] = []
    kinds = {a.dtype.kind, b.dtype.kind}
    if kinds == {"O"}:
        return _compare_objects(name, a, b, rtol, atol, random)
    if not kinds <= set("biufc"):
        # Strings, objects, datetimes...: exact equality element by element.
        try:
            same = a.dtype.kind == b.dtype.kind and bool(np.array_equal(a, b))
        except Exception as e:  # objects whose == is not a bool
            return OutputComparison(name, UNVERIFIED, "array_equal", detail=str(e))
        if a.dtype.kind == "O" and same:
            return OutputComparison(
                name,
                UNVERIFIED,
                "array_equal",
                detail="object arrays: compared with ==, which may not be value equality",
            )
        return OutputComparison(
            name, EQUAL if same else NOT_EQUAL, "array_equal", detail="; ".join(notes) or None
        )

    d_rtol, d_atol = default_tolerance(a.dtype, b.dtype)
    rtol = d_rtol if rtol is None else rtol
    atol = d_atol if atol is None else atol
    exact = rtol == 0 and atol == 0
    method = "exact" if exact else f"elementwise allclose(rtol={rtol:g}, atol={atol:g})"

    if a.size == 0:
        return OutputComparison(name, EQUAL, method, 0.0, 0.0, "; ".join(notes) or None)

    fa = a.astype(np.complex128 if "c" in kinds else np.float64)
    fb = b.astype(fa.dtype)
    nan_a, nan_b = np.isnan(fa), np.isnan(fb)
    if not np.array_equal(nan_a, nan_b):
        n = int(np.count_nonzero(nan_a != nan_b))
        return OutputComparison(
            name, NOT_EQUAL, method, detail=f"NaN positions differ in {n} element(s)"
        )
    inf_a, inf_b = np.isinf(fa), np.isinf(fb)
    if not (np.array_equal(inf_a, inf_b) and np.array_equal(fa[inf_a], fb[inf_b])):
        return OutputComparison(name, NOT_EQUAL, method, detail="infinities differ")
    finite = ~(nan_a | inf_a)
    xa, xb = fa[finite], fb[finite]
    abs_err = np.abs(xa - xb)
    max_abs = float(abs_err.max()) if abs_err.size else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = abs_err / np.abs(xa)
    rel = rel[np.abs(xa) > 0]
    max_rel = float(rel.max()) if rel.size else (0.0 if max_abs == 0 else math.inf)
    bad = abs_err > atol + rtol * np.abs(xa)
    n_bad = int(np.count_nonzero(bad))
    if n_bad == 0:
        return OutputComparison(name, EQUAL, method, max_abs, max_rel, "; ".join(notes) or None)
    if random and a.dtype.kind in "iuf" and b.dtype.kind in "iuf":
        shaped = (fa.real, fb.real) if bool(finite.all()) else None
        return _compare_statistically(
            name, fa[finite].real, fb[finite].real, notes, shaped, (rtol, atol)
        )
    beyond = (
        f"{n_bad} of {a.size} element(s) ({_pct(n_bad, a.size)}) beyond the elementwise tolerance"
    )
    if kinds & set("fc") and not exact:
        # Norm-wise: the relative error of the whole array. Small entries of transforms,
        # products and reductions carry an absolute rounding error set by the large ones
        # (about eps * RMS of the array, times a slowly growing factor), so an
        # element-by-element relative test fails them although the result is as accurate
        # as the arithmetic allows. Two conditions, both with the same rtol (the dtype's
        # default or the user's):
        #   ||a - b||_2 <= rtol * ||b||_2                         (norm-wise), and
        #   |a_i - b_i| <= atol + rtol * (|b_i| + RMS(b))  for every i  (no local error)
        # Elementwise |a-b| <= rtol|b| everywhere implies both, so they forgive entries
        # below the rounding-noise floor and nothing else; the second keeps one wrong
        # entry from hiding under a dominant one (an FFT's DC bin).
        rel_l2 = _relative_l2(abs_err, xa)
        rms = _rms(xa)
        local = abs_err - (atol + rtol * np.abs(xa))
        worst_local = int(np.argmax(local))
        local_ok = float(local[worst_local]) <= rtol * rms
        first = _first_index(bad, finite, a.shape)
        if rel_l2 <= rtol and local_ok:
            return OutputComparison(
                name,
                EQUAL,
                f"normwise(rtol={rtol:g})",
                max_abs,
                max_rel,
                "; ".join(
                    [
                        *notes,
                        f"normwise: relative L2 error {rel_l2:.3g} <= {rtol:g} and every "
                        f"element within atol + rtol*(|b| + RMS {rms:.3g}); {beyond} "
                        f"allclose(rtol={rtol:g}, atol={atol:g}), first at index {first}",
                    ]
                ),
            )
        if rel_l2 > rtol:
            notes.append(f"relative L2 error {rel_l2:.3g} > {rtol:g} (normwise check failed too)")
        else:
            where = _first_index(local == local[worst_local], finite, a.shape)
            notes.append(
                f"relative L2 error {rel_l2:.3g} <= {rtol:g}, but the element at {where} "
                f"differs by {float(abs_err[worst_local]):.3g}, more than rounding "
                f"(rtol*(|b| + RMS {rms:.3g})): a local difference"
            )
    notes.append(f"{beyond}, first at index {_first_index(bad, finite, a.shape)}")
    return OutputComparison(name, NOT_EQUAL, method, max_abs, max_rel, "; ".join(notes))


def _relative_l2(abs_err: Any, ref: Any) -> float:
    """||a - b||_2 / ||b||_2 over the finite entries, scaled so large values cannot
    overflow; inf when the reference is all zeros and the error is not."""
    import numpy as np

    scale = float(max(abs_err.max(initial=0.0), np.abs(ref).max(initial=0.0)))
    if scale == 0:
        return 0.0
    num = float(np.linalg.norm(abs_err / scale))
    den = float(np.linalg.norm(np.abs(ref) / scale))
    if den == 0:
        return math.inf if num > 0 else 0.0
    return num / den


def _rms(x: Any) -> float:
    """Root mean square of |x|, without overflow."""
    import numpy as np

    if x.size == 0:
        return 0.0
    scale = float(np.abs(x).max())
    if scale == 0:
        return 0.0
    return scale * float(np.sqrt(np.mean(np.abs(x / scale) ** 2)))


def _first_index(bad: Any, finite: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Index in the full array of the first entry flagged in `bad` (a mask over the
    finite entries)."""
    import numpy as np

    if not shape:
        return ()
    flat = np.flatnonzero(finite.ravel())[int(np.argmax(bad))]
    return tuple(int(i) for i in np.unravel_index(int(flat), shape))


def _pct(n: int, total: int) -> str:
    p = 100.0 * n / total if total else 0.0
    return f"{p:.2g}%" if p < 10 else f"{p:.0f}%"


def _compare_statistically(
    name: str,
    a: Any,
    b: Any,
    notes: list[str],
    shaped: tuple[Any, Any] | None = None,
    tol: tuple[float, float] | None = None,
) -> OutputComparison:
    """Two samples from random streams: same distribution, not the same numbers.

    Tolerances shrink with the sample size as 1/sqrt(n): the mean within 5 standard
    errors, the standard deviation within 5 of its standard errors (`_std_error_factor`:
    heavy tails widen it), and the two-sample
    Kolmogorov-Smirnov distance under its critical value at alpha = 0.001. These assume
    independent values, as raw draws are; values computed from draws (a filtered noise image,
    a running sum) are correlated with their neighbours, so n is their effective sample size
    (`_effective_size`, from `shaped`: the two arrays in their shapes), n / the design effect.
    A random walk (running sums of draws along an axis, `_walk_axis`) has no such effective
    size: it is judged by its steps and start instead (`_compare_as_random_walk`).

    `tol` (rtol, atol), the elementwise tolerance the values failed: the KS distance takes
    values that far apart as the same value (`_ks_distance`). KS assumes a continuous
    distribution; one with atoms (many equal values: the clipped ends of a histogram-equalised
    image, 0.8% of o_imaging's `eq` at cdf[0] and 0.5% at 1.0) moves a whole atom's mass across
    the other side's step when rounding moves the atom by one ulp, a KS distance of the atom's
    mass where the values agree to 1e-9 (run 29: KS 0.0079 against a bound of 0.0013 for
    `eq`, whose mean and quantiles agreed to 1e-6).
    """
    import numpy as np

    n, m = a.size, b.size
    method = "statistical(mean, std, quantiles, ks)"
    if min(n, m) < MIN_STATISTICAL_SAMPLES:
        what = (
            RANDOM_SCALAR_DETAIL
            if min(n, m) == 1
            else f"random output with only {min(n, m)} values: too few to compare by statistics"
        )
        return OutputComparison(name, UNVERIFIED, method, detail=what)
    if shaped is not None:
        walk = _compare_as_random_walk(name, *shaped, notes)
        if walk is not None:
            return walk
    deff, why = _design_effect(*shaped) if shaped is not None and n == m else (1.0, "")
    n_eff, m_eff = n / deff, m / deff
    mean_a, mean_b = float(a.mean()), float(b.mean())
    std_a, std_b = float(a.std()), float(b.std())
    scale = max(std_a, std_b, 1e-300)
    mean_tol = 5.0 * scale * math.sqrt(1.0 / n_eff + 1.0 / m_eff)
    tails, tails_why = _std_error_factor(a, b)
    std_tol = 5.0 * scale * math.sqrt(tails / n_eff + tails / m_eff)
    qs = np.array([0.05, 0.25, 0.5, 0.75, 0.95])
    qa, qb = np.quantile(a, qs), np.quantile(b, qs)
    ks = _ks_distance(a, b, tol)
    ks_crit = 1.95 * math.sqrt((n_eff + m_eff) / (n_eff * m_eff))  # c(alpha=0.001)
    failures = []
    if abs(mean_a - mean_b) > mean_tol:
        failures.append(f"mean {mean_a:.6g} vs {mean_b:.6g} (tolerance {mean_tol:.3g})")
    if abs(std_a - std_b) > std_tol:
        failures.append(f"std {std_a:.6g} vs {std_b:.6g} (tolerance {std_tol:.3g})")
    if ks > ks_crit:
        failures.append(f"KS distance {ks:.3g} > {ks_crit:.3g}")
    max_q = float(np.max(np.abs(qa - qb)))
    summary = (
        f"random output compared by statistics: |d mean|={abs(mean_a - mean_b):.3g}, "
        f"|d std|={abs(std_a - std_b):.3g}, max quantile diff={max_q:.3g}, KS={ks:.3g}"
    )
    if tol is not None:
        summary += f" (values within rtol={tol[0]:g}, atol={tol[1]:g} of each other taken as equal)"
    if tails > 0.5:  # wider than normal values'd be
        summary += (
            f"; heavy-tailed values: the std's tolerance is widened to its standard error "
            f"(from {tails_why}: {tails:.3g}/n, normal values 0.5/n)"
        )
    if deff > 1.0:
        summary += (
            f"; correlated values ({why}): tolerances for an effective sample size of "
            f"{n_eff:.0f} of {n} (design effect {deff:.3g})"
        )
    notes = [*notes, summary]
    if failures:
        return OutputComparison(name, NOT_EQUAL, method, detail="; ".join(notes + failures))
    return OutputComparison(name, STATISTICAL, method, detail="; ".join(notes))


def _ks_distance(a: Any, b: Any, tol: tuple[float, float] | None = None) -> float:
    """The two-sample Kolmogorov-Smirnov distance sup_t |F_a(t) - F_b(t)| of the empirical
    distribution functions, or, with `tol` = (rtol, atol), the same distance with values within
    that tolerance of each other taken as equal:

        max( sup_t F_b(t) - F_a(t + d(t)),  sup_t F_a(t) - F_b(t + d(t)) ),  d(t) = atol + rtol|t|

    Zero when every value of one side is within the tolerance of its partner on the other (b =
    a + e, |e| <= d: F_b(t) <= F_a(t + d)), the plain KS distance with a zero tolerance, and never
    more than it: its critical value under the null stays valid (conservative by no more than
    the mass within rounding of a step). A difference larger than the tolerance counts in full: an
    atom moved by a real error, a shift or a scale of the values, a wrong value anywhere. Each
    supremum is reached at a jump of its first function, so it is taken over that side's values.
    """
    import numpy as np

    sa, sb = np.sort(a.ravel()), np.sort(b.ravel())
    n, m = sa.size, sb.size
    if tol is None:
        grid = np.concatenate([sa, sb])
        return float(
            np.max(
                np.abs(
                    np.searchsorted(sa, grid, side="right") / n
                    - np.searchsorted(sb, grid, side="right") / m
                )
            )
        )
    rtol, atol = tol

    def above(x: Any, y: Any, size_x: int, size_y: int) -> float:
        # sup over x's values t of F_x(t) - F_y(t + d(t)); F_x(t) at its last equal value
        fx = np.searchsorted(x, x, side="right") / size_x
        fy = np.searchsorted(y, x + (atol + rtol * np.abs(x)), side="right") / size_y
        return float(np.max(fx - fy))

    return max(0.0, above(sb, sa, m, n), above(sa, sb, n, m))


def _std_error_factor(a: Any, b: Any) -> tuple[float, str]:
    """n x the variance of the sample standard deviation, over the variance (normal values:
    1/2, the usual 1/(2n); never taken below that), and in words what it was estimated from.

    Heavy tails (a gradient image whose spread sits in a few edge pixels: kurtosis ~115 in
    i_denoise's `gx`) make the std of two independent draws differ by many "normal" standard
    errors: sampling, not a wrong result. Two estimates, the smaller one kept:
    - from the baseline's kurtosis k: (k - 1) / 4 (the variance of s^2 is (mu4 - sigma^4) / n,
      and s moves by half as much relatively); a candidate cannot widen its check beyond it;
    - from the two arrays element by element (same shape): d = (a - mean a)^2 - (b - mean b)^2,
      whose mean is s_a^2 - s_b^2, so var(d) / (8 s^4) is the same factor for the difference of
      the two stds. Where the tails are structure both sides share (the same edge pixels, with
      heights that vary between draws), only the heights' variation is left in d, while the
      kurtosis counts the edges' presence as sampling too: ~10x less on such an image, so an
      error in the tails alone (a 6% edge gain) still fails. Independent draws give the same
      figure both ways."""
    import numpy as np

    def tails(x: Any) -> float:
        x = np.asarray(x, dtype=np.float64).ravel()
        x = x[np.isfinite(x)]
        var = float(x.var()) if x.size else 0.0
        if var == 0.0:
            return 0.5
        k = float(np.mean(((x - x.mean()) ** 2 / var) ** 2))
        # normal values give 3 within about sqrt(24 / n) (the sample kurtosis' standard
        # error): below 3 + 4 of those, the tails are taken as normal
        return (k - 1.0) / 4.0 if k > 3.0 + 4.0 * math.sqrt(24.0 / x.size) else 0.5

    found, what = tails(a), "the baseline's kurtosis"
    if found > 0.5 and a.shape == b.shape:
        x = np.asarray(a, dtype=np.float64)
        y = np.asarray(b, dtype=np.float64)
        ok = np.isfinite(x) & np.isfinite(y)
        x, y = x[ok], y[ok]
        d = (x - x.mean()) ** 2 - (y - y.mean()) ** 2
        s2 = 0.5 * (float(x.var()) + float(y.var()))
        if s2 > 0.0:
            paired = float(d.var()) / (8.0 * s2 * s2)
            if paired < found:
                found, what = paired, "the paired squared deviations"
    return max(0.5, found), what


#: A walk's values spread at least this many times more than its steps (variance): the
#: values are running sums of the steps, not draws with some correlation between neighbours.
_WALK_SPREAD = 16.0


def _walk_axis(a: Any) -> tuple[int, Any] | None:
    """The axis along which `a` is a random walk, with its steps there (np.diff), or None: the
    steps look like independent draws (uncorrelated neighbours, `_uncorrelated`) while the
    values spread far more than the steps (a running sum of n steps spreads ~n/2 times their
    variance). Of several such axes, the one with the smallest steps."""
    import numpy as np

    best: tuple[float, int, Any] | None = None
    var = float(a.var())
    if var == 0.0:
        return None
    for axis, length in enumerate(a.shape):
        if length < 2 * _WALK_SPREAD:
            continue
        steps = np.diff(a, axis=axis)
        step_var = float(steps.var())
        if step_var * _WALK_SPREAD > var:
            continue
        if not _uncorrelated(steps):
            continue
        if best is None or step_var < best[0]:
            best = (step_var, axis, steps)
    return None if best is None else (best[1], best[2])


#: Largest lag-1 correlation between neighbours that still reads as independent draws
#: (beside 5 standard errors of the estimate, 1/sqrt(n)).
_MAX_NEIGHBOUR_CORRELATION = 0.05


def _uncorrelated(x: Any) -> bool:
    """Whether neighbouring values along every axis of `x` are uncorrelated (lag-1
    correlation near 0), as independent draws are. Block means cannot tell for differences:
    a block's mean of np.diff telescopes to its two ends."""
    import numpy as np

    c = x - x.mean()
    var = float(np.mean(c * c))
    if var == 0.0:
        return False
    for axis, length in enumerate(x.shape):
        if length < 2:
            continue
        # neighbours along the axis, as views (no copies)
        head = c[(slice(None),) * axis + (slice(0, length - 1),)]
        tail = c[(slice(None),) * axis + (slice(1, length),)]
        r = float(np.mean(head * tail)) / var
        if abs(r) > max(_MAX_NEIGHBOUR_CORRELATION, 5.0 / math.sqrt(head.size)):
            return False
    return True


def _compare_as_random_walk(name: str, a: Any, b: Any, notes: list[str]) -> OutputComparison | None:
    """Running sums of draws (a random walk: `np.cumsum` of a draw along an axis) from two
    streams. Their values are correlated over the whole axis, so no effective sample size of
    the values holds (a walk's mean wanders by its whole spread from one draw to the next); the
    law of a walk is that of its start and its steps, and those are compared instead: the
    steps along the axis (np.diff), independent draws, by the statistics of independent
    values, and the first slice along the axis (element by element when both sides start at
    the same values, by statistics otherwise). The axis is chosen from the baseline alone
    (`_walk_axis`), so a candidate cannot pick how it is judged. None when `a` is no walk."""
    import numpy as np

    if a.shape != b.shape or a.ndim == 0:
        return None
    walk = _walk_axis(a)
    if walk is None:
        return None
    axis, steps_a = walk
    what = f"compared as a random walk along axis {axis} (its start and its steps)"
    steps_b = np.diff(b, axis=axis)
    steps = _compare_statistically(name, steps_a.ravel(), steps_b.ravel(), [])
    start_a, start_b = np.take(a, 0, axis=axis).ravel(), np.take(b, 0, axis=axis).ravel()
    if np.array_equal(start_a, start_b):
        start = OutputComparison(name, EQUAL, "array_equal", detail="the same values")
    elif start_a.size < MIN_STATISTICAL_SAMPLES:
        start = _compare_few_starts(name, start_a, start_b, float(steps_a.std()))
    else:
        start = _compare_statistically(name, start_a, start_b, [])
    parts = [f"steps: {steps.detail}", f"start: {start.detail}"]
    if steps.status == STATISTICAL and start.status in (EQUAL, STATISTICAL):
        return OutputComparison(
            name,
            STATISTICAL,
            "statistical(random walk: steps and start)",
            detail="; ".join([*notes, what, *parts]),
        )
    return OutputComparison(
        name,
        NOT_EQUAL,
        "statistical(random walk: steps and start)",
        detail="; ".join([*notes, what, *parts]),
    )


def _compare_few_starts(name: str, a: Any, b: Any, step_sd: float) -> OutputComparison:
    """The starts of a few walks (one path, a few walkers; fewer than MIN_STATISTICAL_SAMPLES):
    too few for a distribution, so their means are compared, within 5 standard errors of the
    larger of the steps' spread (a running sum starts at its first draw, a step) and the starts'
    own (where two or more a side show one). A start offset by more than that fails."""
    import numpy as np

    k = a.size
    spread = step_sd
    if k >= 2:
        spread = max(spread, math.sqrt((float(a.var(ddof=1)) + float(b.var(ddof=1))) / 2))
    tol = 5.0 * spread * math.sqrt(2.0 / k)
    d = abs(float(np.mean(a)) - float(np.mean(b)))
    detail = (
        f"{k} start value(s) a side: mean {float(np.mean(a)):.6g} vs {float(np.mean(b)):.6g}, "
        f"|d| {d:.3g} {'<=' if d <= tol else '>'} 5 standard errors of the steps' or starts' "
        f"spread ({tol:.3g})"
    )
    return OutputComparison(name, STATISTICAL if d <= tol else NOT_EQUAL, "mean", detail=detail)


#: Fewest blocks for estimating a design effect from block means (fewer: values taken as
#: independent, the strictest reading).
_MIN_BLOCKS = 64


def _design_effect(a: Any, b: Any) -> tuple[float, str]:
    """How many times the variance of a mean of `a` exceeds that of independent values
    (1: independent), and in words what it was estimated from; never below 1.

    Block means (batch means): `a` cut along each axis into blocks of about sqrt(length);
    deff = block size x variance of the block means / variance of the values. Two estimates,
    the smaller one kept:
    - from the baseline `a` alone: the candidate cannot make its own check looser than the
      baseline's own correlation allows; but a structure the values share across draws (an
      image's shapes under the noise) varies between blocks too and would count as correlation;
    - from the difference `a - b`: a structure both sides share cancels and only the two draws'
      correlated noise is left; a candidate's wrong structure would not cancel, which is why
      the baseline's estimate bounds it.
    Raw draws (independent values) get about 1 from both: as strict as before."""
    import numpy as np

    if a.shape != b.shape or a.ndim == 0:
        return 1.0, ""
    edges = [max(1, math.isqrt(length)) for length in a.shape]
    counts = [length // e for length, e in zip(a.shape, edges, strict=True)]
    if math.prod(counts) < _MIN_BLOCKS:
        return 1.0, ""
    trimmed = tuple(slice(0, c * e) for c, e in zip(counts, edges, strict=True))
    split = [d for c, e in zip(counts, edges, strict=True) for d in (c, e)]
    inner = tuple(range(1, 2 * a.ndim, 2))
    size = math.prod(edges)

    blocks = math.prod(counts)
    # independent values give 1 within about sqrt(2 / blocks) (the variance of a variance
    # estimate): below 1 + 4 of those, the values are taken as independent
    noise = 4.0 * math.sqrt(2.0 / blocks)

    def deff(x: Any) -> float:
        var = float(x.var())
        if var == 0.0:
            return 1.0
        means = x[trimmed].reshape(split).mean(axis=inner)
        found = size * float(means.var()) / var
        return found if found > 1.0 + noise else 1.0

    d_a = deff(np.asarray(a, dtype=np.float64))
    d_ab = deff(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))
    what = "the baseline's block means" if d_a <= d_ab else "the difference's block means"
    return min(d_a, d_ab), f"estimated from {what}, blocks of {'x'.join(map(str, edges))}"


# ---------------------------------------------------------------------------------------
# Frames


def _is_pandas(x: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(x, pd.DataFrame | pd.Series | pd.Index)


def _compare_frames(
    name: str, a: Any, b: Any, rtol: float | None, atol: float | None
) -> OutputComparison:
    import pandas as pd
    import pandas.testing as pdt

    if type(a) is not type(b) and not (
        isinstance(a, pd.DataFrame) == isinstance(b, pd.DataFrame)
        and isinstance(a, pd.Series) == isinstance(b, pd.Series)
    ):
        return _type_mismatch(name, a, b)
    kw: dict[str, Any] = {"check_exact": False}
    # float64's tolerance for pandas' own check (integer columns held to it too); a float32
    # column that fails it is judged again with its own dtype's tolerance, column by column
    # (_frame_columns_as_arrays), never by the loosest column of the frame
    kw["rtol"] = 1e-7 if rtol is None else rtol
    kw["atol"] = 1e-9 if atol is None else atol
    if isinstance(a, pd.DataFrame):
        check = pdt.assert_frame_equal
        method = "pandas.testing.assert_frame_equal"
    elif isinstance(a, pd.Series):
        check = pdt.assert_series_equal
        method = "pandas.testing.assert_series_equal"
    else:
        check = pdt.assert_index_equal
        method = "pandas.testing.assert_index_equal"
        kw.pop("rtol"), kw.pop("atol"), kw.pop("check_exact")

    def passes(x: Any, y: Any, **extra: Any) -> str | None:
        try:
            check(x, y, **kw, **extra)
            return None
        except AssertionError as e:
            return " ".join(str(e).split())[:300]
        except (TypeError, ValueError) as e:
            return f"{type(e).__name__}: {e}"[:300]

    err = passes(a, b)
    if err is None:
        return OutputComparison(name, EQUAL, method)
    columns = _frame_columns_as_arrays(name, a, b, rtol, atol)
    if columns is not None:
        return columns
    if passes(a, b, check_dtype=False) is None:
        dt = a.dtypes if isinstance(a, pd.DataFrame) else getattr(a, "dtype", "?")
        dt_b = b.dtypes if isinstance(b, pd.DataFrame) else getattr(b, "dtype", "?")
        return OutputComparison(
            name,
            NOT_EQUAL,
            "dtype",
            detail=f"dtypes differ: {_short(dt)} vs candidate {_short(dt_b)}; values equal "
            f"under {method}(check_dtype=False)",
        )
    if not isinstance(a, pd.Index) and len(a) == len(b):
        # The same rows in another order: a real difference for code that relies on the
        # order (head(), positional indexing), so not "equal", but say exactly that.
        try:
            if passes(a.sort_index(), b.sort_index()) is None or _same_sorted_rows(a, b, passes):
                return OutputComparison(
                    name, NOT_EQUAL, method, detail="same rows, different order"
                )
        except TypeError:
            pass
    return OutputComparison(name, NOT_EQUAL, method, detail=err)


def _frame_columns_as_arrays(
    name: str, a: Any, b: Any, rtol: float | None, atol: float | None
) -> OutputComparison | None:
    """Two frames (or series) with the same index, columns and dtypes whose float values
    failed pandas' elementwise tolerance, judged column by column as arrays of those values
    are (`_compare_arrays`: the norm-wise test for entries near cancellation included, so
    `pd.Series(gmean)` of float32 anomalies summed in another order passes as `gmean` does).
    None when anything but float values differs (the other columns are held to `equals`;
    the caller's pandas verdict stands)."""
    parts = _frame_float_columns(name, a, b)
    if parts is None:
        return None
    return _combine(
        name,
        [_compare_arrays(label, x, y, rtol, atol, False) for label, _, x, y in parts],
        "float columns as arrays",
        None,
    )


def _frame_float_columns(name: str, a: Any, b: Any) -> list[tuple[str, Any, Any, Any]] | None:
    """(label, column, baseline values, candidate values) of each float column of two frames (or
    series) whose index, columns (names and dtypes included) and dtypes are equal exactly and
    whose other columns are equal; None otherwise, or when there is no float column."""
    import pandas as pd

    if not (isinstance(a, pd.DataFrame | pd.Series) and isinstance(b, pd.DataFrame | pd.Series)):
        return None
    frame_a = a.to_frame() if isinstance(a, pd.Series) else a
    frame_b = b.to_frame() if isinstance(b, pd.Series) else b
    try:
        for x, y in ((frame_a.index, frame_b.index), (frame_a.columns, frame_b.columns)):
            pd.testing.assert_index_equal(x, y, exact=True, check_names=True)
    except AssertionError:
        return None
    if list(frame_a.dtypes) != list(frame_b.dtypes):
        return None
    floats = [i for i, dt in enumerate(frame_a.dtypes) if dt.kind in "fc"]
    others = [i for i in range(frame_a.shape[1]) if i not in floats]
    if not floats or not frame_a.iloc[:, others].equals(frame_b.iloc[:, others]):
        return None
    return [
        (
            f"{name}[{frame_a.columns[i]!r}]",
            frame_a.columns[i],
            frame_a.iloc[:, i].to_numpy(),
            frame_b.iloc[:, i].to_numpy(),
        )
        for i in floats
    ]


def _same_sorted_rows(a: Any, b: Any, passes: Any) -> bool:
    import pandas as pd

    if isinstance(a, pd.DataFrame):
        if list(a.columns) != list(b.columns):
            return False
        cols = list(a.columns)
        sa = a.sort_values(cols, kind="stable").reset_index(drop=True)
        sb = b.sort_values(cols, kind="stable").reset_index(drop=True)
    else:
        sa = a.sort_values(kind="stable").reset_index(drop=True)
        sb = b.sort_values(kind="stable").reset_index(drop=True)
    return passes(sa, sb) is None


def _short(x: Any) -> str:
    s = " ".join(str(x).split())
    return s if len(s) < 120 else s[:117] + "..."


# ---------------------------------------------------------------------------------------
# Sparse matrices


def _is_sparse(x: Any) -> bool:
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and bool(sp.issparse(x))


#: The index arrays that define a sparse format's structure, compared exactly.
_SPARSE_INDEX = {
    "csr": ("indptr", "indices"),
    "csc": ("indptr", "indices"),
    "bsr": ("indptr", "indices"),
    "coo": ("coords",),
    "dia": ("offsets",),
}


def _compare_sparse(
    name: str, a: Any, b: Any, rtol: float | None, atol: float | None, random: bool
) -> OutputComparison:
    """Class, shape, dtype, nnz, the index arrays exactly, then data with the tolerances.

    The stored form is compared, not only the matrix: `M.nnz`, `M.data`, `M.indices` and
    `M.has_canonical_format` are what later cells read, so a matrix whose duplicates were
    summed, whose explicit zeros were dropped or whose indices were sorted is not_equal; the
    detail then says whether the two store the same matrix (compared in canonical form)."""
    import numpy as np

    if not (_is_sparse(a) and _is_sparse(b)):
        return _type_mismatch(name, a, b, "a sparse matrix and a dense value")
    if type(a) is not type(b):
        sp = sys.modules["scipy.sparse"]
        why = None
        if isinstance(a, sp.spmatrix) != isinstance(b, sp.spmatrix):
            why = (
                "a sparse matrix and a sparse array: `*` and `**` are matrix products for "
                "one, elementwise for the other"
            )
        elif a.format != b.format:
            why = f"another storage format ({a.format} vs {b.format})"
        return _type_mismatch(name, a, b, why)
    fmt = a.format
    if a.shape != b.shape:
        return OutputComparison(
            name, NOT_EQUAL, "shape", detail=f"shape {a.shape} vs candidate {b.shape}"
        )
    if fmt in ("lil", "dok"):
        # stored canonically by construction (sorted lists, a dict): compare as CSR
        a, b = a.tocsr(), b.tocsr()
    notes: list[str] = []
    structure = f"sparse {fmt}: nnz and {', '.join(_SPARSE_INDEX.get(fmt, ('indices',)))}"
    if a.nnz != b.nnz:
        notes.append(f"nnz {a.nnz} vs candidate {b.nnz}")
    else:
        if fmt == "bsr" and a.blocksize != b.blocksize:
            notes.append(f"blocksize {a.blocksize} vs candidate {b.blocksize}")
        for field in _SPARSE_INDEX.get(fmt, ()):
            if field == "coords":
                # SciPy >= 1.13; before, a COO matrix has row and col
                xa, xb = (getattr(m, "coords", None) or (m.row, m.col) for m in (a, b))
            else:
                xa, xb = getattr(a, field), getattr(b, field)
            if field == "coords":
                same = len(xa) == len(xb) and all(
                    np.array_equal(p, q) for p, q in zip(xa, xb, strict=True)
                )
            else:
                same = np.array_equal(xa, xb)
            if not same:
                notes.append(f"{field} differ")
                break
    if notes:
        if a.dtype != b.dtype:
            notes.insert(
                0, f"dtype {a.dtype} vs candidate {b.dtype}: {_dtype_consequence(a.dtype, b.dtype)}"
            )
        notes.append(_same_matrix(a, b, rtol, atol))
        return OutputComparison(name, NOT_EQUAL, structure, detail="; ".join(notes))
    r = _compare_arrays(f"{name}.data", a.data, b.data, rtol, atol, random)
    idx = [
        f"{f} {getattr(a, f).dtype} vs candidate {getattr(b, f).dtype}"
        for f in _SPARSE_INDEX.get(fmt, ())
        if f != "coords" and getattr(a, f).dtype != getattr(b, f).dtype
    ]
    if idx:
        # SciPy itself picks int32 or int64 indices by size and operation: stated, not a
        # difference of the result
        idx = [f"index dtypes differ ({'; '.join(idx)}), values equal"]
    detail = "; ".join(filter(None, [*idx, r.detail])) or None
    method = "dtype" if r.method == "dtype" else f"{structure} exact; data {r.method}"
    return OutputComparison(name, r.status, method, r.max_abs_err, r.max_rel_err, detail)


def _same_matrix(a: Any, b: Any, rtol: float | None, atol: float | None) -> str:
    """Whether two sparse matrices whose storage differs hold the same matrix: both brought
    to canonical CSR (duplicates summed, indices sorted, explicit zeros kept) and compared."""
    import numpy as np

    def canonical(m: Any) -> Any:
        c = m.tocsr(copy=True)
        c.sum_duplicates()
        return c

    try:
        ca, cb = canonical(a), canonical(b)
    except Exception as e:  # an index type SciPy cannot convert
        return f"canonical forms not compared ({type(e).__name__})"
    forms = []
    for label, m, c in (("baseline", a, ca), ("candidate", b, cb)):
        if c.nnz != m.nnz:
            forms.append(f"the {label}'s has {m.nnz - c.nnz} duplicate entries (not summed)")
        elif m.format in ("csr", "csc") and not m.has_sorted_indices:
            forms.append(f"the {label}'s indices are unsorted")
    r_tol, a_tol = default_tolerance(a.dtype, b.dtype)
    r_tol = r_tol if rtol is None else rtol
    a_tol = a_tol if atol is None else atol
    same = (
        ca.nnz == cb.nnz
        and np.array_equal(ca.indptr, cb.indptr)
        and np.array_equal(ca.indices, cb.indices)
        and bool(np.allclose(ca.data, cb.data, rtol=r_tol, atol=a_tol, equal_nan=True))
    )
    what = ", ".join(forms)
    if same:
        return (
            "the same matrix stored differently"
            + (f" ({what})" if what else "")
            + ": products agree, but code reading nnz, data or indices sees the difference"
        )
    return "different matrices, also in canonical form" + (f" ({what})" if what else "")


# ---------------------------------------------------------------------------------------
# Entry point


def compare(
    name: str,
    baseline: Any,
    candidate: Any,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    random: bool = False,
) -> OutputComparison:
    """Compare one output. `random=True` allows a statistical comparison of float arrays
    when they differ element by element (outputs drawn from random streams)."""
    try:
        return _compare(name, baseline, candidate, rtol, atol, random)
    except Exception as e:  # a comparison must never take the run down
        return OutputComparison(
            name, UNVERIFIED, "error", detail=f"comparison failed: {type(e).__name__}: {e}"
        )


def _element(
    name: str, a: Any, b: Any, rtol: float | None, atol: float | None, random: bool
) -> OutputComparison:
    """One element of a host container (a list, tuple, dict, object array, dataclass or
    SimpleNamespace). Where it lives is part of it: a top-level name the residency plan keeps
    on the device is a device array by design (the rewrite's later cells read it there, its
    host boundaries copy it), but a device array inside a container the original filled with
    NumPy arrays reaches host code as it is: `np.stack(feats)`, `pd.DataFrame(d)` or matplotlib
    raise on it (CuPy refuses implicit copies to the host). The rewrite copies such values back
    where the notebook shows the container or a later cell reads it, so one left on the device
    is compared by value with a `HELD_ON_DEVICE` detail the harness reports as a warning (a
    per-cell check cannot see whether a later cell reads it). A host value where the original
    held a device one is a difference: code that read it on the device gets a host value."""
    host_a, host_b = to_host(a), to_host(b)
    if (host_a is not a) != (host_b is not b):
        where_a = _where(a, host_a) if host_a is not a else _describe(a)
        where_b = _where(b, host_b) if host_b is not b else _describe(b)
        if host_a is not a:
            return OutputComparison(
                name,
                NOT_EQUAL,
                "type",
                detail=f"{name} is a {where_b} where the original has {where_a}: code that read"
                " it on the device (CuPy) now gets a host value",
            )
        r = _compare(name, a, b, rtol, atol, random)
        held = (
            f"{HELD_ON_DEVICE}{name} is a {where_b} where the original has {where_a}: host code"
            " that reads the container later (NumPy, pandas, matplotlib) must copy it"
            " (cp.asnumpy): CuPy does not copy to the host implicitly"
        )
        r.detail = "; ".join(filter(None, [held, r.detail]))
        return r
    return _compare(name, a, b, rtol, atol, random)


#: How a comparison's detail starts when an element of a host container is a device value
#: where the original's is a host one (`_element`); the harness reports it as a warning.
HELD_ON_DEVICE = "held on the device: "


def _where(x: Any, host: Any) -> str:
    """A device value's kind in words, for `x` that `to_host` copied to `host`: `cupy.ndarray
    (float32, shape (3,))` (the CuPy array's class, whatever module defines it), a 0-d one as
    `0-d cupy.ndarray (float64)`, or its class for other libraries."""
    np = sys.modules.get("numpy")
    root = _type_root(x)
    if root in ("cupy", "cupyx") and np is not None and isinstance(host, np.ndarray):
        shape = f"0-d cupy.ndarray ({host.dtype})" if host.ndim == 0 else None
        return shape or f"cupy.ndarray ({host.dtype}, shape {host.shape})"
    return f"{_qualname(x)} (device)"


def _compare(
    name: str, a: Any, b: Any, rtol: float | None, atol: float | None, random: bool
) -> OutputComparison:
    host_a, host_b = to_host(a), to_host(b)
    # on a device before the copy (CuPy, cupyx sparse, torch, Numba, cuDF...)
    dev_a, dev_b = host_a is not a, host_b is not b
    a, b = host_a, host_b
    if _is_pandas(a) or _is_pandas(b):
        if not (_is_pandas(a) and _is_pandas(b)):
            return _type_mismatch(name, a, b)
        return _compare_frames(name, a, b, rtol, atol)
    if _is_sparse(a) or _is_sparse(b):
        return _compare_sparse(name, a, b, rtol, atol, random)
    if _is_number(a) or _is_number(b):
        kind = scalar_kind_difference(a, b, dev_a, dev_b)
        if kind is not None:
            return OutputComparison(name, NOT_EQUAL, "type", detail=kind)
    if _is_arraylike(a) or _is_arraylike(b):
        if _is_number(a) or _is_number(b) or (_is_arraylike(a) and _is_arraylike(b)):
            r = _compare_arrays(name, a, b, rtol, atol, random)
            note = _device_scalar_note(a, b, dev_a, dev_b)
            if note:
                r.detail = "; ".join(filter(None, [note, r.detail]))
            return r
        return _type_mismatch(name, a, b)
    if _is_number(a) and _is_number(b):
        return _compare_numbers(name, a, b, rtol, atol, random)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if len(a) != len(b):
            return OutputComparison(
                name, NOT_EQUAL, "length", detail=f"length {len(a)} vs {len(b)}"
            )
        pairs = enumerate(zip(a, b, strict=True))
        parts = [_element(f"{name}[{i}]", x, y, rtol, atol, random) for i, (x, y) in pairs]
        return _combine(name, parts, "elementwise", _container_change(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            missing = sorted(map(repr, set(a) ^ set(b)))[:5]
            return OutputComparison(
                name, NOT_EQUAL, "keys", detail=f"keys differ: {', '.join(missing)}"
            )
        parts = [_element(f"{name}[{k!r}]", a[k], b[k], rtol, atol, random) for k in a]
        return _combine(name, parts, "by key", _container_change(a, b))
    if isinstance(a, _VALUE_TYPES) and isinstance(b, _VALUE_TYPES):
        if type(a) is not type(b):
            return _type_mismatch(name, a, b)
        return OutputComparison(name, EQUAL if a == b else NOT_EQUAL, "==")
    if type(a) is type(b) and _plain_record(a):
        # a dataclass or SimpleNamespace: its fields, like a dict's values
        fa, fb = vars(a), vars(b)
        if set(fa) != set(fb):
            missing = sorted(map(repr, set(fa) ^ set(fb)))[:5]
            return OutputComparison(
                name, NOT_EQUAL, "fields", detail=f"fields differ: {', '.join(missing)}"
            )
        parts = [_element(f"{name}.{k}", fa[k], fb[k], rtol, atol, random) for k in fa]
        return _combine(name, parts, "by field", None)
    if type(a) is not type(b) and not (dev_a or dev_b or _gpu_library(a) or _gpu_library(b)):
        # two host objects of different classes: whatever they hold, later code that reads
        # their attributes or methods sees another class. A GPU library's own class for a CPU
        # one (a cuML estimator for scikit-learn's) is the rewrite's point: unverified below.
        return _type_mismatch(name, a, b)
    return OutputComparison(
        name,
        UNVERIFIED,
        "none",
        detail=f"cannot compare {_qualname(a)} values"
        + ("" if type(a) is type(b) else f" (candidate: {_qualname(b)})"),
    )


# ---------------------------------------------------------------------------------------
# Types: what later cells see besides the values


#: Top-level modules of GPU libraries whose objects stand in for CPU ones by design.
_GPU_LIBRARIES = frozenset(
    "cupy cupyx cudf cuml cugraph nx_cugraph cucim cuvs pylibraft raft_dask torch jax jaxlib "
    "numba warp dask_cudf dask_cuda kvikio cuspatial cuxfilter".split()
)


def _gpu_library(x: Any) -> bool:
    return _type_root(x) in _GPU_LIBRARIES


def _qualname(x: Any) -> str:
    t = type(x)
    mod = t.__module__
    return t.__qualname__ if mod == "builtins" else f"{mod}.{t.__qualname__}"


def _describe(x: Any, on_device: bool = False) -> str:
    """A value's kind in words: `float`, `numpy.float64 scalar`, `0-d numpy.ndarray
    (float64)`, `0-d device array (float64)`, `numpy.ndarray (float32, shape (3,))`."""
    np = sys.modules.get("numpy")
    if np is not None and isinstance(x, np.generic):
        return f"numpy.{x.dtype} scalar"
    if np is not None and isinstance(x, np.ndarray):
        where = "device array" if on_device else "numpy.ndarray"
        if x.ndim == 0:
            return f"0-d {where} ({x.dtype})"
        return f"{where} ({x.dtype}, shape {x.shape})"
    return _qualname(x)


def _type_mismatch(name: str, a: Any, b: Any, why: str | None = None) -> OutputComparison:
    detail = f"{_describe(a)} vs candidate {_describe(b)}"
    return OutputComparison(name, NOT_EQUAL, "type", detail=f"{detail}: {why}" if why else detail)


_PY_NUMBERS = (bool, int, float, complex)


def _python_number(x: Any) -> bool:
    """A Python bool/int/float/complex (np.float64 subclasses float: it is not one)."""
    np = sys.modules.get("numpy")
    return isinstance(x, _PY_NUMBERS) and not (np is not None and isinstance(x, np.generic))


def scalar_kind_difference(
    a: Any, b: Any, a_on_device: bool = False, b_on_device: bool = False
) -> str | None:
    """Why two values of which one at least is a number (Python number, NumPy scalar, 0-d
    array) are not the same kind of value, or None when they are (their dtypes, for NumPy
    values, are checked with their values). Host values; `*_on_device`: the value was a
    device array before its copy to the host.

    - a Python number against anything else: under NEP 50 a Python int/float/complex is a
      weak scalar (it takes the other operand's dtype) and a NumPy scalar or array is not,
      so later arithmetic runs in another dtype: not the same result;
    - two Python numbers of different types (int vs float, bool vs int);
    - a NumPy scalar against a 0-d NumPy array on the host: same dtype and promotion, but the
      array is mutable, unhashable and not a Python float/complex subclass;
    - a NumPy scalar against a 0-d array that was on the device: the same kind, since CuPy
      has no device scalars (its reductions return 0-d arrays) and NumPy promotes both alike.
    """
    np = sys.modules.get("numpy")
    pa, pb = _python_number(a), _python_number(b)
    if pa and pb:
        if type(a) is type(b):
            return None
        return (
            f"{type(a).__name__} vs candidate {type(b).__name__}: another Python number type "
            "(later arithmetic, formatting and isinstance checks differ)"
        )
    if pa or pb:
        py, other = (a, b) if pa else (b, a)
        other_text = _describe(other, b_on_device if pa else a_on_device)
        text = f"{_describe(a, a_on_device)} vs candidate {_describe(b, b_on_device)}"
        if np is not None and isinstance(other, np.generic | np.ndarray):
            return (
                f"{text}: under NEP 50 a Python {type(py).__name__} is a weak scalar (its "
                f"precision does not count in promotion) and a {other_text} is not"
                f"{_promotion_example(np, other.dtype, type(py).__name__)}, so later cells "
                "compute in another dtype"
            )
        return text
    if np is None:
        return None
    sa, sb = isinstance(a, np.generic), isinstance(b, np.generic)
    za = isinstance(a, np.ndarray) and a.ndim == 0
    zb = isinstance(b, np.ndarray) and b.ndim == 0
    if (sa and zb and not b_on_device) or (sb and za and not a_on_device):
        return (
            f"{_describe(a, a_on_device)} vs candidate {_describe(b, b_on_device)}: NumPy "
            "promotes both alike, but a 0-d array is mutable, unhashable (no dict key or set "
            "member), not an instance of Python's float/complex as np.float64/np.complex128 "
            "are (json.dumps, isinstance) and prints as array(...); `r[()]` is the scalar"
        )
    return None


def _promotion_example(np: Any, dt: Any, py: str) -> str:
    """' (int8 array + np.int64(1) is int64, + 1 stays int8)': a smaller dtype of the same
    kind that a NumPy value of dtype `dt` promotes and a Python number does not; '' if none."""
    smaller = {"f": "float32 float16", "c": "complex64", "i": "int32 int16 int8", "u": "uint8"}
    one = {"f": "1.0", "c": "1j", "i": "1", "u": "1"}.get(dt.kind)
    for small in smaller.get(dt.kind, "").split():
        promoted = np.result_type(np.dtype(small), dt)
        if promoted != np.dtype(small):
            return (
                f" ({small} array * np.{dt}({one}) is {promoted}; * {one} as a Python {py} "
                f"stays {small})"
            )
    return ""


def _device_scalar_note(a: Any, b: Any, dev_a: bool, dev_b: bool) -> str | None:
    """The stated difference of a NumPy scalar compared with a 0-d device array."""
    np = sys.modules.get("numpy")
    if np is None:
        return None
    for x, y, dev, side in ((a, b, dev_b, "candidate"), (b, a, dev_a, "baseline")):
        if isinstance(x, np.generic) and isinstance(y, np.ndarray) and y.ndim == 0 and dev:
            return (
                f"the {side} holds a 0-d device array where the other side holds a "
                f"numpy.{x.dtype} scalar (CuPy's reductions return 0-d arrays; NumPy promotes "
                "both alike): compared by dtype and value"
            )
    return None


def _plain_record(x: Any) -> bool:
    """A dataclass instance or a SimpleNamespace: data whose fields are all it holds."""
    if isinstance(x, types.SimpleNamespace):
        return True
    return dataclasses.is_dataclass(x) and not isinstance(x, type) and hasattr(x, "__dict__")


def _container_change(a: Any, b: Any) -> str | None:
    if type(a) is type(b):
        return None
    return f"{_qualname(a)} vs candidate {_qualname(b)}"


def _is_number(x: Any) -> bool:
    if isinstance(x, bool | int | float | complex):
        return True
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.generic | np.ndarray) and x.ndim == 0


def _compare_numbers(
    name: str, a: Any, b: Any, rtol: float | None, atol: float | None, random: bool = False
) -> OutputComparison:
    if isinstance(a, bool | int) and isinstance(b, bool | int):
        err, rel = float(abs(a - b)), None if a == 0 else float(abs(a - b) / abs(a))
        if a != b and random:
            detail = f"{a} vs {b}: {RANDOM_SCALAR_DETAIL}"
            return OutputComparison(name, UNVERIFIED, "exact", err, rel, detail)
        return OutputComparison(name, EQUAL if a == b else NOT_EQUAL, "exact", err, rel)
    # Python floats are float64: the float64 defaults apply.
    r = DEFAULT_TOLERANCES["float64"][0] if rtol is None else rtol
    t = DEFAULT_TOLERANCES["float64"][1] if atol is None else atol
    a, b = complex(a), complex(b)
    if math.isnan(a.real) or math.isnan(b.real):
        ok = math.isnan(a.real) and math.isnan(b.real)
        return OutputComparison(name, EQUAL if ok else NOT_EQUAL, "isclose", detail="NaN")
    if a == b:
        return OutputComparison(name, EQUAL, f"isclose(rtol={r:g}, atol={t:g})", 0.0, 0.0)
    err = abs(a - b)
    rel = err / abs(a) if a != 0 else math.inf
    ok = err <= t + r * abs(a)
    if not ok and random:
        detail = f"{_num(a)} vs {_num(b)}: {RANDOM_SCALAR_DETAIL}"
        return OutputComparison(name, UNVERIFIED, "isclose", err, rel, detail)
    return OutputComparison(
        name,
        EQUAL if ok else NOT_EQUAL,
        f"isclose(rtol={r:g}, atol={t:g})",
        err,
        rel,
        None if ok else f"{_num(a)} vs {_num(b)}",
    )


def compare_random_scalar(
    name: str, baseline_runs: list[Any] | None, candidate_runs: list[Any] | None
) -> OutputComparison:
    """A single value computed from random streams, judged by the spread of each side's
    repeats: it matches "by statistics" when the two means differ by at most
    `SCALAR_SE_LIMIT` standard errors (needs `MIN_SCALAR_REPEATS` runs a side). When every
    run of one side gives the same value (a seed in the cell, or NumPy's global stream, which
    the harness restores before each run) that side is one draw: it matches when it lies within
    `SCALAR_SE_LIMIT` x the other side's spread of a single draw (a prediction interval,
    s * sqrt(1 + 1/n)). Both sides fixed: one draw per side, no spread: unverified, and the
    detail says so. Every verdict states the smallest bias the test could detect."""
    a = _real_runs(baseline_runs)
    b = _real_runs(candidate_runs)
    method = f"statistical(repeats, {SCALAR_SE_LIMIT:g} standard errors)"
    if a is None or b is None:
        detail = f"not a real number on every run; {RANDOM_SCALAR_DETAIL}"
        return OutputComparison(name, UNVERIFIED, method, detail=detail)
    fixed = [
        f"{label} gave {_num(runs[0])} on all {len(runs)} runs"
        for label, runs in (("baseline", a), ("candidate", b))
        if len(runs) > 1 and min(runs) == max(runs)
    ]
    why = None
    baseline_fixed = bool(fixed) and fixed[0].startswith("baseline")
    if len(fixed) == 1 and len(b if baseline_fixed else a) >= MIN_SCALAR_REPEATS:
        return _one_draw_against_spread(name, a, b, fixed[0], baseline_fixed)
    if fixed:
        where = "per side" if len(fixed) == 2 else f"on the {fixed[0].split()[0]} side"
        why = (
            f"seeded: one draw {where} ({'; '.join(fixed)}): every run started from the same "
            "random state (a seed in the cell, or NumPy's global stream, which the harness "
            "restores before each run), so the repeats have no spread"
        )
    elif min(len(a), len(b)) < MIN_SCALAR_REPEATS:
        why = (
            f"only {len(a)} baseline and {len(b)} candidate runs (a comparison by statistics "
            f"needs {MIN_SCALAR_REPEATS} a side)"
        )
    if why:
        detail = f"{why}; {RANDOM_SCALAR_DETAIL}"
        return OutputComparison(name, UNVERIFIED, method, abs(a[-1] - b[-1]), detail=detail)
    mean_a, mean_b = statistics.fmean(a), statistics.fmean(b)
    se_a = statistics.stdev(a) / math.sqrt(len(a))
    se_b = statistics.stdev(b) / math.sqrt(len(b))
    diff = abs(mean_a - mean_b)
    se = math.hypot(se_a, se_b)
    z = diff / se
    ok = z <= SCALAR_SE_LIMIT
    return OutputComparison(
        name,
        STATISTICAL if ok else NOT_EQUAL,
        method,
        diff,
        diff / abs(mean_a) if mean_a != 0 else None,
        f"by statistics over the repeats: baseline mean {mean_a:.6g} (standard error "
        f"{se_a:.2g}, {len(a)} runs), candidate {mean_b:.6g} ({se_b:.2g}, {len(b)} runs); "
        f"difference {diff:.3g} = {z:.2f} standard errors "
        f"({'within' if ok else 'beyond'} the limit of {SCALAR_SE_LIMIT:g}; "
        f"the smallest bias this test detects is ~{SCALAR_SE_LIMIT * se:.2g})",
    )


def _one_draw_against_spread(
    name: str, a: list[float], b: list[float], fixed: str, baseline_fixed: bool
) -> OutputComparison:
    """One side repeats one value; the other's repeats (not all equal, so their spread is
    positive) give the spread of a single draw."""
    one, runs = (a[0], b) if baseline_fixed else (b[0], a)
    mean = statistics.fmean(runs)
    spread = statistics.stdev(runs) * math.sqrt(1 + 1 / len(runs))
    diff = abs(one - mean)
    ok = diff <= SCALAR_SE_LIMIT * spread
    z_text = (
        f"{diff / spread:.2f} single-draw standard deviations "
        f"({'within' if ok else 'beyond'} the limit of {SCALAR_SE_LIMIT:g}; the smallest "
        f"bias this test detects is ~{SCALAR_SE_LIMIT * spread:.2g})"
    )
    other = "candidate" if baseline_fixed else "baseline"
    return OutputComparison(
        name,
        STATISTICAL if ok else NOT_EQUAL,
        f"statistical(one draw vs repeats, {SCALAR_SE_LIMIT:g} standard deviations)",
        diff,
        diff / abs(mean) if mean != 0 else None,
        f"by statistics: {fixed} (one draw: its runs start from the same random state), "
        f"against the {other}'s {len(runs)} runs, mean {mean:.6g}, single-draw standard "
        f"deviation {spread:.2g}; difference {diff:.3g} = {z_text}",
    )


def _real_runs(runs: list[Any] | None) -> list[float] | None:
    """The runs' values as finite floats, or None when one is not a real number."""
    if not runs:
        return None
    out = []
    for v in runs:
        dtype = getattr(v, "dtype", None)
        if isinstance(v, complex) or not _is_number(v) or (dtype is not None and dtype.kind == "c"):
            return None
        try:
            f = float(v)
        except (TypeError, ValueError):
            return None
        if not math.isfinite(f):
            return None
        out.append(f)
    return out


def _num(z: complex) -> str:
    return f"{z.real:.10g}" if z.imag == 0 else f"{z:.10g}"


def _combine(
    name: str, parts: list[OutputComparison], method: str, container_differs: str | None
) -> OutputComparison:
    """Several comparisons as one; `container_differs` (the two containers' types, when they
    differ) makes it not_equal, method "type", whatever the elements."""
    status = combine_status([p.status for p in parts]) if parts else EQUAL
    abs_errs = [p.max_abs_err for p in parts if p.max_abs_err is not None]
    rel_errs = [p.max_rel_err for p in parts if p.max_rel_err is not None]
    worst = next((p for p in parts if p.status == status and p.status != EQUAL), None)
    # an element held on the device is named even where every value matches (a warning)
    held = next((p.detail for p in parts if (p.detail or "").startswith(HELD_ON_DEVICE)), None)
    detail = None
    if worst is None and held is not None:
        detail = held
    if worst is not None:
        nested = worst.method in ("elementwise", "by key", "by field") and worst.detail
        # a detail that names its element already (`feats[1] is a cupy.ndarray where...`)
        named = bool(worst.detail and worst.detail.startswith(f"{worst.name} "))
        detail = (
            worst.detail if nested or named else f"{worst.name}: {worst.detail or worst.status}"
        )
    if container_differs:
        elements = {
            EQUAL: "elements equal",
            STATISTICAL: "elements match by statistics",
            NOT_EQUAL: "elements differ too",
            UNVERIFIED: "elements not verified",
        }[status]
        detail = "; ".join(filter(None, [f"{container_differs}: {elements}", detail]))
        status, method = NOT_EQUAL, "type"
    return OutputComparison(
        name,
        status,
        method,
        max(abs_errs) if abs_errs else None,
        max(rel_errs) if rel_errs else None,
        detail,
    )
