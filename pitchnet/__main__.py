"""`python -m pitchnet` runs the same command as `pitchnet`."""

import sys

from pitchnet.cli import main

sys.exit(main())
