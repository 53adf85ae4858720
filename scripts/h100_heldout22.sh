#!/usr/bin/env bash
# The twenty-second held-out kernel set (issue #34 item 7) on the device, in one command
# (carrying .whl):   bash scripts/h100_heldout22.sh OUTDIR [SECONDS]
# What it does: scripts/h100_heldout_set.sh.
exec bash "$(dirname "$0")/h100_heldout_set.sh" heldout22 "$@"
