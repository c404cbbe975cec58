"""Entry point: ``python -m benchmarks [--quick] [--only NAME] [--json PATH] [--sync-cpu]``."""

from benchmarks.run import main

raise SystemExit(main())
