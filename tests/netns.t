#!/bin/bash
# SPDX-License-Identifier: MIT
#
# netns/ against the real kernel: topologies up and down (pair, star:3, loop),
# TCP across them, namespaced sysctls, undo of a failed nn_up, nn_clean after a
# SIGKILL, the deep probe, rxe links where rdma_rxe exists. Needs root; the work is
# done by build/tests/test_netns_root (TAP 13 on stdout, exit 0/1/4).
#   NETNS_TEST_BIN=path  another build of it (e.g. build/san/tests/...)
#   NETNS_SPECS="pair star:16"  only these topologies (timings as diagnostics)
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
BIN=${NETNS_TEST_BIN:-$ROOT/build/tests/test_netns_root}

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP not root"
	exit 4
fi
if [ ! -x "$BIN" ]; then
	# Not a skip: a missing build must not pass for a clean run.
	echo "TAP version 13"
	echo "1..1"
	echo "not ok 1 $BIN is built (make build/tests/test_netns_root)"
	exit 1
fi
# shellcheck disable=SC2086 # NETNS_SPECS is a list of words
exec timeout -k 5 600 "$BIN" --root ${NETNS_SPECS:-}
