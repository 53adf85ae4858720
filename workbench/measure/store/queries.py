"""Reading: measurements (as records or a data frame), devices and campaigns.

Reads take no lock that a writer waits for (the file is in WAL mode), so a notebook
can query a store while a campaign is recording into it.
"""

from __future__ import annotations

import json
import sqlite3
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from workbench.errors import StoreError
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.store.connection import StoreConnection
from workbench.measure.store.schema import RANKING_COSTS_SINCE
from workbench.measure.store.records import (
    Campaign,
    ConfigKey,
    Measurement,
    RankingCost,
    Status,
    as_int,
    unpack_times,
)

if TYPE_CHECKING:  # pandas is heavy; only to_dataframe needs it
    import pandas as pd

__all__ = ["StoreReader"]


class StoreReader(StoreConnection):
    """The read half of :class:`~workbench.measure.store.MeasurementStore`."""

    # --------------------------------------------------------------- campaigns
    def campaign(self, campaign_id: int) -> Campaign:
        with self._errors("read campaign"):
            return self._campaign_from_row(self._campaign_row(campaign_id))

    def campaigns(self, device_key: str | None = None) -> list[Campaign]:
        """All campaigns, oldest first, optionally of one device."""
        sql = ("SELECT c.*, d.platform, d.device, d.driver, d.vendor FROM campaigns c "
               "JOIN devices d ON d.id = c.device_id")
        args: tuple[Any, ...] = ()
        if device_key is not None:
            sql += " WHERE d.key = ?"
            args = (device_key,)
        with self._errors("list campaigns"):
            rows = self._connection.execute(sql + " ORDER BY c.id", args).fetchall()
        return [self._campaign_from_row(r) for r in rows]

    def _campaign_from_row(self, row: sqlite3.Row) -> Campaign:
        return Campaign(id=int(row["id"]), name=row["name"],
                        device=self._device_from_row(row),
                        settings=MappingProxyType(json.loads(row["settings"])),
                        host=row["host"], started=row["started"], finished=row["finished"])

    def ranking_costs(self) -> dict[Campaign, RankingCost]:
        """Every recorded ranking cost, by its campaign, oldest first; none in a store
        older than schema version 2 (read as it is, without the table)."""
        if self.schema_version < RANKING_COSTS_SINCE:
            return {}
        with self._errors("read ranking costs"):
            rows = self._connection.execute(
                "SELECT * FROM ranking_costs ORDER BY campaign_id").fetchall()
        campaigns = {c.id: c for c in self.campaigns()}
        return {campaigns[int(r["campaign_id"])]: RankingCost(
            strategy=r["strategy"], points=int(r["points"]), wall_s=r["wall_s"],
            cpu_s=r["cpu_s"], jobs=int(r["jobs"]), cpu_count=int(r["cpu_count"]),
            host=r["host"], timestamp=r["timestamp"], campaign=int(r["campaign_id"]))
            for r in rows}

    def devices(self) -> list[DeviceIdentity]:
        """Every device that has a campaign or a measurement, in order of first use."""
        with self._errors("list devices"):
            rows = self._connection.execute(
                "SELECT platform, device, driver, vendor FROM devices ORDER BY id").fetchall()
        return [self._device_from_row(r) for r in rows]

    def done_keys(self, campaign_id: int) -> set[ConfigKey]:
        """Configurations already recorded in a campaign, whatever their status.

        Failed ones count as done: a configuration that did not build will not
        build on a resume either, and its log is already stored.
        """
        with self._errors("read campaign progress"):
            self._campaign_row(campaign_id)
            rows = self._connection.execute(
                "SELECT config_key FROM measurements WHERE campaign_id = ?",
                (campaign_id,)).fetchall()
        return {ConfigKey.from_canonical(r[0]) for r in rows}

    # ------------------------------------------------------------ measurements
    def _select(self, device_key: str | None, kernel: str | None,
                status: Status | str | None, campaign: int | str | None) -> list[sqlite3.Row]:
        clauses: list[str] = []
        args: list[Any] = []
        if device_key is not None:
            clauses.append("d.key = ?")
            args.append(device_key)
        if kernel is not None:
            clauses.append("m.kernel = ?")
            args.append(kernel)
        if status is not None:
            clauses.append("m.status = ?")
            args.append(Status.parse(status).value)
        if isinstance(campaign, str):
            clauses.append("c.name = ?")
            args.append(campaign)
        elif campaign is not None:
            clauses.append("m.campaign_id = ?")
            args.append(as_int(campaign, "campaign id"))
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._errors("read measurements"):
            return self._connection.execute(
                "SELECT m.*, d.platform, d.device, d.driver, d.vendor, "
                "c.name AS campaign_name FROM measurements m "
                "JOIN devices d ON d.id = m.device_id "
                f"LEFT JOIN campaigns c ON c.id = m.campaign_id{where} ORDER BY m.id",
                args).fetchall()

    @staticmethod
    def _measurement_from_row(row: sqlite3.Row) -> Measurement:
        try:
            return Measurement(
                key=ConfigKey.from_canonical(row["config_key"]),
                status=Status.parse(row["status"]),
                raw_times_s=unpack_times(row["raw_times"]),
                discard_first=int(row["discard_first"]),
                time_s=row["time_s"],
                log=row["log"],
                device=StoreConnection._device_from_row(row),
                library_versions=json.loads(row["library_versions"]),
                host=row["host"],
                timestamp=row["timestamp"],
                campaign=row["campaign_id"],
                extra=json.loads(row["extra"]),
            )
        except (ValueError, TypeError) as exc:
            raise StoreError(f"malformed stored measurement (row {row['id']}): "
                             f"{exc}") from None

    def measurements(self, device_key: str | None = None, kernel: str | None = None,
                     status: Status | str | None = Status.OK,
                     campaign: int | str | None = None) -> list[Measurement]:
        """Stored measurements in recording order.

        By default only successful ones (what a model fits); ``status=None`` gives
        every row. ``campaign`` is an id, or a name (all campaigns of that name).
        """
        return [self._measurement_from_row(r)
                for r in self._select(device_key, kernel, status, campaign)]

    def to_dataframe(self, device_key: str | None = None, kernel: str | None = None,
                     status: Status | str | None = Status.OK,
                     campaign: int | str | None = None) -> pd.DataFrame:
        """The same rows as :meth:`measurements`, one per measurement, for analysis.

        Each parameter gets its own ``param_<name>`` column (nullable integers,
        missing where a kernel lacks that parameter); ``group_size`` reads
        ``"16x16"`` and ``status`` holds the enum's value.
        """
        import pandas as pd

        rows = self._select(device_key, kernel, status, campaign)
        records: list[dict[str, Any]] = []
        param_names: set[str] = set()
        for row in rows:
            m = self._measurement_from_row(row)
            params = m.key.params_dict
            param_names.update(params)
            records.append({
                "id": int(row["id"]),
                "kernel": m.key.kernel, "variant": m.key.variant, "dtype": m.key.dtype,
                "group_size": m.key.group_size_text,
                **{f"param_{n}": v for n, v in params.items()},
                "time_s": m.time_s, "status": m.status.value,
                "n_runs": len(m.raw_times_s), "discard_first": m.discard_first,
                "raw_times_s": m.raw_times_s,
                "device": m.device.device, "platform": m.device.platform,
                "driver": m.device.driver, "vendor": m.device.vendor,
                "device_key": m.device.key, "host": m.host, "timestamp": m.timestamp,
                "campaign": m.campaign, "campaign_name": row["campaign_name"],
                "log": m.log, "library_versions": dict(m.library_versions),
                "extra": dict(m.extra),
            })
        param_columns = [f"param_{n}" for n in sorted(param_names)]
        columns = ["id", "kernel", "variant", "dtype", "group_size", *param_columns,
                   "time_s", "status", "n_runs", "discard_first", "raw_times_s", "device",
                   "platform", "driver", "vendor", "device_key", "host", "timestamp",
                   "campaign", "campaign_name", "log", "library_versions", "extra"]
        frame = pd.DataFrame.from_records(records, columns=columns)
        for col in param_columns:
            frame[col] = frame[col].astype("Int64")
        for col in ("id", "n_runs", "discard_first"):
            frame[col] = frame[col].astype("int64")
        frame["time_s"] = frame["time_s"].astype("float64")
        frame["campaign"] = frame["campaign"].astype("Int64")
        return frame
