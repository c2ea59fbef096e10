// SPDX-License-Identifier: MIT
/*
 * Fatal errors as records, warnings on stderr (see ag.h).
 */
#include <errno.h>
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
