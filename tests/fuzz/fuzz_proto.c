// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for common/proto: the record parser, the command parser and
 * the histogram decoder. A record that parses must format and parse back to the
 * same line (so the harness can re-emit what it accepted), and nothing may crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char line[PROTO_LINE_MAX + 2], again[PROTO_LINE_MAX + 2], out[PROTO_LINE_MAX + 2],
		    out2[PROTO_LINE_MAX + 2];
	static struct proto_hist h;
	struct proto_rec r, r2;
	int n;

	if (size > PROTO_LINE_MAX)
		size = PROTO_LINE_MAX;
	memcpy(line, data, size);
	line[size] = '\0';
	proto_cmd_parse(line, size);
	if (!proto_hist_decode(line, &h) && h.total > (UINT64_MAX >> 1))
		memset(&h, 0, sizeof(h));
	if (proto_parse(line, &r))
		return 0;
	n = proto_format(&r, out, sizeof(out));
	if (n <= 0 || (size_t)n >= sizeof(out) || out[n - 1] != '\n')
		abort();
	out[n - 1] = '\0';
	memcpy(again, out, (size_t)n);
	if (proto_parse(again, &r2) || r2.type != r.type)
		abort();
	/* r2's words live in again: format into a third buffer */
	n = proto_format(&r2, out2, sizeof(out2));
	if (n <= 0 || out2[n - 1] != '\n')
		abort();
	out2[n - 1] = '\0';
	if (strcmp(out2, out))
		abort();
	return 0;
}
