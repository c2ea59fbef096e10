#!/bin/bash
# SPDX-License-Identifier: MIT
#
# ipv6.sh: RoCE v2 over IPv6 on real Soft-RoCE, inside the rxe VM (sid kernel:
# rxe in namespaces), IPv6 only, driven through build/rdmacap as a user runs it:
#
#   vm/run --share $PWD -- suites/vm/ipv6.sh
#
#   1-7  run --topology pair --family 6 (fd7a:222::/64, nodad) with rc, uc
#        and ud, each over oob-tls and rdmacm, and tcp, IPV6_CLIENTS clients
#        each: 100%, every payload verified, the topology's server address
#        IPv6, RDMA counters back at the baseline (tcp: none to compare, but
#        tcp_inuse_peak counts the server's IPv6 sockets, one per client)
#   8-9  run --topology star:2 --family 6, rc over oob-tls and rdmacm: the
#        same checks, the clients in two namespaces on the server's bridge
#   10-14 --topology host on an rxe link whose veth has only an IPv6 address
#        (nodad), --server-addr that address: rc and ud over oob-tls and
#        rdmacm, tcp: 100%, verified, the device named, counters back
#   15   the same pair run over IPv4 (no --family): rc still at 100%
#   16   the RDMA counters after the suite equal those before it
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
#
#   IPV6_CLIENTS  clients of each run (20)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

RDC_TIMEOUT=600
N=${IPV6_CLIENTS:-20}
NIC=rdc6n$$
NIC=${NIC:0:12}
DEV=rdc6rxe
ADDR=fd78::1

cleanup() {
	rdma link del "$DEV" 2>/dev/null
	ip link del "${NIC}a" 2>/dev/null
	rm -rf "$W"
}

# a veth with only an IPv6 address and an rxe link on it, as a RoCE v2 NIC has
make_nic() {
	local hex

	modprobe -a rdma_rxe ib_uverbs rdma_ucm veth || return 1
	ip link add "${NIC}a" type veth peer name "${NIC}b" || return 1
	ip addr add "$ADDR/64" dev "${NIC}a" nodad || return 1
	ip link set "${NIC}a" up && ip link set "${NIC}b" up || return 1
	rdma link add "$DEV" type rxe netdev "${NIC}a" || return 1
	hex=fd78:0000:0000:0000:0000:0000:0000:0001
	for _ in $(seq 100); do
		rdma link show "$DEV/1" 2>/dev/null | grep -q 'state ACTIVE' &&
			grep -qs "$hex" /sys/class/infiniband/$DEV/ports/1/gids/* && return 0
		sleep 0.1
	done
	return 1
}

# check DESC [rdma|tcp]: 100% and verified (rdc_clean_why), the server's
# address IPv6; rdma: the counters back at the baseline; tcp: the server
# namespace's TCP sockets at the peak counted, one per client at least
check() {
	local why

	why=$(rdc_clean_why)
	[ "$(rdc_kv connected)" = "$N" ] || why+=" connected=$(rdc_kv connected)"
	grep -qE "# topology=.* server=[0-9a-f]*:[0-9a-f:]*( |\$)" "$OUT" || why+=" server address not IPv6"
	if [ "${2-}" = rdma ]; then
		grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
	fi
	if [ "${2-}" = tcp ] && ! [ "$(rdc_kv tcp_inuse_peak)" -ge "$N" ] 2>/dev/null; then
		why+=" tcp_inuse_peak=$(rdc_kv tcp_inuse_peak) (< $N: IPv6 sockets not counted)"
	fi
	if [ -z "$why" ]; then
		tap_ok "$1: $N/$N, payloads verified"
	else
		tap_fail "$1" "$why; $(grep -m1 -hE 'why|cause|Bail|error' "$OUT" "${OUT%.tap}.err")"
	fi
}

rdc_rxe_suite ipv6 "" rdma
trap cleanup EXIT
tap_plan 16
BASE=$(rdc_res)

for t in "rc --cm oob-tls" "rc --cm rdmacm" "uc --cm oob-tls" "uc --cm rdmacm" \
	"ud --cm oob-tls" "ud --cm rdmacm"; do
	name=${t// /}
	# shellcheck disable=SC2086 # the transport and its CM are two words
	rdc_capture "$W/pair-$name" run --topology pair --family 6 --transport $t --clients "$N"
	check "pair IPv6 --transport $t" rdma
done
rdc_capture "$W/pair-tcp" run --topology pair --family 6 --transport tcp --clients "$N"
check "pair IPv6 --transport tcp, tcp_inuse_peak=$(rdc_kv tcp_inuse_peak)" tcp

for t in "rc --cm oob-tls" "rc --cm rdmacm"; do
	name=${t// /}
	# shellcheck disable=SC2086
	rdc_capture "$W/star-$name" run --topology star:2 --family 6 --transport $t --clients "$N"
	check "star:2 IPv6 --transport $t" rdma
done

if make_nic; then
	for t in "rc --cm oob-tls" "rc --cm rdmacm" "ud --cm oob-tls" "ud --cm rdmacm"; do
		name=${t// /}
		# shellcheck disable=SC2086
		rdc_capture "$W/host-$name" run --topology host --device "$DEV" --server-addr "$ADDR" \
			--transport $t --clients "$N"
		grep -q "device=$DEV" "$OUT" || echo "# $DEV not named in $OUT"
		check "host $DEV at $ADDR --transport $t" rdma
	done
	rdc_capture "$W/host-tcp" run --topology host --server-addr "$ADDR" --transport tcp --clients "$N"
	check "host at $ADDR --transport tcp"
else
	for t in "rc oob-tls" "rc rdmacm" "ud oob-tls" "ud rdmacm" "tcp"; do
		tap_skip "host $t over IPv6" "could not make the IPv6-only rxe link ($NIC, $DEV)"
	done
fi

rdc_capture "$W/pair-v4" run --topology pair --transport rc --clients "$N"
why=$(rdc_clean_why)
grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
if [ -z "$why" ]; then tap_ok "pair IPv4 --transport rc: $N/$N, verified, counters back"; else tap_fail "pair IPv4 --transport rc" "$why"; fi

cleanup
W=$(mktemp -d /tmp/ipv6.XXXXXX)
rdc_res_back "$BASE"
tap_totals
exit "$(tap_exit_code)"
