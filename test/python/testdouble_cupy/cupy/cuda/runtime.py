"""TEST DOUBLE: cupy.cuda.runtime reporting one pretend device (a NumPy host, not a GPU)."""

DEVICE_NAME = b"TEST DOUBLE (NumPy on the CPU, not a GPU)"


def getDeviceCount():  # noqa: N802  (CuPy's name)
    return 1


def getDevice():  # noqa: N802
    return 0


def deviceSynchronize():  # noqa: N802
    return None


def runtimeGetVersion():  # noqa: N802
    return 13000


def driverGetVersion():  # noqa: N802
    return 13000


def getDeviceProperties(index):  # noqa: N802, ARG001
    return {"name": DEVICE_NAME, "totalGlobalMem": 1 << 30, "major": 0, "minor": 0}
