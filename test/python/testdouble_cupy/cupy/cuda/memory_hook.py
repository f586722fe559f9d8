"""TEST DOUBLE: cupy.cuda.memory_hook. The double's pools never allocate, so hooks never fire."""


class MemoryHook:
    name = "testdouble"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
