#!/bin/bash
# SPDX-License-Identifier: MIT
#
# nvmf.sh: --transport nvmf, the kernel's NVMe over RDMA target (nvmet-rdma,
# made by rdmacap through configfs) and initiator (nvme-rdma, one controller
# per client through /dev/nvme-fabrics), inside the VM on a device the suite
# makes as a driver would (a veth in the root namespace, rxe or siw on it):
#
#   1   run --clients 20: 100%, every round trip's data written and read back
#       verified, one controller each; nothing left after it: no controller,
#       nvmet subsystem or port, null_blk disk; RDMA counters at the baseline
#   2   --nvme-io-queues 1 and 4: the QPs a controller costs, an admin queue
#       and the I/O queues on each side; nvme-rdma makes at most one I/O queue
#       per online CPU, so 4 is min(4, CPUs) here
#   3   the options that do not apply exit 2 before anything is made, naming
#       why: --cm, --qp-share, --op, --topology pair
#   4   the host as found after 1-3: modules, configfs, controllers, nvmet,
#       null_blk, RDMA counters (but CQs: ib_core's shared CQ pool, which
#       nvmet-rdma draws from, stays with the device)
#   5   a run SIGKILLed with its controllers up: `rdmacap down` removes its
#       controllers, subsystem, port and disk, and leaves another user's
#       nvmet subsystem alone (and says so); the modules the killed run
#       loaded stay loaded
#
#   vm/run --share $PWD -- suites/vm/nvmf.sh
#
# NVMF_CLIENTS (default 20) sets test 1's clients; NVMF_LINK (rxe) the link
# type: suites/vm-lts/nvmf-siw.sh runs it over siw (iWARP) on the LTS kernel.
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/nic.sh
. "$(dirname "$0")/../lib/nic.sh"
# shellcheck source=../lib/kserv.sh
. "$(dirname "$0")/../lib/kserv.sh"

NIC=nvnic$$
NIC=${NIC:0:12}
LINK=${NVMF_LINK:-rxe}
DEV=nv${LINK}0
ADDR=10.78.0.1
N=${NVMF_CLIENTS:-20}
CFS=/sys/kernel/config
OTHER=nqn.2014-08.org.example:not-rdmacap

cleanup() {
	rmdir "$CFS/nvmet/subsystems/$OTHER" 2>/dev/null
	rdc_nic_down "$NIC" "$DEV"
	rm -rf "$W"
}

# everything of an nvmf run, and the modules it may load
nvmf_state() {
	rdc_ks_left
	for m in nvmet nvmet_rdma nvme_rdma nvme_fabrics null_blk; do
		[ -d /sys/module/$m ] && echo "module $m"
	done
	mount | grep -q " $CFS " && echo "configfs mounted"
	rdma link show
}

RC=0 why='' OUT=''
run_nvmf() {
	rdc_capture "$W/$1" run --topology host --device "$DEV" --server-addr "$ADDR" \
		--transport nvmf "${@:2}"
	why=$(rdc_clean_why)
}

rdc_rxe_suite nvmf "" rdma
trap cleanup EXIT
for m in nvmet nvmet_rdma nvme_rdma null_blk; do
	[ -d "/sys/module/$m" ] || modprobe -n "$m" 2>/dev/null ||
		{ tap_skip_all "kernel module $m is not in $(uname -r)"; exit 4; }
done
declare -A mod=([rxe]=rdma_rxe [siw]=siw)
if ! modprobe -a "${mod[$LINK]}" veth || ! rdc_nic_up "$NIC" "$LINK" "$DEV" "$ADDR"; then
	tap_skip_all "could not make the stand-in NIC ($NIC, $DEV): ${RDC_WHY:-modprobe ${mod[$LINK]} veth}"
	exit 4
fi
tap_plan 5
BEFORE=$(nvmf_state)
BASE=$(rdc_ks_res)

# 1: one point, every client its controller, its data verified
run_nvmf "n$N" --clients "$N" --msgs 5 --size 4096
grep -q "nvmf_connect\|nvme_" "$OUT" && why+=" a failed step: $(grep -m1 -E 'call=(nvmf|nvme)' "$OUT")"
[ "$(nvmf_state)" = "$BEFORE" ] || why+=" left: $(diff <(echo "$BEFORE") <(nvmf_state) | grep '^>' | tr '\n' ' ')"
[ "$(rdc_ks_res)" = "$BASE" ] || why+=" counters not back: $(rdc_ks_res | tr '\n' ' ')"
if [ -z "$why" ]; then
	tap_ok "$N controllers: 100%, $(rdc_kv verified) round trips of 4 KiB verified, nothing left"
else
	tap_fail "$N controllers" "$why; $(grep -m1 -E 'cause|why|Bail' "$OUT")"
	sed 's/^/# /' "$W/n$N.err" | tail -20
fi

# 2: the QPs of one controller, with 1 and 4 I/O queues (both sides: x2)
qps=()
sides=()
for q in 1 4; do
	"$RDMACAP" run --topology host --device "$DEV" --server-addr "$ADDR" --transport nvmf \
		--clients 1 --msgs 2 --nvme-io-queues "$q" --think-ms 3000 >"$W/q$q.tap" 2>&1 &
	pid=$!
	peak=0
	for _ in $(seq 200); do
		n=$(rdc_ks_qps "$DEV")
		(( n > peak )) && { peak=$n; sides[q]=$(rdc_ks_sides "$DEV" 4420); }
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	wait "$pid"
	qps+=("$((peak - $(rdc_res | sed -n "s/^$DEV .*qp=\([0-9]*\).*/\1/p")))")
done
# each queue is a QP on the host and one on the target; the admin queue too
cpus=$(nproc)
want=$((2 * (1 + (cpus < 4 ? cpus : 4))))
half=$((want / 2))
if [ "${qps[0]}" = 4 ] && [ "${qps[1]}" = "$want" ] && [ "${sides[1]}" = "2 2" ] &&
	[ "${sides[4]}" = "$half $half" ]; then
	tap_ok "QPs of one controller: ${qps[0]} with 1 I/O queue, ${qps[1]} with 4 on $cpus CPUs; target and host: ${sides[1]}, ${sides[4]}"
else
	tap_fail "QPs of one controller" "1 queue: ${qps[0]} (target host ${sides[1]}), 4 queues: ${qps[1]} (${sides[4]}); want 4 (2 2) and $want ($half $half)"
fi

# 3: what does not apply is refused before anything exists
why=
for a in "--cm rdmacm:rdma_cm" "--qp-share 2:own" "--op write:RDMA operations" \
	"--topology pair:initial network namespace"; do
	read -r -a opt <<<"${a%%:*}"
	where=(--topology host --device "$DEV")
	[ "${opt[0]}" = --topology ] && where=()
	rdc_rdmacap run --transport nvmf --clients 2 "${opt[@]}" "${where[@]}" >"$W/bad.tap" 2>&1
	rc=$?
	[ "$rc" = 2 ] && grep -q "${a#*:}" "$W/bad.tap" || why+=" ${opt[*]}: exit $rc $(head -c 200 "$W/bad.tap")"
done
[ "$(nvmf_state)" = "$BEFORE" ] || why+=" something was made"
if [ -z "$why" ]; then
	tap_ok "--cm, --qp-share, --op, --topology pair: exit 2 naming why, nothing made"
else
	tap_fail "options that do not apply" "$why"
fi

# 4: tests 1-3 left the host as they found it
sleep 1
AFTER=$(nvmf_state)
if [ "$AFTER" = "$BEFORE" ] && [ "$(rdc_ks_res)" = "$BASE" ]; then
	tap_ok "the host as found: modules, configfs, controllers, nvmet, null_blk, counters"
else
	diff <(echo "$BEFORE") <(echo "$AFTER") | sed 's/^/# /'
	tap_fail "the host as found" "counters before $BASE after $(rdc_ks_res)"
fi

# 5: SIGKILL with the controllers up, then down; another user's subsystem stays
modprobe nvmet && { mountpoint -q "$CFS" || mount -t configfs none "$CFS"; } &&
	mkdir "$CFS/nvmet/subsystems/$OTHER"
"$RDMACAP" run --topology host --device "$DEV" --server-addr "$ADDR" --transport nvmf \
	--clients 3 --msgs 2 --think-ms 60000 >"$W/kill.tap" 2>&1 &
pid=$!
up=0
for _ in $(seq 600); do
	[ "$(rdc_names /sys/class/nvme | wc -l)" -ge 3 ] && { up=1; break; }
	sleep 0.1
done
# rdmacap and its agents at once: none of them gets to clean up
# shellcheck disable=SC2046 # a list of PIDs
kill -KILL "$pid" $(rdc_agents) 2>/dev/null
wait "$pid" 2>/dev/null
rdc_rdmacap down >"$W/down.tap" 2>&1
rc=$?
why=
[ "$up" = 1 ] || why+=" the controllers never came up"
[ "$rc" = 0 ] || why+=" down exit $rc"
[ -d "$CFS/nvmet/subsystems/$OTHER" ] || why+=" another user's subsystem removed"
grep -q "nvmet_others.*1 " "$W/down.tap" || why+=" down did not say it left one alone"
[ -n "$(rdc_names /sys/class/nvme)" ] && why+=" controllers left"
[ -n "$(rdc_names "$CFS/nvmet/subsystems" 'nqn.2014-08.org.rdmacap:rdc*')" ] && why+=" subsystem left"
grep -qE "removed=[1-9]" "$W/down.tap" || why+=" down removed nothing (the run cleaned up after all?)"
[ -n "$(rdc_names "$CFS/nvmet/ports")" ] && why+=" port left"
[ -n "$(rdc_names "$CFS/nullb" 'rdc*')" ] && why+=" disk left"
rmdir "$CFS/nvmet/subsystems/$OTHER" 2>/dev/null
if [ -z "$why" ]; then
	tap_ok "SIGKILL with 3 controllers up: down removes them and the target, leaves another's subsystem"
else
	tap_fail "SIGKILL, then down" "$why"
	sed 's/^/# /' "$W/down.tap"
fi
tap_totals
exit "$(tap_exit_code)"
