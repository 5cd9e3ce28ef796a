"""PyInstaller entry point of the bundled `vpl-editor` (same as the `vpl-editor` console script)."""

import sys

from app.main import main

if __name__ == "__main__":
    sys.exit(main())
