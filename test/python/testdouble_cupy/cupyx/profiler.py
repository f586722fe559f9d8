"""TEST DOUBLE: cupyx.profiler.benchmark timing with the host clock (its "GPU" times are
the same host times: they mean nothing about a GPU)."""

import time

import numpy as np


class _Result:
    def __init__(self, name, cpu):
        self.name = name
        self.cpu_times = np.asarray(cpu)
        self.gpu_times = np.asarray([cpu])


def benchmark(
    func,
    args=(),
    kwargs=None,
    n_repeat=10000,
    *,
    name=None,
    n_warmup=10,
    max_duration=float("inf"),
    devices=None,  # noqa: ARG001
):
    kwargs = kwargs or {}
    for _ in range(n_warmup):
        func(*args, **kwargs)
    cpu = []
    t_end = time.perf_counter() + max_duration
    for _ in range(n_repeat):
        t0 = time.perf_counter()
        func(*args, **kwargs)
        cpu.append(time.perf_counter() - t0)
        if time.perf_counter() > t_end:
            break
    return _Result(name or getattr(func, "__name__", "func"), cpu)
