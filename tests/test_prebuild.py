"""Building a campaign's kernels ahead (``calibrate --jobs``): the plan of builds, and
a campaign whose kernels another process built."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from workbench.cli.main import main
from workbench.kernels import get_kernel
from workbench.measure import Campaign, CampaignSettings, MeasurementStore
from workbench.measure.store import Status

ROOT = Path(__file__).resolve().parents[1]


def test_builds_ahead_follow_the_campaign_and_skip_finished_kernels(queue, tmp_path):
    from workbench.measure import find_device, open_device

    device = find_device(None)
    _, queue = open_device(device)   # with profiling, as a campaign needs
    settings = CampaignSettings.quick(("vector_scale_add",))
    with MeasurementStore.open(tmp_path / "s.sqlite") as store:
        campaign = Campaign(store, device, queue, settings, name="q")
        plan = campaign.builds_ahead()
        spec = get_kernel("vector_scale_add")
        # the overhead kernel first, then every variant, in the campaign's order
        assert [s.name for s, _ in plan] == ["empty"] + ["vector_scale_add"] * len(
            spec.variants)
        assert [r.variant for s, r in plan[1:]] == list(spec.variants)
        # stopped once the overhead kernel is measured; the resumed campaign builds
        # only what it has still to measure
        campaign.run(should_stop=lambda: any(m.key.kernel == "vector_scale_add" for m in
                                             store.measurements(status=None))
                     or len(store.measurements(status=None)) >= 2)
        assert {m.key.kernel for m in store.measurements(status=None)} == {"empty"}
        again = Campaign(store, device, queue, settings, name="q")
        assert again.campaign_id == campaign.campaign_id
        assert again.builds_ahead() == plan[1:]


def test_calibrate_with_jobs_measures_what_it_would_without(queue, tmp_path):
    # in a process of its own: the pool's resource tracker then ends with it
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "calibrate", "--quick", "--runs", "3",
         "--kernels", "vector_scale_add", "--no-progress", "--jobs", "2",
         "--store", str(tmp_path / "a.sqlite")],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "8 measured, 0 already stored, 0 failed" in done.stdout
    assert "built ahead on other cores" in done.stdout
    with MeasurementStore.open(tmp_path / "a.sqlite", readonly=True) as store:
        rows = store.measurements(status=None)
    assert len(rows) == 8 and all(m.status is Status.OK for m in rows)


def test_jobs_is_refused_where_it_does_not_apply(tmp_path, capsys):
    assert main(["calibrate", "--jobs", "0", "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "--jobs must be at least 1" in capsys.readouterr().err
    assert main(["calibrate", "--jobs", "2", "--scheduler", "local-gpus",
                 "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "with --scheduler the CPU workers build" in capsys.readouterr().err
