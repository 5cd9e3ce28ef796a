"""PyInstaller entry point of the bundled `vpl` command (same as the `vpl` console script)."""

import sys

from vpl_core.cli import main

if __name__ == "__main__":
    sys.exit(main())
