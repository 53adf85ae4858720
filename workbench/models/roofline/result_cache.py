"""The roofline's per-point results kept on disk, so that a second session on the same
space predicts nothing again.

Each point of a space is its own work for the roofline (its waves' footprints and
reuse distances at its numbers: seconds a point on a Lift rewrite space), and the
result depends only on the point's kernel, the device description and the options.
So each prediction is stored in the workbench's count cache
(:mod:`workbench.models.count_cache`, ``results`` table) under

* the space's fingerprint (the source file of its factory or template, its name,
  knobs, problem sizes and dtype, and the library versions), and the point's label
  and group;
* a digest of the model's parameters: its device description and options;
* :func:`~workbench.models.count_cache.device_code_digest`: the workbench's models,
  properties, kernels and device descriptions, so that results made by other code
  are not read back.

Only predictions are stored; a point whose prediction failed is tried again by the
next session.  ``WORKBENCH_COUNT_CACHE=off`` turns it off with the count cache.  Points
of a kernel that is not a space's (a catalog kernel at a size) are not cached.

What the key does not see, as for the count cache's factory spaces: a template or
factory that reads another file of the user's (a helper module) or a value that is
neither a knob nor a problem size.  The catalog's templates live in the workbench's
own modules, which the code digest covers.  Entries are pickles: a cache file is
trusted as the user's own (``WORKBENCH_COUNT_CACHE`` should not name a file others
write).
"""

from __future__ import annotations

import hashlib
import json
import pickle
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.kernels.candidate import Candidate
from workbench.models import count_cache

FAMILY = "roofline"


@dataclass(frozen=True)
class Outcome:
    """What predicting one point gave: the prediction, or the error that stopped it."""

    prediction: object | None
    error: str | None = None


def model_digest(device_model_json: dict, options: dict) -> str:
    """The model's parameters, hashed: its device description and options."""
    text = json.dumps({"device_model": device_model_json, "options": options},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _space_of(candidates: Sequence[Candidate]):
    """The one space all candidates are points of, with its fingerprint, or None."""
    spaces = {id(c.space): c.space for c in candidates}
    if len(spaces) != 1 or any(c.point is None for c in candidates):
        return None
    space = next(iter(spaces.values()))
    if space is None:
        return None
    fingerprint = count_cache.space_fingerprint(space)
    return None if fingerprint is None else (space, fingerprint)


def cached_outcomes(candidates: Sequence[Candidate], model: str,
                    compute: Callable[[list[Candidate]], list[Outcome]]) -> list[Outcome]:
    """Each candidate's outcome: read from the cache where stored for this model and
    code, the rest from ``compute`` (called once, on those alone), their predictions
    stored."""
    candidates = list(candidates)
    found = _space_of(candidates) if candidates and count_cache.cache_path() else None
    if found is None:
        return compute(candidates)
    _, fingerprint = found
    code = count_cache.device_code_digest()
    keys = [count_cache.point_key(c.point, c.group_size) for c in candidates]
    stored = count_cache.load_results(fingerprint, FAMILY, model, code)
    out: list[Outcome | None] = []
    for key in keys:
        try:
            out.append(pickle.loads(zlib.decompress(stored[key])) if key in stored
                       else None)
        except Exception:  # noqa: BLE001 - an unreadable entry is worked out again
            out.append(None)
    missing = [i for i, o in enumerate(out) if not isinstance(o, Outcome)]
    if missing:
        computed = compute([candidates[i] for i in missing])
        for i, outcome in zip(missing, computed):
            out[i] = outcome
        # an error is worked out again by the next session (it may come from the
        # environment, a build say, and errors are few and cheap): predictions alone
        count_cache.save_results(fingerprint, FAMILY, model, code, {
            keys[i]: zlib.compress(pickle.dumps(out[i])) for i in missing
            if out[i].prediction is not None})
    return out


__all__ = ["Outcome", "cached_outcomes", "model_digest"]
