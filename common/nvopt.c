// SPDX-License-Identifier: MIT
/*
 * The rules of --transport nvmf (see nvopt.h): one row per refused option,
 * with the kernel's reason.
 */
#include <stdio.h>

#include "common/nvopt.h"

int nvopt_rules(enum opt_transport tr, const bool seen[OPT_N], char *err, size_t errlen)
{
	static const struct { enum opt_id id; const char *why; } no[] = {
		{ OPT_CM, "the kernel's nvme-rdma connects its queues through rdma_cm itself" },
		{ OPT_QP_SHARE, "each controller's queues are QPs of its own, made by nvme-rdma" },
		{ OPT_OP, "the round trips are NVMe writes and reads, which nvme-rdma maps to "
			  "RDMA operations itself" },
		{ OPT_CQ, "nvme-rdma makes its own CQs" },
		{ OPT_MR, "nvme-rdma registers its own MRs" },
		{ OPT_SRQ, "nvmet-rdma chooses its SRQs itself (its use_srq parameter)" },
		{ OPT_RX_DEPTH, "the queue depth is --nvme-queue-size" },
		{ OPT_OOB_SESSION, "there is no out-of-band session" },
		{ OPT_POLL, "nvme-rdma polls its own CQs" },
		{ OPT_GID_INDEX, "nvme-rdma resolves its GID through rdma_cm" },
		{ OPT_SERVER_MODEL, "the server is the kernel's nvmet target" },
		{ OPT_SERVER_THREADS, "the server is the kernel's nvmet target" },
		{ OPT_PORTS, "the target listens on one port, 4420" },
	};

	if (tr != OPT_TR_NVMF)
		return 0;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (seen[no[i].id]) {
			snprintf(err, errlen, "--%s does not apply to --transport nvmf: %s",
				 opt_defs[no[i].id].name, no[i].why);
			return -1;
		}
	return 0;
}
