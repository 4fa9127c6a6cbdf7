"""What every test directory shares: how the suite runs on several cores (pytest-xdist, `make test`).

`make test` runs the suite in two parts: every test not marked `alone` spread over the cores
(`-n 2 --dist loadgroup`), then the `alone` tests by themselves. Under pytest-xdist each worker is its own
process with its own PostgreSQL databases (random names), Redis DB (tests/service/conftest.py) and ports
(bound to port 0); tests marked `xdist_group` with the same name run in one worker, one after the other."""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "alone: restarts shared servers (PostgreSQL, Redis): runs with no other "
                            "test running, after all of them (`make test` runs these in a pytest of their own)")
    # the groups are what keeps tests that share something outside their process apart: xdist's plain `load`
    # would ignore them, so distributing always means `loadgroup`
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadgroup"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # a plain `pytest` runs them last: a test run during or just after a restart would share an outage that is
    # not its own. Stable sort: everything else keeps its order.
    items.sort(key=lambda item: item.get_closest_marker("alone") is not None)


def pytest_runtest_setup(item: pytest.Item) -> None:
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1 and item.get_closest_marker("alone") is not None:
        pytest.fail(f"{item.nodeid} is marked `alone` and {workers} workers run at once: run the others with "
                    "-m 'not alone', then this one by itself (make test does)", pytrace=False)
