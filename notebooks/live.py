"""Plumbing shared by the notebooks: where the shipped data lives, and the live runs.

The notebooks open on the shipped H100 data (``sample_data/h100``).  Their live parts
measure on the default OpenCL device (pocl's CPU device unless told otherwise) into a
*live store*; a finished campaign with the same name and settings on the same device is
reused rather than measured again, so that the notebooks can share one quick campaign.
Pass ``reuse=False`` to measure afresh.

Only the library's public API is used here; the notebooks stay readable without it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.measure import (
    Campaign,
    CampaignSettings,
    DeviceInfo,
    Measurement,
    MeasurementStore,
    TimingProtocol,
    find_device,
    open_device,
)


def repo_root(start: Path | str | None = None) -> Path:
    """The checkout's root: the first folder, upwards, that holds ``sample_data/h100``."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "sample_data" / "h100").is_dir():
            return folder
    raise FileNotFoundError(
        f"no sample_data/h100 above {here}: run the notebooks from a checkout of the "
        "workbench (its notebooks/ folder)")


def h100_dir(start: Path | str | None = None) -> Path:
    """The shipped H100 campaigns (``sample_data/h100``)."""
    return repo_root(start) / "sample_data" / "h100"


@dataclass
class LiveRun:
    """What a live run measured (or reused) on which device, and where it is stored."""

    device: DeviceInfo
    store: Path
    campaign_id: int
    measurements: list[Measurement]
    reused: bool
    wall_s: float
    failed: int = 0
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        how = "reused from the live store" if self.reused else \
            f"measured now in {self.wall_s:.1f} s"
        return (f"{len(self.measurements)} measurements on {self.device.name} "
                f"({self.device.platform}), campaign {self.campaign_id}, {how}; "
                f"{self.failed} failed; store {self.store}")


def _progress_bar(total: int, desc: str, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, unit="cfg")


def _finished_campaign(store: MeasurementStore, device: DeviceInfo, name: str,
                       settings: dict, needed: set | None = None) -> int | None:
    """The latest finished campaign of that name and settings on this device (that
    recorded every configuration in ``needed``, when given)."""
    hits = [c for c in store.campaigns(device.identity.key)
            if c.name == name and c.is_finished and dict(c.settings) == settings]
    if needed is not None:
        hits = [c for c in hits if needed <= store.done_keys(c.id)]
    return hits[-1].id if hits else None


def _open(store_path: Path | str) -> MeasurementStore:
    path = Path(store_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return MeasurementStore.open(path)


def _failed_count(store: MeasurementStore, campaign_id: int) -> int:
    everything = store.measurements(campaign=campaign_id, status=None)
    return sum(1 for m in everything if m.time_s is None)


def quick_campaign(store_path: Path | str, *, device: str | int | None = None,
                   kernels: Sequence[str] = (), name: str = "quick",
                   reuse: bool = True, progress: bool = True) -> LiveRun:
    """The quick calibration campaign (``workbench calibrate --quick``) on a device.

    ``kernels`` restricts it to part of the catalog (the empty kernel always runs
    first: it measures the launch overhead the size search needs).
    """
    info = find_device(device)
    settings = CampaignSettings.quick(tuple(kernels))
    began = time.perf_counter()
    with _open(store_path) as store:
        done = _finished_campaign(store, info, name, settings.to_dict()) if reuse else None
        if done is None:
            _, queue = open_device(info)
            campaign = Campaign(store, info, queue, settings, name=name)
            bar = _progress_bar(campaign.planned_count(), f"quick calibration ({name})",
                                progress)

            def on_progress(event):
                if bar is not None:
                    bar.total = max(bar.total, event.done)
                    bar.n = event.done
                    bar.refresh()

            try:
                campaign.run(on_progress)
            finally:
                if bar is not None:
                    bar.close()
            done = campaign.campaign_id
            reused = False
        else:
            reused = True
        ms = store.measurements(campaign=done)
        failed = _failed_count(store, done)
        path = store.path
    return LiveRun(info, path, done, ms, reused, time.perf_counter() - began, failed)


def measure_configurations(store_path: Path | str, configs: Sequence[tuple], *,
                           name: str, device: str | int | None = None,
                           protocol: TimingProtocol = TimingProtocol(runs=8,
                                                                     discard_first=2),
                           reuse: bool = True, progress: bool = True) -> LiveRun:
    """Time an explicit list of ``(spec, request, params, extra)`` configurations.

    For sets whose sizes the question fixes (variant families, block shapes); the
    campaign is named ``name`` and resumes or is reused like :func:`quick_campaign`.
    """
    from workbench.measure import ConfigKey
    from workbench.measure.campaign import run_configurations

    info = find_device(device)
    settings = {"runs": protocol.runs, "discard_first": protocol.discard_first,
                "explicit_configurations": True}
    began = time.perf_counter()
    configs = list(configs)
    needed = {ConfigKey.make(spec.name, req.variant, req.dtype.value, params,
                             req.group_size, info.identity)
              for spec, req, params, _ in configs}
    with _open(store_path) as store:
        done = _finished_campaign(store, info, name, settings, needed) if reuse else None
        reused = done is not None
        if done is None:
            _, queue = open_device(info)
            bar = _progress_bar(len(configs), name, progress)

            def on_progress(event):
                if bar is not None:
                    bar.n = event.done
                    bar.refresh()

            try:
                run_configurations(store, info, queue, configs, name=name,
                                   protocol=protocol, on_progress=on_progress)
            finally:
                if bar is not None:
                    bar.close()
            done = _finished_campaign(store, info, name, settings, needed)
        ms = store.measurements(campaign=done)
        failed = _failed_count(store, done)
        path = store.path
    return LiveRun(info, path, done, ms, reused, time.perf_counter() - began, failed)


def show_dashboard():
    """The interactive dashboard (``workbench.dashboard()``), where this version has it.

    Returns the widget, or ``None`` with a note when the UI panels are not installed.
    """
    try:
        import workbench.ui  # noqa: F401 - the panels; optional
    except ImportError as err:
        print(f"the dashboard needs workbench.ui ({err}); "
              "install the package with its 'ui' extra")
        return None
    import workbench
    return workbench.dashboard()
