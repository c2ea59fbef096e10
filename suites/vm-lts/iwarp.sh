#!/bin/bash
# SPDX-License-Identifier: MIT
#
# iwarp.sh: rdmacap on iWARP (Soft-iWARP, siw) with --topology host, in the
# VM booted on the LTS kernel that has siw (vm/run --kernel
# build/vm/kernel/bookworm). siw lives in init_net only, so the suite makes
# its "NICs" in the VM's root namespace: a veth pair with a siw link on each
# end. rc over rdmacm is what iWARP offers; the rest is refused:
#
#   1   rdmacap env lists the device: limits, port 1, Ethernet, transport iWARP
#   2   rc --cm rdmacm with a CQ per connection (the default), SIW_CLIENTS
#       clients (default 1000) in one agent: 100%, every payload verified,
#       counters back (past 36 connections a context meets libsiw's invalid
#       mmap key 0x90000 unless the agent's plug CQ holds it: rdma/siw.h)
#   3   --cq shared, 200 clients: 100%, verified, counters back
#   4   --op read: 100%, verified
#   5   --op write (an RDMA WRITE, then a SEND saying what an immediate would
#       have: iWARP has no WRITE with immediate): 100%, verified
#   6   --op write --mr shared --srq: 100%, verified
#   7   --srq --cq shared: 100%, verified
#   8-12 --device named: --cm oob-tls, --transport ud, --transport uc, --op
#       atomic, --qp-share with --op send (no SEND with immediate) exit 2 at
#       once, naming the device and iWARP
#   13  the device found from --server-addr: oob-tls, ud, uc and atomic SKIP
#       (exit 4), naming the device and iWARP
#
#   vm/run --kernel build/vm/kernel/bookworm --share $PWD -- suites/vm-lts/iwarp.sh
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

NIC=rdciw$$
NIC=${NIC:0:12}
DEV=rdcsiwa
PEER=rdcsiwb
ADDR=10.78.0.1
PADDR=10.78.0.2

cleanup() {
	rdma link del "$DEV" 2>/dev/null
	rdma link del "$PEER" 2>/dev/null
	ip link del "${NIC}a" 2>/dev/null
	rm -rf "$W"
}

# two siw links on a veth pair, as an iWARP NIC's driver would have made them
make_nics() {
	modprobe -a siw ib_uverbs rdma_ucm veth || return 1
	ip link add "${NIC}a" type veth peer name "${NIC}b" || return 1
	ip addr add "$ADDR/24" dev "${NIC}a" || return 1
	ip addr add "$PADDR/24" dev "${NIC}b" || return 1
	ip link set "${NIC}a" up && ip link set "${NIC}b" up || return 1
	rdma link add "$DEV" type siw netdev "${NIC}a" || return 1
	rdma link add "$PEER" type siw netdev "${NIC}b" || return 1
	for _ in $(seq 100); do
		rdma link show "$DEV/1" 2>/dev/null | grep -q 'state ACTIVE' && return 0
		sleep 0.1
	done
	return 1
}

# ok_run NAME DESC ARGS...: a rc run over rdmacm on DEV, clean and verified
ok_run() {
	local name=$1 desc=$2

	shift 2
	rdc_capture "$W/$name" run --topology host --device "$DEV" --server-addr "$ADDR" \
		--transport rc --cm rdmacm "$@"
	why=$(rdc_clean_why)
	grep -q "RDMA resources back to baseline" "$OUT" || why+=" counters not back"
	if [ -z "$why" ]; then
		tap_ok "$desc"
	else
		tap_fail "$desc" "$why; $(grep -m1 -E 'cause|why|Bail' "$OUT" "$W/$name.err")"
	fi
}

# refused NAME WANT_RC ARGS...: 0 when the run exits WANT_RC within 10 s naming
# DEV and iWARP; got says what it did
got=''
refused() {
	local name=$1 want=$2 t0 t1

	shift 2
	t0=$EPOCHREALTIME
	rdc_rdmacap run --topology host --server-addr "$ADDR" --clients 2 "$@" \
		>"$W/$name.out" 2>&1
	RC=$?
	t1=$EPOCHREALTIME
	got="exit $RC: $(grep -m1 -iE 'iwarp|bail|rdmacap:' "$W/$name.out")"
	[ "$RC" = "$want" ] && grep -q "device $DEV: transport iWARP" "$W/$name.out" &&
		((${t1%.*} - ${t0%.*} < 10))
}

rdc_rxe_suite iwarp "" rdma
trap cleanup EXIT
make_nics || { tap_skip_all "could not make siw links ($NIC, $DEV, $PEER) on $(uname -r)"; exit 4; }
tap_plan 13
why=''

rdc_rdmacap env >"$W/env.tap" 2>&1
line=$(grep -m1 "dev=$DEV port=1 " "$W/env.tap")
if grep -q "dev=$DEV .*max_qp=[0-9]" "$W/env.tap" && [[ $line == *link_layer=Ethernet* ]] &&
	grep -q "dev=$DEV port=1 transport=iWARP" "$W/env.tap"; then
	tap_ok "env lists $DEV: limits, port 1, Ethernet, transport iWARP"
else
	tap_fail "env lists $DEV with transport iWARP" "$line"
fi

N=${SIW_CLIENTS:-1000}
RDC_TIMEOUT=900 ok_run rcN "rc over rdmacm, a CQ per connection on $DEV: $N/$N, verified, counters back" \
	--clients "$N" --msgs 5
RDC_TIMEOUT=900 ok_run shared "--cq shared on $DEV: 200/200, verified, counters back" \
	--cq shared --clients 200 --msgs 5
ok_run read "--op read on $DEV: 100%, verified" --op read --clients 50 --msgs 20
ok_run write "--op write on $DEV (WRITE, then SEND): 100%, verified" --op write --clients 50 --msgs 20
ok_run writesh "--op write --mr shared --srq on $DEV: 100%, verified" --op write --mr shared --srq \
	--clients 50 --msgs 20
ok_run srq "--srq --cq shared on $DEV: 100%, verified" --srq --cq shared --clients 50 --msgs 20

for c in "oob --transport rc --cm oob-tls" "ud --transport ud --cm rdmacm" \
	"uc --transport uc --cm rdmacm" "atomic --transport rc --cm rdmacm --op atomic" \
	"qpsend --transport rc --cm rdmacm --qp-share 2 --op send"; do
	read -r name args <<<"$c"
	# shellcheck disable=SC2086 # args are words
	if refused "$name" 2 --device "$DEV" $args; then
		tap_ok "--device $DEV $args: usage error, $got"
	else
		tap_fail "--device $DEV $args: usage error naming $DEV and iWARP" "$got"
	fi
done

bad=''
for c in "oob --transport rc --cm oob-tls" "ud --transport ud --cm rdmacm" \
	"uc --transport uc --cm rdmacm" "atomic --transport rc --cm rdmacm --op atomic"; do
	read -r name args <<<"$c"
	# shellcheck disable=SC2086 # args are words
	refused "skip-$name" 4 $args || bad+=" [$args: $got]"
	tap_diag "$args: $got"
done
if [ -z "$bad" ]; then
	tap_ok "device found from $ADDR: oob-tls, ud, uc and atomic SKIP naming $DEV and iWARP"
else
	tap_fail "device found from $ADDR: SKIP naming $DEV and iWARP" "$bad"
fi
tap_totals
exit "$(tap_exit_code)"
