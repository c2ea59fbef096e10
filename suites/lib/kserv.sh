# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# kserv.sh: what the suites of the kernel's RDMA services (nvmf.sh, srp.sh) read
# of a run on `--topology host`. Source after common.sh.
#
#   rdc_names DIR [PATTERN]    the entries of DIR (named PATTERN), a line each
#   rdc_ks_res                 rdc_res without the CQs (a service's CQ count moves
#                              with the kernel's own completion work)
#   rdc_ks_qps DEV             the QPs on DEV now
#   rdc_ks_left                what a kernel-service run may leave, a line each:
#                              NVMe controllers, nvmet subsystems and ports,
#                              rdmacap's null_blk disks, SCSI hosts, LIO iblock
#                              backstores, ib_srpt targets, rdmacap's TPGs and the
#                              rdma_cm listener (all present, not only rdmacap's:
#                              compare with what was there before)
#   rdc_ks_sides DEV PORT      the connected cm_ids (those with a QP) on DEV of the
#                              target (source PORT) and of the host (destination
#                              PORT): "T H". RDMA netlink names both sides' owner
#                              alike; the port tells them apart (`rdma -j` writes
#                              an address and its port as "src-addr": "A:PORT")

rdc_names() {
	find "$1" -mindepth 1 -maxdepth 1 -name "${2:-*}" -printf '%f\n' 2>/dev/null | sort
}

rdc_ks_left() {
	local cfs=/sys/kernel/config tgt=/sys/kernel/config/target

	rdc_names /sys/class/nvme | sed 's/^/ctrl /'
	rdc_names "$cfs/nvmet/subsystems" | sed 's/^/subsystem /'
	rdc_names "$cfs/nvmet/ports" | sed 's/^/port /'
	rdc_names "$cfs/nullb" 'rdc*' | sed 's/^/nullb /'
	rdc_names /sys/class/scsi_host | sed 's/^/scsi_host /'
	rdc_names "$tgt/core" 'iblock_*' | sed 's/^/backstore /'
	rdc_names "$tgt/srpt" | sed 's/^/srpt /'
	find "$tgt/srpt" -mindepth 2 -maxdepth 2 -type d -name 'rdc*' 2>/dev/null | sed 's/^/tpg /'
	[ -r "$tgt/srpt/discovery_auth/rdma_cm_port" ] &&
		echo "listener $(cat "$tgt/srpt/discovery_auth/rdma_cm_port")"
	return 0
}

rdc_ks_res() {
	rdc_res | sed 's/ cq=[0-9]*//'
}

rdc_ks_qps() {
	rdma -j resource show 2>/dev/null | jq -r --arg d "$1" '.[] | select(.ifname == $d) | .qp'
}

rdc_ks_sides() {
	rdma -j resource show cm_id dev "$1" 2>/dev/null |
		jq -r --arg p ":$2" '[.[] | select(.lqpn != null)] |
			"\([.[] | select(."src-addr" // "" | endswith($p))] | length) \([.[] | select(."dst-addr" // "" | endswith($p))] | length)"'
}
