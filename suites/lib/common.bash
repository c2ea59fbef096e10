# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# common.bash: bats side of the suite helpers. In a suite:
#
#   load lib/common                  (suites/vm/*.bats: load ../lib/common)
#   setup() { rdc_require_root; rdc_require_rxe; }
#   teardown() { rdc_bg_kill; }
#   @test "100 clients connect" {
#       rdc_run run --clients 100 --transport tcp
#       assert_success
#       [ "$(rdc_kv connected)" -eq 100 ]
#       [ "$(rdc_out_word success)" = 100.00% ]
#   }
#
# Debian bookworm ships bats 1.8.2, where `skip` in setup_file() fails the file
# (fixed in 1.9, bats-core PR #687): call the rdc_require_* helpers from setup().

# shellcheck disable=SC2154 # bats' run sets output, stderr and status
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# run --separate-stderr and run -N.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

rdc_require_root() { rdc_have_root || skip "$RDC_WHY"; }
rdc_require_rxe() { rdc_have_rxe || skip "$RDC_WHY"; }
rdc_require_cmd() { rdc_have_cmd "$1" || skip "$RDC_WHY"; }

# A missing binary is a broken build, not a reason to skip.
rdc_require_rdmacap() {
	[ -x "$RDMACAP" ] || fail "$RDMACAP missing: run make"
}

# rdc_out_word KEY: the last KEY=WORD of bats' $output (kv.sh's rdc_word),
# on any line: a figure, a result's description, a subtest's line.
rdc_out_word() {
	rdc_word "$1" <<<"$output"
}

# rdc_run ARGS...: rdmacap ARGS under bats' run: $status, $output (stdout, the
# TAP) and $stderr (the logs) kept apart; the TAP's "# key=value" lines parsed
# for rdc_kv and RDC_TOTALS.
rdc_run() {
	rdc_require_rdmacap
	run --separate-stderr rdc_rdmacap "$@"
	rdc_kv_parse "$output"
}
