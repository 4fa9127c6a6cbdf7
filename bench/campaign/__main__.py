"""Command line of the differential campaign; `python -m bench.campaign --help`."""

from bench.campaign.cli import main

raise SystemExit(main())
