// SPDX-License-Identifier: MIT
/*
 * rsiw: the plug against siw's mmap key collision (see siw.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rdma/siw-abi.h>

#include "rdma/siw.h"

bool rsiw_is(const struct ibv_device_attr *a)
{
	return a->vendor_id == RSIW_VENDOR_ID;
}

int rsiw_plug_cqe(void)
{
	/* one entry past the key: the ring's first SIW_INVAL_UOBJ_KEY bytes, then more */
	return (int)(SIW_INVAL_UOBJ_KEY / sizeof(struct siw_cqe)) + 1;
}

int rsiw_plug(struct ibv_context *ctx, const struct ibv_device_attr *a, struct ibv_cq **cq,
	      char *buf, size_t len)
{
	int cqe = rsiw_plug_cqe();

	*cq = NULL;
	if (!rsiw_is(a))
		return 0;
	/* libsiw may fail without setting errno */
	errno = 0;
	*cq = ibv_create_cq(ctx, cqe, NULL, NULL, 0);
	if (!*cq) {
		snprintf(buf, len, "rsiw: ibv_create_cq %s (%d entries): %s",
			 ibv_get_device_name(ctx->device), cqe,
			 errno ? strerror(errno) : "failed, errno not set");
		return -1;
	}
	return 0;
}
