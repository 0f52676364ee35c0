from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def shared_data():
    """Path to ../shared/data, or skip: it exists for developers and CI only."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not available (developer data sets)")
    return SHARED_DATA
