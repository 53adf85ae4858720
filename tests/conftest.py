"""Fixtures shared by the test modules."""

import pytest


@pytest.fixture(scope="session")
def queue():
    """A queue on the pocl CPU device (the tests' embedded default), or a skip."""
    cl = pytest.importorskip("pyopencl")
    try:
        platforms = cl.get_platforms()
    except cl.Error as err:
        pytest.skip(f"no OpenCL platform available ({err})")
    for platform in platforms:
        if "Portable Computing Language" in platform.name and platform.get_devices():
            return cl.CommandQueue(cl.Context([platform.get_devices()[0]]))
    pytest.skip("no pocl ('Portable Computing Language') OpenCL device found")
