#!/usr/bin/env bash
# A real Slurm for tests/slurm: munged, slurmctld and 6 slurmd on loopback (scripts/slurm-up.sh).
# Fails when Slurm cannot start, so the Slurm tests fail rather than skip.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec bash scripts/slurm-up.sh
