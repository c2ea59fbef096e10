#!/bin/bash
# SPDX-License-Identifier: MIT
#
# srp.sh: --transport srp, the kernel's SCSI RDMA Protocol target (ib_srpt,
# made by rdmacap through LIO's configfs) and initiator (ib_srp, one SCSI host
# per client through add_target, logged in over rdma_cm), inside the rxe VM
# on a device the suite makes as a driver would (a veth in the root
# namespace, rxe on it):
#
#   1   run --clients 20: 100%, every round trip's data written to the
#       client's own LBA range of its SCSI disk and read back verified;
#       nothing left after it: no SCSI host, LIO backstore or TPG, ib_srpt
#       listener, null_blk disk; RDMA counters at the baseline
#   2   the QPs and cm_ids of one client: a QP and a cm_id per ib_srp channel
#       (the host's ch_count) on each side, the target's told from the host's
#       by the rdma_cm port (source 5555 on the target)
#   3   the options that do not apply exit 2 before anything is made, naming
#       why: --cm, --qp-share, --op, --nvme-io-queues, --topology pair
#   4   SIGINT with the SCSI hosts up: the run removes them and the target
#   5   the host as found after 1-4: modules, configfs, SCSI hosts, LIO,
#       null_blk, RDMA counters (but CQs: ib_core's shared CQ pool, which
#       ib_srpt draws from, stays with the device)
#   6   a run SIGKILLed with its hosts up: `rdmacap down` removes its SCSI
#       hosts, TPG, listener, backstore and disk
#
#   vm/run --share $PWD -- suites/vm/srp.sh
#
# SRP_CLIENTS (default 20) sets test 1's clients.
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/nic.sh
. "$(dirname "$0")/../lib/nic.sh"
# shellcheck source=../lib/kserv.sh
. "$(dirname "$0")/../lib/kserv.sh"

NIC=srnic$$
NIC=${NIC:0:12}
DEV=srrxe0
ADDR=10.79.0.1
N=${SRP_CLIENTS:-20}
CFS=/sys/kernel/config
TGT=$CFS/target

cleanup() {
	rdc_nic_down "$NIC" "$DEV"
	rm -rf "$W"
}

# everything of an srp run, and the modules it may load
srp_state() {
	rdc_ks_left
	for m in target_core_mod target_core_iblock target_core_file target_core_pscsi target_core_user \
		ib_srpt ib_srp scsi_transport_srp sd_mod scsi_mod null_blk; do
		[ -d /sys/module/$m ] && echo "module $m"
	done
	mount | grep -q " $CFS " && echo "configfs mounted"
	rdma link show
}

# srp_hosts: the SCSI hosts of ib_srp now (they have a ch_count)
srp_hosts() {
	find /sys/class/scsi_host/ -mindepth 1 -maxdepth 1 2>/dev/null |
		while read -r h; do [ -e "$h/ch_count" ] && echo "$h"; done
}

RC=0 why='' OUT=''
run_srp() {
	rdc_capture "$W/$1" run --topology host --device "$DEV" --server-addr "$ADDR" \
		--transport srp "${@:2}"
	why=$(rdc_clean_why)
}

# srp_bg FILE ARGS: a run in the background, its PID in BG
srp_bg() {
	local f=$1
	shift
	"$RDMACAP" run --topology host --device "$DEV" --server-addr "$ADDR" --transport srp \
		"$@" >"$W/$f" 2>&1 &
	BG=$!
}

# srp_wait_hosts K: until K SCSI hosts of ib_srp are up (60 s at most)
srp_wait_hosts() {
	for _ in $(seq 600); do
		[ "$(srp_hosts | wc -l)" -ge "$1" ] && return 0
		kill -0 "$BG" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

rdc_rxe_suite srp "" rdma
trap cleanup EXIT
for m in target_core_mod target_core_iblock ib_srpt ib_srp null_blk sd_mod; do
	[ -d "/sys/module/$m" ] || modprobe -n "$m" 2>/dev/null ||
		{ tap_skip_all "kernel module $m is not in $(uname -r)"; exit 4; }
done
if ! modprobe -a rdma_rxe veth || ! rdc_nic_up "$NIC" rxe "$DEV" "$ADDR"; then
	tap_skip_all "could not make the stand-in NIC ($NIC, $DEV): ${RDC_WHY:-modprobe rdma_rxe veth}"
	exit 4
fi
tap_plan 6
BEFORE=$(srp_state)
BASE=$(rdc_ks_res)

# 1: one point, every client its SCSI host, its data verified
run_srp "n$N" --clients "$N" --msgs 5 --size 4096
grep -q "call=srp\|call=configfs\|call=open" "$OUT" &&
	why+=" a failed step: $(grep -m1 -E 'call=(srp|configfs|open)' "$OUT")"
[ "$(srp_state)" = "$BEFORE" ] || why+=" left: $(diff <(echo "$BEFORE") <(srp_state) | grep '^>' | tr '\n' ' ')"
[ "$(rdc_ks_res)" = "$BASE" ] || why+=" counters not back: $(rdc_ks_res | tr '\n' ' ')"
if [ -z "$why" ]; then
	tap_ok "$N SCSI hosts: 100%, $(rdc_kv verified) round trips of 4 KiB verified, nothing left"
else
	tap_fail "$N SCSI hosts" "$why; $(grep -m1 -E 'cause|why|Bail' "$OUT")"
	sed 's/^/# /' "$W/n$N.err" | tail -20
fi

# 2: the QPs and cm_ids of one client, on each side
srp_bg q1.tap --clients 1 --msgs 2 --think-ms 3000
peak=0 sides='' ch=''
for _ in $(seq 300); do
	n=$(rdc_ks_qps "$DEV")
	if (( n > peak )); then
		peak=$n
		sides=$(rdc_ks_sides "$DEV" 5555)
		h=$(srp_hosts | head -n 1)
		[ -n "$h" ] && ch=$(cat "$h/ch_count" 2>/dev/null)
	fi
	kill -0 "$BG" 2>/dev/null || break
	sleep 0.1
done
wait "$BG"
rc=$?
qps=$((peak - $(rdc_res | sed -n "s/^$DEV .*qp=\([0-9]*\).*/\1/p")))
if [ "$rc" = 0 ] && [ -n "$ch" ] && [ "$qps" = $((2 * ch)) ] && [ "$sides" = "$ch $ch" ]; then
	tap_ok "one client: $qps QPs, ib_srp's $ch channels on each side; cm_ids target host: $sides"
else
	tap_fail "QPs of one client" "exit $rc, $qps QPs, cm_ids target host '$sides', ch_count '$ch'; want 2 x ch_count and 'ch ch'"
fi

# 3: what does not apply is refused before anything exists
why=
for a in "--cm rdmacm:rdma_cm itself" "--qp-share 2:QPs of its own" "--op write:SCSI writes" \
	"--nvme-io-queues 2:--transport nvmf" "--topology pair:initial network namespace"; do
	read -r -a opt <<<"${a%%:*}"
	where=(--topology host --device "$DEV")
	[ "${opt[0]}" = --topology ] && where=()
	rdc_rdmacap run --transport srp --clients 2 "${opt[@]}" "${where[@]}" >"$W/bad.tap" 2>&1
	rc=$?
	[ "$rc" = 2 ] && grep -q -- "${a#*:}" "$W/bad.tap" || why+=" ${opt[*]}: exit $rc $(head -c 200 "$W/bad.tap")"
done
[ "$(srp_state)" = "$BEFORE" ] || why+=" something was made"
if [ -z "$why" ]; then
	tap_ok "--cm, --qp-share, --op, --nvme-io-queues, --topology pair: exit 2 naming why, nothing made"
else
	tap_fail "options that do not apply" "$why"
fi

# 4: SIGINT with the hosts up: the run takes all of it down itself
srp_bg int.tap --clients 3 --msgs 2 --think-ms 60000
up=0
srp_wait_hosts 3 && up=1
kill -INT "$BG" 2>/dev/null
for _ in $(seq 600); do
	kill -0 "$BG" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$BG" 2>/dev/null && kill -KILL "$BG"
wait "$BG" 2>/dev/null
why=
[ "$up" = 1 ] || why+=" the SCSI hosts never came up"
[ "$(srp_state)" = "$BEFORE" ] || why+=" left: $(diff <(echo "$BEFORE") <(srp_state) | grep '^>' | tr '\n' ' ')"
if [ -z "$why" ]; then
	tap_ok "SIGINT with 3 SCSI hosts up: the run removes them, the target and its disk"
else
	tap_fail "SIGINT with the hosts up" "$why"
	tail -n 5 "$W/int.tap" | sed 's/^/# /'
fi

# 5: tests 1-4 left the host as they found it
sleep 1
AFTER=$(srp_state)
if [ "$AFTER" = "$BEFORE" ] && [ "$(rdc_ks_res)" = "$BASE" ]; then
	tap_ok "the host as found: modules, configfs, SCSI hosts, LIO, null_blk, counters"
else
	diff <(echo "$BEFORE") <(echo "$AFTER") | sed 's/^/# /'
	tap_fail "the host as found" "counters before $BASE after $(rdc_ks_res)"
fi

# 6: SIGKILL with the hosts up, then down
srp_bg kill.tap --clients 3 --msgs 2 --think-ms 60000
up=0
srp_wait_hosts 3 && up=1
# rdmacap and its agents at once: none of them gets to clean up
# shellcheck disable=SC2046 # a list of PIDs
kill -KILL "$BG" $(rdc_agents) 2>/dev/null
wait "$BG" 2>/dev/null
rdc_rdmacap down >"$W/down.tap" 2>&1
rc=$?
why=
[ "$up" = 1 ] || why+=" the SCSI hosts never came up"
[ "$rc" = 0 ] || why+=" down exit $rc"
grep -qE "removed=[1-9]" "$W/down.tap" || why+=" down removed nothing (the run cleaned up after all?)"
[ -n "$(srp_hosts)" ] && why+=" SCSI hosts left"
[ -n "$(find "$TGT/srpt" -mindepth 2 -maxdepth 2 -name 'rdc*' 2>/dev/null)" ] && why+=" TPG left"
[ -n "$(rdc_names "$TGT/core" 'iblock_6[1-5]???')" ] && why+=" backstore left"
[ "$(cat "$TGT/srpt/discovery_auth/rdma_cm_port" 2>/dev/null || echo 0)" = 0 ] || why+=" listener left"
[ -n "$(rdc_names "$CFS/nullb" 'rdc*')" ] && why+=" disk left"
if [ -z "$why" ]; then
	tap_ok "SIGKILL with 3 SCSI hosts up: down removes them, the TPG, the listener, the backstore, the disk"
else
	tap_fail "SIGKILL, then down" "$why"
	sed 's/^/# /' "$W/down.tap"
fi
tap_totals
exit "$(tap_exit_code)"
