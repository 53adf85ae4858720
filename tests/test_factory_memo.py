"""The factory's ``lp.make_kernel``, memoized while a point builds for counting: the same
kernel as loopy's, a copy the factory cannot change the memo through, and counts equal
to an unmemoized build's."""

import warnings

import loopy as lp
import numpy as np
import pytest

from workbench.models import factory_memo
from workbench.models.factory_memo import memoized_make_kernel
from workbench.properties import extract_properties


def _factory(n, shape_n=None, **kwargs):
    shape_n = n if shape_n is None else shape_n
    return lp.make_kernel(
        f"{{[i, j]: 0 <= i, j < {n}}}",
        "out[i, j] = 2*a[i, j]",
        [lp.GlobalArg("a, out", np.float32, shape=(shape_n, shape_n))],
        name="twice", **kwargs)


def _probe(n, bx, by):
    knl = _factory(n, lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
    knl = lp.split_iname(knl, "j", bx, outer_tag="g.0", inner_tag="l.0")
    return lp.add_prefetch(knl, "a", ["i_inner", "j_inner"], fetch_bounding_box=True,
                           default_tag="l.auto")


def test_same_kernel_as_loopy_in_a_fresh_copy():
    plain = _factory(64, lang_version=(2018, 2))
    factory_memo._MEMO.clear()
    with memoized_make_kernel():
        first = _factory(64, lang_version=(2018, 2))
        first.default_entrypoint.instructions.clear()      # a factory that mutates
        first.default_entrypoint.temporary_variables["t"] = None
        second = _factory(64, lang_version=(2018, 2))
        other = _factory(32, lang_version=(2018, 2))
        # 64 and 64.0 compare equal: a shape of floats is another kernel
        floats = _factory(64, shape_n=64.0, lang_version=(2018, 2))
    assert lp.make_kernel is factory_memo._ORIGINAL
    assert len(factory_memo._MEMO) == 3     # 64 (made once), 32, 64.0
    assert second == plain and second is not plain
    assert len(second.default_entrypoint.instructions) == 1
    assert "t" not in second.default_entrypoint.temporary_variables
    assert other == _factory(32, lang_version=(2018, 2)) and other != plain
    assert floats == _factory(64, shape_n=64.0, lang_version=(2018, 2))
    assert floats.default_entrypoint.arg_dict["a"].shape == (64.0, 64.0)


def test_language_version_read_from_the_factory_module():
    from loopy.version import LOOPY_USE_LANGUAGE_VERSION_2018_2  # noqa: F401 - read below

    namespace = {"lp": lp, "np": np,
                 "LOOPY_USE_LANGUAGE_VERSION_2018_2": LOOPY_USE_LANGUAGE_VERSION_2018_2}
    exec("def factory():\n"
         "    return lp.make_kernel('{[i]: 0 <= i < 8}', 'out[i] = a[i] // 2',\n"
         "        [lp.GlobalArg('a, out', np.int32, shape=(8,))], name='half')",
         namespace)
    plain = namespace["factory"]()
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # loopy warns where it finds none
        with memoized_make_kernel():
            memo = namespace["factory"]()
    assert memo == plain
    assert plain.default_entrypoint.options == memo.default_entrypoint.options


def test_without_a_language_version_loopy_decides():
    with pytest.warns(lp.diagnostic.LoopyWarning):
        with memoized_make_kernel():
            memo = _factory(16)
    assert memo == _factory(16, lang_version=lp.version.FALLBACK_LANGUAGE_VERSION)


def test_restored_after_an_error():
    with pytest.raises(RuntimeError), memoized_make_kernel():
        assert lp.make_kernel is not factory_memo._ORIGINAL
        raise RuntimeError("factory failed")
    assert lp.make_kernel is factory_memo._ORIGINAL


def test_counts_equal_an_unmemoized_build():
    for bx, by in ((16, 4), (32, 4), (16, 8)):
        plain = extract_properties(_probe(256, bx, by))
        with memoized_make_kernel():
            memo = extract_properties(_probe(256, bx, by))
        assert {f.name: str(e) for f, e in memo.counts.items()} == {
            f.name: str(e) for f, e in plain.counts.items()}
        assert sorted(map(str, memo.accesses)) == sorted(map(str, plain.accesses))


def test_a_space_memo_goes_with_its_space():
    import gc

    class Space:      # stands for a TuningSpace: what count_candidate passes
        pass

    space = Space()
    with memoized_make_kernel(space):
        first = _factory(48, lang_version=(2018, 2))
        again = _factory(48, lang_version=(2018, 2))
    assert first == again and first is not again
    assert len(factory_memo._SPACE_MEMOS[space]) == 1
    del space
    gc.collect()
    assert len(factory_memo._SPACE_MEMOS) == 0


def test_a_space_without_weak_references_uses_the_process_memo():
    from types import SimpleNamespace

    with memoized_make_kernel(SimpleNamespace()):
        memo = _factory(40, lang_version=(2018, 2))
    assert memo == _factory(40, lang_version=(2018, 2))
