#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# The libfabric transports end to end on a host with no RDMA: fi-msg and
# fi-rdm over libfabric's tcp provider (tcp;ofi_rxm for rdm), real agents,
# every echo checked; and the options that do not apply to an endpoint
# refused before anything exists. The namespace topologies need root.

# shellcheck disable=SC2154 # bats' run sets output, stderr and status
load lib/common

setup() {
	rdc_require_rdmacap
	rdc_require_cmd fi_info
}

no_rdc_left() {
	! ip netns list | grep -q '^rdc' && ! ip -o link show | grep -qE '^[0-9]+: rdc'
}

@test "fi: verbs options exit 2 naming why, before anything is created" {
	run --separate-stderr "$RDMACAP" run --transport fi-msg --cm rdmacm
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--cm does not apply to --transport fi-msg"*"fi_connect"* ]]
	[ -z "$output" ]

	run --separate-stderr "$RDMACAP" run --transport fi-rdm --qp-share 4
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--qp-share does not apply to --transport fi-rdm"*"ofi_rxm"* ]]

	run --separate-stderr "$RDMACAP" run --transport fi-rdm --ah lru
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--ah does not apply"*"AV"* ]]

	run --separate-stderr "$RDMACAP" run --transport fi-msg --srq
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--srq does not apply to --transport fi-msg"* ]]

	run --separate-stderr "$RDMACAP" run --transport fi-msg --server-threads 2
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"one event loop"* ]]

	run --separate-stderr "$RDMACAP" run --transport tcp --fi-provider tcp
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--fi-provider is an option of --transport fi-msg|fi-rdm"* ]]

	run --separate-stderr "$RDMACAP" run --transport fi-msg --fi-provider 'tcp ofi_rxm'
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--fi-provider"* ]]
	[ -z "$output" ]
}

@test "fi: a provider fi_getinfo does not offer is a SKIP naming it and those it found" {
	rdc_run run --transport fi-msg --fi-provider nosuchprov --topology loop --clients 2
	[ "$status" -eq 4 ]
	[[ "$output" == *"SKIP"*"nosuchprov"*"tcp"* ]]
}

@test "fi-msg loop: 20 clients over tcp, 100% connected, every payload verified" {
	rdc_run run --transport fi-msg --fi-provider tcp --topology loop --clients 20 --msgs 10
	assert_success
	[ "$(rdc_out_word connected)" -eq 20 ]
	[ "$(rdc_out_word verified)" -eq 200 ]
	[ "$(rdc_out_word bad)" -eq 0 ]
}

@test "fi-msg pair: 200 clients over tcp reach 100%, shared CQ and busy polling too" {
	rdc_require_root
	rdc_run run --transport fi-msg --fi-provider tcp --topology pair --clients 200 --msgs 10
	assert_success
	[ "$(rdc_out_word connected)" -eq 200 ]
	[ "$(rdc_out_word verified)" -eq 2000 ]
	[ "$(rdc_out_word connect_pct)" = "100.00" ]
	[ "$(rdc_out_word srv_accepted)" -eq 200 ]
	rdc_run run --transport fi-msg --fi-provider tcp --topology pair --clients 50 --cq shared \
		--poll busy --size 4096
	assert_success
	[ "$(rdc_out_word verified)" -eq 500 ]
	no_rdc_left
}

@test "fi-rdm loop: a client over tcp;ofi_rxm, every payload verified" {
	rdc_run run --transport fi-rdm --fi-provider 'tcp;ofi_rxm' --topology loop --clients 1 --msgs 10
	assert_success
	[ "$(rdc_out_word connected)" -eq 1 ]
	[ "$(rdc_out_word verified)" -eq 10 ]
}

# Each client is an rdm endpoint of its own: ofi_rxm zeroes two 1,024-buffer
# pools of 16 KiB under each at its first connection (~36 MB and a fraction
# of a second here), so 200 take about a minute on two loaded cores.
@test "fi-rdm pair: 200 clients over tcp;ofi_rxm reach 100%, every payload verified" {
	rdc_require_root
	rdc_run run --transport fi-rdm --fi-provider 'tcp;ofi_rxm' --topology pair --clients 200 \
		--msgs 10 --timeout 300
	assert_success
	[ "$(rdc_out_word connected)" -eq 200 ]
	[ "$(rdc_out_word verified)" -eq 2000 ]
	[ "$(rdc_out_word bad)" -eq 0 ]
	[ "$(rdc_out_word srv_accepted)" -eq 200 ]
	no_rdc_left
}

@test "fi-rdm --srq: each endpoint gets ofi_rxm's shared receive context, and still echoes" {
	rdc_run run --transport fi-rdm --fi-provider 'tcp;ofi_rxm' --topology loop --clients 4 \
		--msgs 10 --srq --timeout 120
	assert_success
	[ "$(rdc_out_word verified)" -eq 40 ]
}
