"""The frozen app's entry point: the `jiyi` program, as `gui.main:main` is for an installed one."""

import sys

from service.program import restore_outside_environment

restore_outside_environment()  # what the app starts outside itself gets the environment the app was given

from gui.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
