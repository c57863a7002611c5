"""``python -m optsched.cli``: the same as the ``optsched`` console script."""

import sys

from .main import main

sys.exit(main())
