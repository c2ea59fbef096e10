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

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
ROOT=$RDC_ROOT
TEST=${TEST_RNL:-$ROOT/build/tests/test_rnl}
TEST_DEV=${TEST_RDEV:-$ROOT/build/tests/test_rdev}
TEST_STAT=${TEST_RNLSTAT:-$ROOT/build/tests/test_rnlstat}
PLAN=5
VA=rdcrnl0          # carries the address and the rxe link
VB=rdcrnl1          # its peer, only there so that the port comes up
RXE=rdcrnlrx
ADDR=10.213.7.1     # exists only on this veth

log() { echo "rnl.sh: $*" >&2; }

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

port_active() {
	rdma link show "$RXE/1" 2>/dev/null | grep -q 'state ACTIVE'
}

# The kernel adds the RoCE GIDs of the netdev's addresses asynchronously.
roce4_gid() {
	local hex

	local -a o

	IFS=. read -ra o <<<"$ADDR"
	hex=$(printf '%02x%02x:%02x%02x' "${o[@]}")
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
	rdc_wait_for 10 port_active || { log "$RXE/1 not ACTIVE"; return 1; }
	rdc_wait_for 10 roce4_gid || { log "$RXE: no RoCE GID for $ADDR"; return 1; }
}

# sub NAME CMD...: a test program as a subtest: its TAP indented, then its result.
sub() {
	local name=$1 rc

	shift
	"$@" | tap_embed "" "$name"
	rc=${PIPESTATUS[0]}
	rdc_result "$rc" "$name"
}

tap_init
rdc_need rdc_have_root
rdc_need rdc_have_rxe
for t in "$TEST" "$TEST_DEV" "$TEST_STAT"; do
	if [ ! -x "$t" ]; then
		tap_bail "$t missing: make $t"
		exit 1
	fi
done
tap_plan "$PLAN"
trap 'teardown' EXIT

tap_diag "kernel=$(uname -r) dev=$RXE netdev=$VA addr=$ADDR"
t0=$EPOCHREALTIME
if setup; then
	tap_diag "setup_s=$(awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $t0 }")"
	tap_ok "setup: veth $VA/$VB, rxe $RXE, port ACTIVE, RoCE GID for $ADDR"
	# A skip here is a defect: the device was made for it.
	sub test_rnl env RNL_DEV=$RXE "$TEST"
	sub test_rdev env RNL_DEV=$RXE RNL_IPV4=$ADDR RNL_NETDEV=$VA "$TEST_DEV"
	sub test_rnlstat env RNL_DEV=$RXE "$TEST_STAT"
else
	tap_fail "setup"
	for t in test_rnl test_rdev test_rnlstat; do
		tap_skip "$t" "setup failed"
	done
fi

trap - EXIT
teardown && [ ! -e "/sys/class/infiniband/$RXE" ] && ! ip link show "$VA" >/dev/null 2>&1
rdc_result $? "teardown: rxe link, then veth"
tap_finished
