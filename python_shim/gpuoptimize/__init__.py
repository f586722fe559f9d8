"""gpuoptimize: the kernel side of jupyterlab-gpuoptimize.

`%load_ext gpuoptimize` registers the `%%gpuoptimize` / `%gpuoptimize` magics and the
`gpuoptimize` comm target the JupyterLab extension talks to. The A/B engine
(`gpuoptimize.harness.run_ab`) and the output comparison (`gpuoptimize.compare`) work
without IPython.
"""

try:
    from ._version import __version__
except ImportError:  # a source checkout: hatch writes _version.py at build time
    __version__ = "0.1.0"

__all__ = ["__version__", "load_ipython_extension", "unload_ipython_extension"]


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "jupyterlab-gpuoptimize"}]


def load_ipython_extension(ip) -> None:  # noqa: ANN001 (IPython's InteractiveShell)
    """Register the magics, the cell-id hook and the comm target."""
    from . import api, magic

    magic.register(ip)
    api.register_comm_target(ip)


def unload_ipython_extension(ip) -> None:  # noqa: ANN001
    from . import magic

    magic.unregister(ip)
