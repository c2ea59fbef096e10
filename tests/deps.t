#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The host's set-up, read from the tree: tests/deps installs what rdmacap builds and
# runs with and nothing of the guest's (vm/fetch-userland unpacks that under
# build/vm); docs/deps.md names every package of both lists. What the set-up does
# to the host's services is checked on the host itself, before and after, by
# tests/hoststate at the end of `make check`.
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

cd "$ROOT" || exit 1
tap_init
tap_plan 3

host=$(tests/deps --list | sort)
guest=$(vm/fetch-userland --list | sort)

both=$(comm -12 <(echo "$host") <(echo "$guest"))
[ -z "$both" ] || tap_diag "on both lists: ${both//$'\n'/ }"
tap_result "$([ -z "$both" ] && echo pass || echo fail)" \
	"tests/deps --list names none of vm/fetch-userland --list ($(echo "$guest" | wc -l) packages)"

# the daemons' packages, named whatever list they might move to
daemons=$(echo "$host" | grep -x -E 'openssh-server|munge|slurmctld|slurmd|slurm-client|openmpi-bin|rdma-core|nvme-cli')
[ -z "$daemons" ] || tap_diag "on the host list: ${daemons//$'\n'/ }"
tap_result "$([ -z "$daemons" ] && echo pass || echo fail)" \
	"tests/deps --list installs no package of a daemon or launcher only the guest runs"

missing=
for p in $host $guest; do
	grep -q -E "^\|.*(^|[ |,])$p([ |,]|$)" docs/deps.md || missing="$missing $p"
done
[ -z "$missing" ] || echo "# not in docs/deps.md's tables:$missing"
tap_result "$([ -z "$missing" ] && echo pass || echo fail)" \
	"docs/deps.md's dependency tables name every package of both lists"
tap_finished
