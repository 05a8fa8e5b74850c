"""`python -m roadtest`: the same as the `roadtest` command."""

import sys

from roadtest.cli import main

sys.exit(main())
