"""The workbench: symbolic properties, calibration and models of GPU kernel run time.

The data path runs one way: kernel -> properties -> measurements -> fitted model ->
predictions -> tables and plots.  Subpackages, in that order: ``kernels``,
``properties``, ``hardware`` (device descriptions), ``measure``, ``models`` (one
folder per paper), ``tuning``, ``distributed`` (Dask), ``reports``; ``cli`` and ``ui``
sit on top.  No module imports a later one (``tests/test_layers.py``).
"""

__version__ = "0.1.0"


def dashboard(store=None, device=None, **options):
    """The notebook dashboard: every panel of :mod:`workbench.ui`, wired together.

    Imported on first use, so that ``import workbench`` needs no ipywidgets.
    """
    from workbench.ui import dashboard as make_dashboard

    return make_dashboard(store, device, **options)
