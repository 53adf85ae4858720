#!/usr/bin/env bash
# The twentieth held-out kernel set (issue #34 item 7) on the device, in one command
# (carrying .whl):   bash scripts/h100_heldout20.sh OUTDIR [SECONDS]
# What it does: scripts/h100_heldout_set.sh.
exec bash "$(dirname "$0")/h100_heldout_set.sh" heldout20 "$@"
