"""Fixtures of the GLSL backend tests: golden regeneration and shared artifacts.

Regenerate the golden files with `pytest tests/vpl_core/backends --update-goldens`
(the option is declared here, so it is known when this directory is among the
paths given to pytest) or, from anywhere, with `VPL_UPDATE_GOLDENS=1`.
A regenerated golden is reviewed as a diff in its commit.
"""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite tests/golden/**.glsl and .json from the current GLSL backend instead of comparing",
    )


@pytest.fixture(scope="session")
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens", default=False)) or os.environ.get("VPL_UPDATE_GOLDENS") == "1"
