"""``workbench kernels`` and ``workbench properties``."""

from __future__ import annotations

import argparse

from workbench.cli.common import parse_params, print_json, print_table
from workbench.kernels import all_kernels, format_group_size, resolve_kernel
from workbench.properties import (
    Granularity,
    feature_label,
    kernel_properties,
    parse_feature,
)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("kernels", help="list the kernel catalog")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_kernels)

    p = sub.add_parser("properties", help="symbolic properties of a kernel, evaluated")
    p.add_argument("kernel", help="catalog kernel name (see 'workbench kernels')")
    p.add_argument("--variant")
    p.add_argument("--dtype", default=None, help="float32 or float64 (default: the kernel's own; float32 for catalog kernels)")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="size parameter, repeatable (n=1024) or comma-separated")
    p.add_argument("--group-size", help="work-group size, e.g. 256 or 16x16")
    p.add_argument("--granularity", choices=[g.value for g in Granularity],
                   default=Granularity.WORKITEM.value)
    p.add_argument("--subgroup-size", type=int, default=None)
    p.add_argument("--symbolic", action="store_true", help="also show each count's formula")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_properties)


def cmd_kernels(args) -> int:
    from workbench.kernels import KernelRole

    rows = []
    # the unseen kernels last: listed, but never part of a campaign's default sets
    for spec in (*all_kernels(), *all_kernels(KernelRole.UNSEEN)):
        rows.append({
            "kernel": spec.name, "role": spec.role.value,
            "variants": ",".join(spec.variants),
            "dtypes": ",".join(d.value for d in spec.dtypes),
            "parameters": ",".join(spec.parameters),
            "groups": f"{spec.default_group_size_set} "
                      f"({' '.join(format_group_size(g) for g in spec.group_sizes())})",
            "description": spec.description,
        })
    if args.format == "json":
        print_json(rows)
    else:
        print_table(rows, ["kernel", "role", "variants", "dtypes", "parameters", "groups"])
        print(ROLES_SAID)
    return 0


#: what a newcomer needs to read the table, printed under it
ROLES_SAID = (
    "role: measurement = calibration kernels, the ones a model is fitted on; test = the "
    "paper's test kernels, predicted to judge a fit (Table 1); unseen = kernels no fit "
    "has seen, reported apart.\n"
    "groups: the work-group sizes a campaign measures (a named set, then its sizes; "
    "16x12 = 16 along l.0, 12 along l.1).\n"
    "what a kernel computes: workbench kernels --format json (its description).")


def cmd_properties(args) -> int:
    spec = resolve_kernel(args.kernel)
    # The build's choices first: with a misspelt variant, the parameters it asks
    # for are not the mistake to report.
    request = spec.request(args.variant, args.dtype, args.group_size)
    params = spec.check_parameter_names(parse_params(args.param))
    props = kernel_properties(spec, variant=args.variant, dtype=args.dtype,
                              group_size=args.group_size, granularity=args.granularity,
                              subgroup_size=args.subgroup_size)
    values = props.evaluate_named(params)
    if args.format == "json":
        out = dict(values)
        if args.symbolic:
            out = {"values": out, "symbolic": {f.name: props.symbolic(f)
                                               for f in props.features}}
        print_json(out)
        return 0
    rows = [{"property": name, "meaning": feature_label(parse_feature(name)),
             "value": value} for name, value in values.items()]
    if args.symbolic:
        for row in rows:
            row["symbolic"] = props.symbolic(row["property"])
    print(f"{spec.name} variant={args.variant or spec.default_variant} dtype={request.dtype.value} "
          f"group={format_group_size(props.group_size)} granularity={args.granularity} "
          f"params={params}")
    print_table(rows)
    from workbench.properties.predicates import guarded_note

    note = guarded_note(spec, request)
    if note:
        print(f"note: {note}")
    return 0
