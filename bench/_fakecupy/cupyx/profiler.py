import time

import numpy as np


class _Result:
    def __init__(self, cpu, gpu):
        self.cpu_times = np.asarray(cpu)
        self.gpu_times = np.asarray([gpu])


def benchmark(func, args=(), kwargs=None, n_repeat=10000, *, name=None, n_warmup=10, max_duration=float("inf"), devices=None):
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
    return _Result(cpu, cpu)
