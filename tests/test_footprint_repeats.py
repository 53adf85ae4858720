"""A subscript several instructions read adds its accessed set to the footprint once."""

import loopy as lp
import numpy as np

import workbench.properties.footprint as footprint
from workbench.properties.accesses import kernel_accesses
from workbench.properties.counting import prepare
from workbench.properties.symbolic import evaluate_many

N = 64


def _sums(repeat: bool):
    """Four sums of a 2-point stencil; with ``repeat`` every sum reads the same two
    entries, else each its own pair."""
    lines = [f"y{k}[i] = x[i + {0 if repeat else k}] + x[i + {1 if repeat else k + 1}]"
             for k in range(4)]
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}", "\n".join(lines),
        [lp.GlobalArg("x", np.float32, shape=("n + 4",)),
         *(lp.GlobalArg(f"y{k}", np.float32, shape=("n",), is_output=True) for k in range(4)),
         lp.ValueArg("n", np.int32)],
        lang_version=(2018, 2))
    return prepare(lp.split_iname(knl, "i", 32, outer_tag="g.0", inner_tag="l.0"))


def test_a_repeated_subscript_is_mapped_once_and_the_footprint_is_unchanged(monkeypatch):
    mapped = []
    original = footprint.get_access_map

    def counting(domain, index, assumptions):
        mapped.append(index)
        return original(domain, index, assumptions)

    monkeypatch.setattr(footprint, "get_access_map", counting)
    repeated = footprint.global_footprints(kernel_accesses(_sums(True)), ["x"])["x"]
    assert len(mapped) == 2          # x[i] and x[i + 1], not eight
    mapped.clear()
    distinct = footprint.global_footprints(kernel_accesses(_sums(False)), ["x"])["x"]
    assert len(mapped) == 5          # x[i] to x[i + 4], each once
    values = evaluate_many({"repeated": repeated.used, "distinct": distinct.used,
                            "filled": repeated.filled}, {"n": N})
    assert (values["repeated"], values["distinct"], values["filled"]) == (N + 1, N + 4, N + 1)
