"""Tables and figures built from fitted models and datasets."""

from workbench.reports.carry_over import CarryOver, carry_over, carry_over_table
from workbench.reports.cross_device import (
    CrossDeviceTable2,
    DeviceMeasurements,
    ModelChoice,
    cross_device_table2,
    load_device,
    load_folder,
)
from workbench.reports.fit_comparison import FitComparison, compare_fits
from workbench.reports.roofline_chart import roofline_figure
from workbench.reports.tables import (
    SizeCondition,
    Table1,
    compare_weights,
    filter_predictions,
    params_dict,
    parse_size_conditions,
    predictions,
    table1,
    table2,
    to_markdown,
    worst_predictions,
)

__all__ = ["CarryOver", "CrossDeviceTable2", "FitComparison", "compare_fits", "DeviceMeasurements", "ModelChoice",
           "carry_over", "carry_over_table", "cross_device_table2", "load_device",
           "load_folder", "SizeCondition", "Table1", "compare_weights", "filter_predictions", "params_dict",
           "parse_size_conditions", "predictions", "roofline_figure", "table1", "table2",
           "to_markdown",
           "worst_predictions"]
