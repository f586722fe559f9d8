"""TEST DOUBLE: cupy.cuda with no device work to wait for."""


class Device:
    def __init__(self, index=0):
        self.id = index

    def synchronize(self):
        return None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Stream:
    def synchronize(self):
        return None


def get_current_stream():
    return _Stream()
