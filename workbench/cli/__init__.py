"""Command-line interface (``workbench ...``); the only layer that prints or exits."""
