"""Tables and figures built from fitted models and datasets."""

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

__all__ = ["SizeCondition", "Table1", "compare_weights", "filter_predictions", "params_dict",
           "parse_size_conditions", "predictions", "table1", "table2", "to_markdown",
           "worst_predictions"]
