#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Every shell file of the tree through shellcheck: one result per file, its
# findings as diagnostics, not ok on any. Shell files are those git tracks (or,
# outside a checkout, those below the tree but build/) named *.sh, *.bash,
# *.bats or *.t, or starting with a #! line that names sh, bash or bats.
# .shellcheckrc at the top says what is off for every file, and why.
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tap_init
if ! command -v shellcheck >/dev/null; then
	tap_skip_all "shellcheck is not installed (tests/deps)"
	exit "$TAP_EXIT_SKIP"
fi
cd "$ROOT" || exit 1

# shell_files: the files' paths relative to ROOT, one a line, sorted
shell_files() {
	local f first

	if git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files --cached --others --exclude-standard
	else
		find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||'
	fi | sort -u | while IFS= read -r f; do
		[ -f "$f" ] || continue
		case $f in
		*.sh | *.bash | *.bats | *.t)
			echo "$f"
			continue
			;;
		esac
		IFS= read -r first <"$f" 2>/dev/null || continue
		[[ $first =~ ^#!.*[/\ ](sh|bash|bats)([[:space:]]|$) ]] && echo "$f"
	done
}

mapfile -t files < <(shell_files)
tap_plan "${#files[@]}"
tap_kv shellcheck "$(shellcheck --version | sed -n 's/^version: //p')"
for f in "${files[@]}"; do
	if out=$(shellcheck -x -f gcc "$f" 2>&1); then
		tap_ok "shellcheck $f"
	else
		tap_diag "$out"
		tap_fail "shellcheck $f"
	fi
done
tap_finished
