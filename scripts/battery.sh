#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sets up (scripts/setup.sh) and runs the acceptance battery on the simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec "${BUILD_DIR:-build}/tools/chainsim" battery "$@"
