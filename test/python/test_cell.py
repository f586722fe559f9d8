"""Static facts about cells (gpuoptimize._cell): inputs, outputs, mutation, side effects."""

from __future__ import annotations

import pytest

from gpuoptimize._cell import analyze


def test_inputs_are_names_read_before_written() -> None:
    f = analyze("y = x + 1\nz = y * w\nx = 0")
    assert f.inputs == ["x", "w"]
    assert f.outputs == ["y", "z", "x"]


def test_augmented_assignment_reads_and_mutates() -> None:
    f = analyze("a += 1")
    assert f.inputs == ["a"] and f.mutated == ["a"] and f.outputs == ["a"]


@pytest.mark.parametrize(
    "src",
    [
        "a.sort()",
        "a[0] = 1",
        "a.x = 1",
        "del a[0]",
        "np.add(b, 1, out=a)",
        "np.random.shuffle(a)",
        "a.fillna(0, inplace=True)",
        "a.append(1)",
    ],
)
def test_in_place_changes_make_an_input_an_output(src: str) -> None:
    f = analyze(src)
    assert "a" in f.mutated and "a" in f.outputs and "a" in f.inputs


def test_function_and_comprehension_locals_are_not_inputs() -> None:
    f = analyze("def g(v):\n    t = v * k\n    return t\nr = [g(i) for i in data]")
    assert set(f.inputs) == {"k", "data"}
    assert f.outputs == ["g", "r"]


def test_last_expression_and_loop_counters() -> None:
    f = analyze("for i in range(3):\n    s = i\ns")
    assert f.has_last_value and f.loop_vars == {"i"}
    assert not analyze("x = 1").has_last_value


def test_random_use_is_flagged() -> None:
    assert analyze("x = np.random.rand(3)").uses_random
    assert analyze("rng = np.random.default_rng(0)").uses_random
    assert analyze("x = cp.random.normal(size=3)").uses_random
    assert not analyze("x = np.sort(y)").uses_random


@pytest.mark.parametrize(
    "src",
    [
        "open('f', 'w').write('x')",
        "open('f', mode='a')",
        "Path('f').write_text('x')",
        "df.to_parquet('f')",
        "np.savez('f', a=a)",
        "torch.save(m, 'f')",
        "plt.show()",
        "df.plot()",
        "while True:\n    print(1)",
        "x = input()",
        "import urllib.request",
        "os.system('ls')",
        "os.environ['X'] = '1'",
        "import shutil\nshutil.rmtree('d')",
        "gzip.open('f.gz', 'wt')",
    ],
)
def test_side_effects(src: str) -> None:
    assert analyze(src).side_effects, src


@pytest.mark.parametrize(
    "src",
    [
        "open('f').read()",
        "open('f', 'rb')",
        "print(x)",
        "np.load('f.npy')",
        "d.get('k')",
        "pd.read_csv('f')",
        "os.path.join('a', 'b')",
    ],
)
def test_look_alikes_are_not_side_effects(src: str) -> None:
    assert analyze(src).side_effects == [], src


@pytest.mark.parametrize(
    "src",
    [
        "ordered = np.sort(keys)",
        "import numpy as np\nordered = np.sort(keys)",
        "import cupy as cp\nordered = cp.sort(cp.asarray(keys))",
        "np.random.shuffle(keys)\nordered = keys",
    ],
)
def test_modules_are_never_outputs(src: str) -> None:
    f = analyze(src)
    assert "ordered" in f.outputs
    assert not {"np", "cp"} & set(f.outputs) and not {"np", "cp"} & set(f.mutated)


def test_a_module_alias_assigned_a_value_is_a_value() -> None:
    f = analyze("np = [3, 1]\nnp.sort()")
    assert f.outputs == ["np"] and f.mutated == ["np"]


def test_names_bound_from_a_transform() -> None:
    # FFT-family calls, directly or inside the expression; tuple targets bind each name
    src = (
        "X = np.fft.fft(x)\nS = np.abs(scipy.fft.rfft(frames * w)) ** 2\nf, P = signal.welch(x)\n"
        "C = fftpack.dct(x)\nY = np.fft.fftshift(x)\nZ = x.sum()\nfft = 3"
    )
    assert analyze(src).transforms == {"X", "S", "f", "P", "C"}


def test_names_computed_from_a_transform_are_transforms_too() -> None:
    # the transform's rounding carries into what is computed from its output, in any order of
    # statements; a name computed from other values only is not one
    src = (
        "late = m2 * 3\nF = np.fft.fft2(frames * win)\npower = np.abs(F) ** 2\n"
        "m = power.mean(axis=0)\nm2 = m * 2\nz = frames.sum()\nbig = power > 1.0\n"
        "for k in range(3):\n    total = m2[k]\n    acc = acc + total\n"
    )
    # `late` is computed before F exists; `big` is a comparison of the output, not its rounding
    assert analyze(src).transforms == {"F", "power", "m", "m2", "total", "acc"}


def test_names_assigned_in_a_def_lambda_or_class_are_not_the_cells_transforms() -> None:
    # a function's locals and a class's attributes are not names the cell binds; the
    # transform called inside a def or a lambda runs when it is called, not where it stands:
    # where the cell calls it (S = spectrum(x)), the name it binds is computed from one
    src = (
        "def spectrum(x):\n    X = np.fft.rfft(x)\n    p = np.abs(X) ** 2\n    return p\n"
        "class Bank:\n    W = np.fft.fft(np.eye(4))\n    G = W * 2\n"
        "f = lambda x: np.fft.fft(x)\ng = sorted(keys, key=lambda k: F[k])\n"
        "F = np.fft.fft(x)\nh = [F[i] * 2 for i in range(3)]\nS = spectrum(x)\n"
    )
    facts = analyze(src)
    # the comprehension runs where it stands and reads F: h is computed from the transform
    assert facts.transforms == {"F", "h", "S"}
    assert facts.transform_sources == {"F": set(), "h": {"F"}, "S": set()}


def test_a_name_computed_by_a_function_that_runs_a_transform_is_a_transform() -> None:
    # g_register: the FFT runs inside `xcorr`, which also reads the cell's F_ref; the shift
    # estimates are appended to a list in a loop, then made an array and a frame's columns
    src = (
        "F_ref = np.fft.fft2(ref * win)\n"
        "def xcorr(img):\n    R = np.fft.fft2(img * win) * np.conj(F_ref)\n"
        "    return np.real(np.fft.ifft2(R))\n"
        "def subpixel(c, p):\n    return p[0] + 0.5 * (c[0] - c[2]), p[1]\n"
        "def peak(img):\n    return np.argmax(xcorr(img))\n"
        "smooth = lambda x: np.fft.irfft(np.fft.rfft(x))\n"
        "est = []\nflags = []\n"
        "for k in range(n):\n    c = xcorr(frames[k])\n"
        "    p = np.unravel_index(np.argmax(c), c.shape)\n"
        "    est.append(subpixel(c, p))\n    flags.append(c.max() > 0.5)\n"
        "est = np.array(est)\nerr = est - true_shifts\n"
        "q = peak(frames[0])\ns = smooth(x)\nplain = subpixel(frames[0], (1, 2))\n"
        "df = pd.DataFrame({'true_y': true_shifts[:, 0], 'est_y': est[:, 0], 'k': np.arange(n)})\n"
        "df['err'] = np.hypot(df['est_y'] - df['true_y'], 0.0)\ndf['twice'] = df['true_y'] * 2\n"
    )
    facts = analyze(src)
    assert facts.transform_sources["c"] == {"F_ref"}
    assert facts.transform_sources["est"] == {"F_ref", "c", "p"}
    assert {"err", "df", "q", "s"} <= facts.transforms
    # a function that runs no transform and reads none of the cell's outputs; a list filled
    # with comparisons of one (flags)
    assert not {"plain", "flags", "true_shifts"} & facts.transforms
    # the frame's columns by name: the ones from true_shifts alone are computed from none
    cols = facts.transform_columns["df"]
    assert cols["true_y"] is None and cols["k"] is None and cols["twice"] is None
    assert cols["est_y"] == {"F_ref", "c", "est", "p"} == cols["err"]
    # the differences, with their operands: their values set the rounding the result carries
    assert facts.transform_operands[("err", None)] == [("est", None), ("true_shifts", None)]
    assert facts.transform_operands[("df", "err")] == [("df", "est_y"), ("df", "true_y"), 0.0]
    assert ("df", "twice") not in facts.transform_operands  # a product: relative to itself


def test_a_frame_rebound_or_filled_elsewhere_loses_its_columns() -> None:
    # only what the source spells out column by column is judged column by column
    base = "F = np.fft.rfft(x)\ndf = pd.DataFrame({'a': np.abs(F), 'b': y})\n"
    assert analyze(base).transform_columns == {"df": {"a": {"F"}, "b": None}}
    facts = analyze(base + "df = df.round(3)\n")
    assert "df" in facts.transforms and "df" not in facts.transform_columns
    # a column written whole through .loc: that column
    facts = analyze(base + "df.loc[:, 'b'] = np.abs(F)\n")
    assert facts.transform_columns == {"df": {"a": {"F"}, "b": {"F"}}}
    # filled where the source does not say which column: b (from none) may hold some of F and
    # some of y; no column is known to be computed from F alone
    facts = analyze(base + "df.update(F)\n")
    assert "df" not in facts.transforms
    # a frame with no column from a transform is no transform's
    assert analyze("df = pd.DataFrame({'a': x, 'b': y})").transform_columns == {}
    # a name bound again from something other than a sum keeps no operands
    facts = analyze("F = np.fft.rfft(x)\nd = np.abs(F) - 1\nd = d * 2\n")
    assert ("d", None) not in facts.transform_operands


def test_a_container_is_a_transforms_only_where_all_it_holds_is() -> None:
    # one element written from a transform beside others from none: its own dtype's tolerance
    fixed = "s = np.zeros(3)\ns[0] = g.mean()\nP = np.abs(np.fft.rfft(x))\ns[2] = P.max()\n"
    assert "s" not in analyze(fixed).transforms
    # zeros of which one element is written: the others are not
    assert "s" not in analyze("s = np.zeros(3)\nP = np.fft.rfft(x)\ns[2] = P.max()\n").transforms
    # every element, in a loop over its index; a list filled with them only
    loop = "P = np.fft.rfft(x)\nout = np.zeros(n)\nfor k in range(n):\n    out[k] = P[k].real\n"
    assert analyze(loop).transform_sources["out"] == {"P"}
    assert "out" not in analyze(loop + "out[0] = g.sum()\n").transforms
    assert "out" in analyze(loop + "out[0] = 0.0\n").transforms  # a number: exact in both
    # spectra summed into zeros: every element a sum of transform outputs
    acc = "acc = np.zeros(m)\nfor f in fr:\n    acc += np.abs(np.fft.rfft(f))\n"
    assert "acc" in analyze(acc).transforms
    assert "acc" not in analyze(acc.replace("np.zeros", "np.ones")).transforms
    lst = "P = np.fft.rfft(x)\nv = []\nv.append(g.mean())\nv.append(P.max())\n"
    assert "v" not in analyze(lst).transforms
    assert "v" in analyze(lst.replace("v.append(g.mean())\n", "")).transforms
    # a frame's column written by its name is that column only
    frame = "df = pd.DataFrame(g, columns=['a'])\nP = np.fft.rfft(x)\ndf['p'] = np.abs(P)\n"
    facts = analyze(frame + "df['r'] = df['a'] * 2\n")
    assert facts.transform_columns == {"df": {"p": {"P"}, "r": None}}
    # a transform's output plus an exact value whose size nothing shows: no scale to judge by
    add = "P = np.fft.rfft(x)\npos = []\nfor k in range(n):\n    pos.append(np.add(f(P), o))\n"
    assert "pos" not in analyze(add).transforms
    assert "q" not in analyze("P = np.fft.rfft(x)\nq = np.abs(P) * 2 + o\n").transforms
    assert "q" not in analyze("P = np.fft.rfft(x)\nq = np.abs(P)\nq += o\n").transforms
    # the same with the transform part a name: its operands, exact ones marked
    facts = analyze("P = np.fft.rfft(x)\na = np.abs(P)\nq = t1 - t0 + a + 2\n")
    assert facts.transform_operands[("q", None)] == [("t1", None), ("t0", None), ("a", None), 2.0]


def test_a_functions_return_value_carries_what_the_functions_it_calls_read() -> None:
    # register() calls xcorr(), which reads the cell's F_ref: est is computed from F_ref
    src = (
        "F_ref = np.fft.fft2(ref)\n"
        "def xcorr(img):\n    return np.real(np.fft.ifft2(np.fft.fft2(img) * np.conj(F_ref)))\n"
        "def register(frames):\n    return np.array([xcorr(f).max() for f in frames])\n"
        "est = register(frames)\n"
    )
    assert analyze(src).transform_sources["est"] == {"F_ref"}


def test_clocks_and_vectors_inside_a_def_are_not_the_cells() -> None:
    src = (
        "def timed():\n    t0 = time.perf_counter()\n    w, v = np.linalg.eigh(A)\n"
        "    return v\nt1 = time.perf_counter()\nvals, vecs = np.linalg.eigh(B)\n"
        "ts = [time.perf_counter() for _ in range(2)]\n"
    )
    facts = analyze(src)
    assert facts.clocks == {"t1", "ts"}
    assert facts.vectors == {"vals", "vecs"}


def test_transform_sources_follow_every_step() -> None:
    src = (
        "F = np.fft.rfft(x)\npower = np.abs(F) ** 2\nm = power.mean(0)\nc = (m * f).sum() / m.sum()"
    )
    assert analyze(src).transform_sources == {
        "F": set(),
        "power": {"F"},
        "m": {"F", "power"},
        "c": {"F", "power", "m"},
    }
