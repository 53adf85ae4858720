"""Writing: starting, resuming and finishing campaigns, and recording measurements.

Each public method here is one IMMEDIATE transaction (``StoreConnection._write``):
when it returns the change is committed, and a kill before that leaves no trace of
it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from workbench.errors import StoreError
from workbench.measure import provenance
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.store.connection import StoreConnection
from workbench.measure.store.records import (
    Measurement,
    RankingCost,
    canonical_json,
    pack_times,
)
from workbench.measure.store.schema import RANKING_COSTS_SINCE

__all__ = ["StoreWriter"]

_MEASUREMENT_COLUMNS = (
    "campaign_id, config_key, kernel, variant, dtype, params, group_size, device_id, "
    "status, raw_times, discard_first, time_s, log, library_versions, host, timestamp, "
    "extra")


class StoreWriter(StoreConnection):
    """The write half of :class:`~workbench.measure.store.MeasurementStore`."""

    @staticmethod
    def _device_id(conn: sqlite3.Connection, device: DeviceIdentity) -> int:
        conn.execute(
            "INSERT INTO devices (key, platform, device, driver, vendor) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET vendor = excluded.vendor "
            "WHERE devices.vendor = '' AND excluded.vendor != ''",
            (device.key, device.platform, device.device, device.driver, device.vendor))
        return int(conn.execute("SELECT id FROM devices WHERE key = ?",
                                (device.key,)).fetchone()[0])

    # --------------------------------------------------------------- campaigns
    def start_campaign(self, name: str, device: DeviceIdentity,
                       settings: Mapping[str, Any] | None = None) -> int:
        """Start a campaign, or resume the unfinished one of that name on that device.

        Resuming is what makes a killed campaign restartable: the same id comes back
        and :meth:`done_keys` lists what is already recorded. Resuming with different
        settings is refused, because the rows would then mix two protocols.
        """
        if not isinstance(name, str) or not name.strip():
            raise StoreError(f"campaign name must be a non-empty string, not {name!r}")
        settings_json = canonical_json(dict(settings or {}), "campaign settings")
        with self._write("start campaign") as conn:
            device_id = self._device_id(conn, device)
            row = conn.execute(
                "SELECT id, settings FROM campaigns "
                "WHERE name = ? AND device_id = ? AND finished IS NULL",
                (name, device_id)).fetchone()
            if row is not None:
                if json.loads(row["settings"]) != json.loads(settings_json):
                    raise StoreError(
                        f"campaign {name!r} on {device} is unfinished with different "
                        f"settings ({row['settings']} vs {settings_json}); finish it or "
                        "choose another name")
                return int(row["id"])
            cur = conn.execute(
                "INSERT INTO campaigns (name, device_id, settings, host, started) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, device_id, settings_json, provenance.host_name(),
                 provenance.utc_now_iso()))
            return int(cur.lastrowid)  # type: ignore[arg-type]

    def finish_campaign(self, campaign_id: int) -> None:
        """Mark a campaign complete; a later campaign of that name starts afresh."""
        with self._write("finish campaign") as conn:
            self._campaign_row(campaign_id)
            conn.execute("UPDATE campaigns SET finished = ? WHERE id = ? AND finished IS NULL",
                         (provenance.utc_now_iso(), campaign_id))

    # ------------------------------------------------------------ measurements
    def record(self, measurement: Measurement, *, replace: bool = False) -> int:
        """Commit one measurement in its own transaction and return its row id.

        When this returns, the row is on disk: a kill afterwards cannot lose it, a
        kill before leaves no trace of it. Recording a configuration twice in one
        campaign is refused unless ``replace`` is true.
        """
        if not isinstance(measurement, Measurement):
            raise StoreError(f"can only record a Measurement, not {type(measurement)!r}")
        m = measurement
        key = m.key
        with self._write("record measurement") as conn:
            device_id = self._device_id(conn, m.device)
            if m.campaign is not None:
                row = self._campaign_row(m.campaign)
                if int(row["device_id"]) != device_id:
                    raise StoreError(
                        f"campaign {m.campaign} runs on "
                        f"{self._device_from_row(row).key!r}, not on {m.device.key!r}")
            verb = "INSERT OR REPLACE" if replace else "INSERT"
            try:
                cur = conn.execute(
                    f"{verb} INTO measurements ({_MEASUREMENT_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (m.campaign, key.canonical, key.kernel, key.variant, key.dtype,
                     canonical_json(key.params_dict, "parameters"),
                     canonical_json(list(key.group_size), "group size"), device_id,
                     m.status.value, pack_times(m.raw_times_s), m.discard_first, m.time_s,
                     m.log, json.dumps(dict(m.library_versions), ensure_ascii=False),
                     m.host, m.timestamp, canonical_json(dict(m.extra), "extra")))
            except sqlite3.IntegrityError as exc:
                if "UNIQUE" not in str(exc):
                    raise
                raise StoreError(f"{key} is already recorded in campaign "
                                 f"{m.campaign}") from None
            return int(cur.lastrowid)  # type: ignore[arg-type]

    # ------------------------------------------------------------ ranking costs
    def record_ranking_cost(self, campaign_id: int, cost: RankingCost) -> None:
        """Commit what choosing a campaign's points cost (one per campaign: a
        resumed campaign keeps the cost paid when it began, so a second record of
        the same campaign is ignored)."""
        if not isinstance(cost, RankingCost):
            raise StoreError(f"can only record a RankingCost, not {type(cost)!r}")
        if self.schema_version < RANKING_COSTS_SINCE:   # a read-only older store
            raise StoreError(f"measurement store {self.path} has schema version "
                             f"{self.schema_version}: open it for writing to upgrade it")
        with self._write("record ranking cost") as conn:
            self._campaign_row(campaign_id)
            conn.execute(
                "INSERT OR IGNORE INTO ranking_costs (campaign_id, strategy, points, "
                "wall_s, cpu_s, jobs, cpu_count, host, timestamp) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (campaign_id, cost.strategy, cost.points, cost.wall_s, cost.cpu_s,
                 cost.jobs, cost.cpu_count, cost.host, cost.timestamp))
