"""Entry point: ``python -m benchmarks [--quick] [--only NAME] [--json PATH]``."""

from benchmarks.run import main

raise SystemExit(main())
