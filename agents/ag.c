// SPDX-License-Identifier: MIT
/*
 * Fatal errors as records, warnings on stderr (see ag.h).
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agents/ag.h"
#include "common/proto.h"

void ag_warn(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* one write so concurrent threads keep whole lines; stderr loss is harmless */
	if (dprintf(STDERR_FILENO, AG_PROG ": %.*s", n, buf) < 0)
		return;
}

void ag_fatal(const char *call, const char *obj, int err)
{
	ag_warn("%s %s: %s", call, obj, strerror(err));
	proto_error(call, err);
}

int ag_pin(int cpu)
{
	char obj[16];
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* pid 0: the calling thread alone; the others keep their own CPUs */
	if (!sched_setaffinity(0, sizeof(set), &set))
		return 0;
	snprintf(obj, sizeof(obj), "cpu %d", cpu);
	ag_fatal("sched_setaffinity", obj, errno);
	return -1;
}
