#!/bin/bash
# SPDX-License-Identifier: MIT
# libFuzzer on the result JSON rdmacap report reads, bounded (tests/fuzz/run).
exec "$(dirname "$0")/fuzz/run" report
