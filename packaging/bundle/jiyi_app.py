"""The frozen app's entry point: the `jiyi` program, as `gui.main:main` is for an installed one."""

import sys

from gui.main import main

if __name__ == "__main__":
    sys.exit(main())
