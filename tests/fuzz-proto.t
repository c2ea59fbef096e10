#!/bin/bash
# SPDX-License-Identifier: MIT
# libFuzzer on the proto parser, bounded (tests/fuzz/run).
exec "$(dirname "$0")/fuzz/run" proto
