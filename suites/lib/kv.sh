# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# kv.sh: the "key=value" readers of the suites, one for each way a suite reads
# rdmacap's TAP. Sourced by common.sh; bash only, no state but RDC_KV.
#
#   rdc_kv_parse [TEXT]      "# key=value" lines of TEXT (or stdin) into
#                            RDC_KV[key], "# Totals: ..." into RDC_TOTALS[pass|...]
#   rdc_kv KEY               its value after rdc_kv_parse; status 1, nothing
#                            printed, when the TAP has no such key
#   rdc_word KEY [FILE]      the last KEY=WORD anywhere in FILE (or stdin): one
#                            word, on any line, comments and results alike
#   rdc_line_kv LINE KEY [FILE]
#                            KEY's word on the first "# LINE ..." line of FILE
#                            (default OUT), where lines repeat keys
#                            (rdc_line_kv srv_dev_delta qp)

declare -gA RDC_KV=() RDC_TOTALS=()

# Any nesting level; the last value of a key wins, so read a subtest's values
# from its own lines if keys repeat. A line may carry several pairs ("# qp=10
# cq=20"); a word without '=' continues the value before it ("# cause=ENOMEM
# from ibv_create_qp").
# shellcheck disable=SC2034 # RDC_TOTALS is for the suites
rdc_kv_parse() {
	local line w k
	local -a words

	RDC_KV=() RDC_TOTALS=()
	while IFS= read -r line; do
		line=${line#"${line%%[![:space:]]*}"}
		case $line in
		"# Totals: "*)
			read -ra words <<<"${line#"# Totals: "}"
			for w in "${words[@]}"; do
				RDC_TOTALS[${w%%:*}]=${w#*:}
			done
			continue
			;;
		"# "*=*) ;;
		*) continue ;;
		esac
		k=
		# read -a, not an unquoted expansion: a '*' in a value must not glob.
		read -ra words <<<"${line#"# "}"
		for w in "${words[@]}"; do
			if [[ $w =~ ^[A-Za-z0-9_.-]+= ]]; then
				k=${w%%=*}
				RDC_KV[$k]=${w#*=}
			elif [ -n "$k" ]; then
				RDC_KV[$k]+=" $w"
			fi
		done
	done < <(if [ $# -gt 0 ]; then printf '%s\n' "$1"; else cat; fi)
}

rdc_kv() {
	[ -n "${RDC_KV[$1]+set}" ] || return 1
	printf '%s\n' "${RDC_KV[$1]}"
}

rdc_word() {
	grep -oE "(^|[ #])$1=[^ ]+" "${2:-/dev/stdin}" | tail -n 1 | sed -E "s/^.?$1=//"
}

rdc_line_kv() {
	grep -m1 -E "^ *# $1( |=)" "${3:-$OUT}" | grep -oE "(^| )$2=[^ ]+" | head -n1 | cut -d= -f2
}
