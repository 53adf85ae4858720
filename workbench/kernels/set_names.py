"""The names of the kernel sets held out of all fitting (``--set`` of ``calibrate`` and
``build-info``), kept apart from their definitions so that the command line can list them
without importing loopy.  :data:`workbench.kernels.defs.UNSEEN_SETS` maps the same names, in
the same order, to their kernels (``tests/test_heldout_sets.py`` checks both agree)."""

UNSEEN_SET_NAMES = ("unseen", "unseen2", "heldout3", "heldout4", "heldout5", "heldout6",
                    "heldout7", "heldout8", "heldout9", "heldout10", "heldout11", "heldout12",
                    "heldout13", "heldout14", "heldout15", "heldout16",
                    "heldout17", "heldout18", "heldout19",
                    "heldout20", "heldout21", "heldout22")

__all__ = ["UNSEEN_SET_NAMES"]
