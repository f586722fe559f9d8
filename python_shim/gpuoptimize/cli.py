"""`gpuoptimize` / `jupyter gpuoptimize` on PATH: runs the bundled Node CLI shipped in the wheel.

The analysis engine is TypeScript (it also runs in the browser); this launcher only finds
Node.js and the bundle, and passes the arguments and the exit code through.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

BUNDLE = Path(__file__).parent / "cli_bundle" / "gpuoptimize.cjs"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    node = os.environ.get("GPUOPTIMIZE_NODE") or shutil.which("node")
    if node is None:
        sys.stderr.write(
            "gpuoptimize: the command-line tool needs Node.js (>= 18) on PATH; "
            "install it (https://nodejs.org) or set GPUOPTIMIZE_NODE to its path.\n"
        )
        return 2
    if not BUNDLE.exists():
        sys.stderr.write(
            f"gpuoptimize: {BUNDLE} is missing: this installation was built without the CLI "
            "(from a source tree run `npm run build:cli`).\n"
        )
        return 2
    if argv is None and os.name == "posix":
        os.execv(node, [node, str(BUNDLE), *args])
    import subprocess

    return subprocess.call([node, str(BUNDLE), *args])


if __name__ == "__main__":
    sys.exit(main())
