/* SPDX-License-Identifier: MIT */
/*
 * rec: parse one agent protocol record (see agents/proto.h) in place.
 *
 *   "conn fail id=7 call=connect errno=111 err=ECONNREFUSED"
 *    type  sub  kv...
 *
 * Everything an agent writes is checked: an unknown shape is an error, never a
 * guess. Keys and values are restricted to [A-Za-z0-9_.:,/+-] so a record can
 * always be re-emitted as a TAP diagnostic or a JSON string unchanged.
 */
#ifndef RDC_HARNESS_REC_H
#define RDC_HARNESS_REC_H

#include <stdint.h>

#define REC_MAX_KV 16

struct rec {
	const char *type;
	const char *sub; /* "" when the record has no bare word after its type */
	int nkv;
	struct {
		const char *k, *v;
	} kv[REC_MAX_KV];
};

/* Splits 'line' (modified, no trailing newline) into r. 0 or -1 when malformed. */
int rec_parse(char *line, struct rec *r);
/* Value of key, or NULL. */
const char *rec_get(const struct rec *r, const char *key);
/* Unsigned decimal value of key: 0, or -1 when absent or not a number. */
int rec_u64(const struct rec *r, const char *key, uint64_t *out);
/* Decodes a proto histogram "b:c,b:c" (or "-") and adds it into hist[nb]. */
int rec_hist_add(const char *s, uint64_t *hist, unsigned nb);

#endif
