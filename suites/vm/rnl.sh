#!/bin/bash
# SPDX-License-Identifier: MIT
#
# rnl.sh: the RDMA netlink readers (rdma/rnl, rdma/rstat, rdma/rqp) and the
# device facts (rdma/dev) on a real rxe device. Runs as root where rdma_rxe loads, which
# on a host without RDMA means inside the rxe VM:
#
#   vm/run -- suites/vm/rnl.sh
#
# Sets up one veth pair and one rxe link in the caller's namespace, runs
# build/tests/test_rnl (resource counters), build/tests/test_rdev (device facts
# against ibv_devinfo) and build/tests/test_rnlstat (port counters across an
# ibv_rc_pingpong, QP states against `rdma`) as subtests against that link
# (nothing else may use it),
# and removes both again: the rxe link first, then the veth. TAP 13 on stdout;
# exit 0 pass, 1 fail, 4 skip.

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../tap/tap.sh
. "$ROOT/tap/tap.sh" # tap_embed: test_rnl's stream as a KTAP subtest
TEST=${TEST_RNL:-$ROOT/build/tests/test_rnl}
TEST_DEV=${TEST_RDEV:-$ROOT/build/tests/test_rdev}
TEST_STAT=${TEST_RNLSTAT:-$ROOT/build/tests/test_rnlstat}
PLAN=5
VA=rdcrnl0          # carries the address and the rxe link
VB=rdcrnl1          # its peer, only there so that the port comes up
RXE=rdcrnlrx
ADDR=10.213.7.1     # exists only on this veth

log() { echo "rnl.sh: $*" >&2; }
diag() { echo "# $*"; }

teardown() {
	local ok=0

	if [ -e "/sys/class/infiniband/$RXE" ]; then
		rdma link delete "$RXE" || ok=1
	fi
	if ip link show "$VA" >/dev/null 2>&1; then
		ip link delete "$VA" || ok=1
	fi
	return $ok
}

# Polls a command for up to $1 seconds (tenths). Each poll forks, and a fork
# costs ~15 ms under TCG, so poll slowly.
wait_for() {
	local n=$(($1 * 5))

	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}

port_active() {
	rdma link show "$RXE/1" 2>/dev/null | grep -q 'state ACTIVE'
}

# The kernel adds the RoCE GIDs of the netdev's addresses asynchronously.
roce4_gid() {
	local hex

	hex=$(printf '%02x%02x:%02x%02x' $(echo "$ADDR" | tr . ' '))
	grep -qs "0000:0000:0000:0000:0000:ffff:$hex" \
		/sys/class/infiniband/"$RXE"/ports/1/gids/*
}

setup() {
	modprobe rdma_rxe || { log "modprobe rdma_rxe failed"; return 1; }
	modprobe veth || { log "modprobe veth failed"; return 1; }
	teardown # the leftovers of an interrupted run, by our exact names only
	ip link add "$VA" type veth peer name "$VB" &&
		ip addr add "$ADDR/24" dev "$VA" &&
		ip link set "$VA" up &&
		ip link set "$VB" up &&
		rdma link add "$RXE" type rxe netdev "$VA" || return 1
	wait_for 10 port_active || { log "$RXE/1 not ACTIVE"; return 1; }
	wait_for 10 roce4_gid || { log "$RXE: no RoCE GID for $ADDR"; return 1; }
}

# Runs a test program as subtest N: its TAP indented, then its result line.
sub() {
	local n=$1 name=$2 rc

	shift 2
	"$@" | tap_embed "" "$name"
	rc=${PIPESTATUS[0]}
	if [ "$rc" = 0 ]; then
		echo "ok $n $name"
		pass=$((pass + 1))
	else
		echo "not ok $n $name # exit $rc"
		fail=1
	fi
}

echo "TAP version 13"
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP not root"
	exit 4
fi
if ! modprobe -n rdma_rxe 2>/dev/null; then
	echo "1..0 # SKIP no rdma_rxe module for $(uname -r)"
	exit 4
fi
for t in "$TEST" "$TEST_DEV" "$TEST_STAT"; do
	if [ ! -x "$t" ]; then
		echo "Bail out! $t missing: make $t"
		exit 1
	fi
done
echo "1..$PLAN"
trap 'teardown' EXIT
fail=0
pass=0
skip=0

diag "kernel=$(uname -r) dev=$RXE netdev=$VA addr=$ADDR"
t0=$EPOCHREALTIME
if setup; then
	diag "setup_s=$(awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $t0 }")"
	echo "ok 1 setup: veth $VA/$VB, rxe $RXE, port ACTIVE, RoCE GID for $ADDR"
	pass=$((pass + 1))
	# A skip here is a defect: the device was made for it.
	sub 2 test_rnl env RNL_DEV=$RXE "$TEST"
	sub 3 test_rdev env RNL_DEV=$RXE RNL_IPV4=$ADDR RNL_NETDEV=$VA "$TEST_DEV"
	sub 4 test_rnlstat env RNL_DEV=$RXE "$TEST_STAT"
else
	echo "not ok 1 setup"
	echo "ok 2 test_rnl # SKIP setup failed"
	echo "ok 3 test_rdev # SKIP setup failed"
	echo "ok 4 test_rnlstat # SKIP setup failed"
	skip=3
	fail=1
fi

trap - EXIT
if teardown && [ ! -e "/sys/class/infiniband/$RXE" ] &&
	! ip link show "$VA" >/dev/null 2>&1; then
	echo "ok $PLAN teardown: rxe link, then veth"
	pass=$((pass + 1))
else
	echo "not ok $PLAN teardown: rxe link, then veth"
	fail=1
fi
echo "# Totals: pass:$pass fail:$((PLAN - pass - skip)) xfail:0 xpass:0 skip:$skip error:0"
[ $fail = 0 ]
