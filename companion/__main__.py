"""``python -m companion`` is the ``companion`` command."""

import sys

from companion.app.cli import main

sys.exit(main())
