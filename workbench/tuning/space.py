"""Search spaces live in :mod:`workbench.kernels.space`, below every layer that reads
them (the IR features, the time-tiled stencils' spaces); re-exported here for the
tuning layer's many readers."""

from workbench.kernels.space import LaunchSequence, Point, Restriction, TuningSpace, Value

__all__ = ["LaunchSequence", "Point", "Restriction", "TuningSpace", "Value"]
