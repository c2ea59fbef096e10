// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the OOB record parser (agents/oob/oob.c): header check,
 * record parse for every type mask and the rdma_cm private data parse. A record
 * that parses must encode back to the same 64 bytes: the parser accepts only
 * what the encoder writes.
 */
#include <stdlib.h>
#include <string.h>

#include "agents/oob/oob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned types = size ? data[0] & (OOB_T(OOB_REQ) | OOB_T(OOB_REP) | OOB_T(OOB_REJ) |
					 OOB_T(OOB_DOWN)) : 0;
	uint8_t out[OOB_REC_LEN];
	struct oob_rec r;
	struct oob_cm c;

	if (size)
		data++, size--;
	oob_head(data, size, types);
	oob_cm_parse(data, size, types, &c);
	if (oob_parse(data, size, types, &r) != OOB_OK)
		return 0;
	if (oob_encode(&r, out) != OOB_OK || size != OOB_REC_LEN || memcmp(out, data, size))
		abort();
	return 0;
}
