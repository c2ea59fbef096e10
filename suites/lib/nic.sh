# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# nic.sh: the stand-in for an RNIC in the VM's root namespace, made by a suite as
# a driver would have made it, for `rdmacap run --topology host` (which creates
# nothing). Source after common.sh.
#
#   rdc_nic_up NIC TYPE DEV ADDR [DEV2 ADDR2]
#       a veth pair NICa/NICb, ADDR/24 on NICa (ADDR2/24 on NICb), both up, then
#       `rdma link add DEV type TYPE netdev NICa` (TYPE rxe or siw; DEV2 on NICb);
#       returns 0 once every link's port 1 is ACTIVE and, on rxe, the IPv4-mapped
#       GID of its address is in the table (rdmacap looks the device up by it);
#       1 after 10 s, with the reason in RDC_WHY. The modules are the caller's.
#   rdc_nic_cross NIC ADDR ADDR2
#       traffic between the pair's two addresses crosses the veth instead of lo:
#       accept_local=1, rp_filter=0, the local rule moved from pref 0 to 1000 and
#       one rule per destination (docs/vm.md, the siw suites). Without it rdma_cm
#       bound to ADDR2 cannot resolve ADDR (rping -I: ADDR_ERROR -110 on siw)
#   rdc_nic_down NIC DEV [DEV2]
#       rdma links first, then the veth (never both at once: netns/teardown.c),
#       then what rdc_nic_cross changed

# rdc__link_ready TYPE DEV ADDR: port 1 ACTIVE, and on rxe ADDR's GID present
rdc__link_ready() {
	local g

	rdma link show "$2/1" 2>/dev/null | grep -q 'state ACTIVE' || return 1
	[ "$1" = rxe ] || return 0
	# shellcheck disable=SC2086 # the four octets as four words
	g=$(printf '%02x%02x:%02x%02x' ${3//./ })
	grep -qs "0000:0000:0000:0000:0000:ffff:$g" /sys/class/infiniband/"$2"/ports/1/gids/*
}

# shellcheck disable=SC2034 # RDC_WHY is the caller's
rdc_nic_up() {
	local nic=$1 type=$2 dev=$3 addr=$4 dev2=${5-} addr2=${6-} i

	RDC_WHY="ip link add ${nic}a type veth peer name ${nic}b: failed"
	ip link add "${nic}a" type veth peer name "${nic}b" || return 1
	RDC_WHY="addresses on $nic: failed"
	ip addr add "$addr/24" dev "${nic}a" || return 1
	[ -z "$addr2" ] || ip addr add "$addr2/24" dev "${nic}b" || return 1
	ip link set "${nic}a" up && ip link set "${nic}b" up || return 1
	RDC_WHY="rdma link add $dev type $type netdev ${nic}a: failed"
	rdma link add "$dev" type "$type" netdev "${nic}a" || return 1
	if [ -n "$dev2" ]; then
		RDC_WHY="rdma link add $dev2 type $type netdev ${nic}b: failed"
		rdma link add "$dev2" type "$type" netdev "${nic}b" || return 1
	fi
	# an rxe port comes up and fills its GID table within ~1 s under TCG
	for ((i = 0; i < 100; i++)); do
		if rdc__link_ready "$type" "$dev" "$addr" &&
			{ [ -z "$dev2" ] || rdc__link_ready "$type" "$dev2" "$addr2"; }; then
			RDC_WHY=
			return 0
		fi
		sleep 0.1
	done
	RDC_WHY="$type link $dev${dev2:+ or $dev2} not ACTIVE with its address after 10 s"
	return 1
}

rdc_nic_down() {
	local d

	for d in "${@:2}"; do
		rdma link del "$d" 2>/dev/null
	done
	ip link del "${1}a" 2>/dev/null
	rdc__nic_uncross
	return 0
}

# the two per-destination rules: prefs 100 and 101, before the local rule moved
# to 1000 (after it they never match), and their tables
RDC_NIC_PREF=100
RDC_NIC_TABLE=7800
RDC_NIC_LOCAL_PREF=1000
RDC_NIC_SYSCTLS=

rdc_nic_cross() {
	local nic=$1 k

	for k in all.accept_local all.rp_filter; do
		RDC_NIC_SYSCTLS+=" net.ipv4.conf.$k=$(sysctl -n "net.ipv4.conf.$k")"
	done
	sysctl -qw net.ipv4.conf.all.accept_local=1 net.ipv4.conf.all.rp_filter=0 \
		"net.ipv4.conf.${nic}a.accept_local=1" "net.ipv4.conf.${nic}b.accept_local=1" \
		"net.ipv4.conf.${nic}a.rp_filter=0" "net.ipv4.conf.${nic}b.rp_filter=0" || return 1
	ip rule add pref "$RDC_NIC_LOCAL_PREF" lookup local || return 1
	ip rule del pref 0 lookup local || return 1
	ip rule add pref "$RDC_NIC_PREF" to "$2" iif lo lookup "$RDC_NIC_TABLE" &&
		ip route add "$2" dev "${nic}b" src "$3" table "$RDC_NIC_TABLE" &&
		ip rule add pref $((RDC_NIC_PREF + 1)) to "$3" iif lo lookup $((RDC_NIC_TABLE + 1)) &&
		ip route add "$3" dev "${nic}a" src "$2" table $((RDC_NIC_TABLE + 1))
}

rdc__nic_uncross() {
	[ -n "$RDC_NIC_SYSCTLS" ] || return 0
	ip rule del pref "$RDC_NIC_PREF" 2>/dev/null
	ip rule del pref $((RDC_NIC_PREF + 1)) 2>/dev/null
	ip rule add pref 0 lookup local 2>/dev/null
	ip rule del pref "$RDC_NIC_LOCAL_PREF" lookup local 2>/dev/null
	# shellcheck disable=SC2086 # one word per sysctl
	sysctl -qw $RDC_NIC_SYSCTLS
	RDC_NIC_SYSCTLS=
}
