"""The workbench: symbolic properties, calibration and models of GPU kernel run time.

The data path runs one way: kernel -> properties -> measurements -> fitted model ->
predictions -> tables and plots.  Subpackages, in that order: ``kernels``,
``properties``, ``measure``, ``models``, ``reports``; ``cli`` sits on top.
"""

__version__ = "0.1.0"
