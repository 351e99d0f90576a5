"""``python -m app.cli``: the ``mnemo`` command without the console script."""

import sys

from app.cli import main

sys.exit(main())
