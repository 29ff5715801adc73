"""`python -m pitchnet` runs the same command as `pitchnet`."""

import sys

from pitchnet.launch import main

sys.exit(main())
