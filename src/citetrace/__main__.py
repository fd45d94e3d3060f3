"""`python -m citetrace` runs the CLI."""

import sys

from citetrace.cli import main

sys.exit(main())
