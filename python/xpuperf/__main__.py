"""`python -m xpuperf ARGS`: the xpuperf command-line tool (see xpuperf.cli)."""

import sys

from xpuperf.cli import main

sys.exit(main())
