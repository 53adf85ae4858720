"""Tables and figures built from fitted models and datasets."""

from workbench.reports.tables import Table1, predictions, table1, table2, to_markdown

__all__ = ["Table1", "predictions", "table1", "table2", "to_markdown"]
