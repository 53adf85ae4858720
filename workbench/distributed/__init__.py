"""Campaigns and explorations on many devices, with Dask distributed as the engine.

``workbench calibrate --scheduler ...`` and ``workbench tune --scheduler ...`` run here:
:mod:`.cluster` starts (``local-gpus``) or reaches (``tcp://HOST:PORT``) a cluster and
:mod:`.checks` verifies its workers; device workers only measure, one task at a time,
CPU workers generate code and build ahead (:mod:`.worker` binds a worker to its
device, :mod:`.tasks` holds what runs on it);
:mod:`.campaign` and :mod:`.tuning` drive the work from the client, which remains the
one writer of the measurement store.
"""

from workbench.distributed.campaign import DistributedCampaign
from workbench.distributed.checks import ClusterWorkers, check_versions, check_workers
from workbench.distributed.cluster import (
    LOCAL_GPUS,
    DaskSession,
    SchedulerSpec,
    matching_devices,
    open_session,
)
from workbench.distributed.tuning import ClusterEvaluator, Lookahead, explore, is_ordered
from workbench.distributed.worker import CPU_RESOURCE, DEVICE_ENV, DEVICE_RESOURCE, Binding

__all__ = [
    "CPU_RESOURCE", "DEVICE_ENV", "DEVICE_RESOURCE", "LOCAL_GPUS", "Binding",
    "ClusterEvaluator", "ClusterWorkers", "DaskSession", "DistributedCampaign",
    "Lookahead", "SchedulerSpec", "check_versions", "check_workers", "explore",
    "is_ordered", "matching_devices", "open_session",
]
