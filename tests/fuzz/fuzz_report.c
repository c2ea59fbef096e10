// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for what `rdmacap report` reads (harness/report/): the input
 * is one result file, given to rp_main as the run and as its --baseline, with
 * the Markdown and the SVG both rendered (to /dev/null). Every byte of the file
 * is the fuzzer's: the JSON text, the plan, points of any shape and type, the
 * --hosts sections. Nothing may crash, read out of bounds, overflow or leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness/report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hp_plan p;
	char path[32];
	int fd = memfd_create("fuzz_report", MFD_CLOEXEC);

	if (fd < 0) {
		perror("fuzz_report: memfd_create");
		abort();
	}
	if (size && write(fd, data, size) != (ssize_t)size) {
		perror("fuzz_report: write to the memfd");
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	p.files[0] = path;
	p.nfiles = 1;
	p.baseline = path;
	p.out_md = "/dev/null";
	p.out_svg = "/dev/null";
	rp_main(&p);
	if (close(fd)) {
		perror("fuzz_report: close the memfd");
		abort();
	}
	return 0;
}
