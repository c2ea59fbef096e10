#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The host's set-up, read from the tree: tests/deps installs what rdmacap builds and
# runs with and nothing of the guest's (vm/fetch-userland unpacks that under
# build/vm); no script of the tree stops, disables, masks or blocks a service of the
# host; the README names every package of both lists. tests/hoststate checks the
# host itself, before and after, at the end of `make check`.
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

cd "$ROOT" || exit 1
tap_init
tap_plan 4

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

# Calls that change a host service's state, in any tracked file but this one and the
# README's prose. The guest's own init (vm/) has no service manager to call.
pat='systemctl +(stop|disable|mask|kill|start|enable|restart)|deb-systemd-helper|update-rc\.d|invoke-rc\.d|(^|[^a-z])service +[a-z]|sshd_not_to_be_run|>+ *"?/usr/sbin/policy-rc\.d'
hits=$(git ls-files -- Makefile tests vm suites bench .ci 2>/dev/null | grep -v -x tests/deps.t |
	xargs -r grep -n -E "$pat" 2>/dev/null | grep -v -E '^[^:]+:[0-9]+:[[:space:]]*#')
[ -z "$hits" ] || printf '%s\n' "$hits" | sed 's/^/# /'
tap_result "$([ -z "$hits" ] && echo pass || echo fail)" \
	"nothing under Makefile, tests/, vm/, suites/, bench/ or .ci/ stops, disables or blocks a host service"

missing=
for p in $host $guest; do
	grep -q -E "^\|.*(^|[ |,])$p([ |,]|$)" README.md || missing="$missing $p"
done
[ -z "$missing" ] || echo "# not in README.md's tables:$missing"
tap_result "$([ -z "$missing" ] && echo pass || echo fail)" \
	"README.md's dependency tables name every package of both lists"
tap_finished
