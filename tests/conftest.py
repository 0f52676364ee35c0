import os
from pathlib import Path

import pytest

# No "compiling kernels" line on a cold Numba cache: the error tests expect
# exactly one line on stderr, and which test compiles first depends on the order
# (tests/test_smoke.py checks the line itself).
os.environ["TREEXC_COMPILE_NOTICE"] = "0"

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def shared_data():
    """Path to ../shared/data, or skip: it exists for developers and CI only."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not available (developer data sets)")
    return SHARED_DATA
