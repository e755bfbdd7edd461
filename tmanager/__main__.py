"""``python -m tmanager``: the same as the ``tmanager`` command."""

import sys

from tmanager.cli import main

sys.exit(main())
