"""``workbench store-unpack``: a writable copy of a store shipped compressed."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "store-unpack",
        help="decompress a shipped store (X.sqlite.xz) into a writable X.sqlite")
    p.add_argument("store", help="the compressed store (X.sqlite.xz, or X.sqlite "
                                 "when only X.sqlite.xz exists)")
    p.add_argument("-o", "--output", type=Path, default=None,
                   help="where to write it (default: X.sqlite in the working folder); "
                        "an existing file is not overwritten")
    p.set_defaults(func=cmd_store_unpack)


def cmd_store_unpack(args) -> int:
    from workbench.measure.store import MeasurementStore, unpack

    name = Path(args.store).name.removesuffix(".xz")
    output = unpack(args.store, args.output or Path(name))
    with MeasurementStore.open(output, create=False, readonly=True) as store:
        campaigns = len(store.campaigns())
    print(f"{output}: a writable store of {campaigns} campaigns")
    return 0
