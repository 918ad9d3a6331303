"""``python -m service.tools.cli``: the ``portolan`` command without the console script (what
``portolan dev`` and the tests start as subprocesses)."""

import sys

from service.tools.cli.main import main

sys.exit(main())
