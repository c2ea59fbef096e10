// SPDX-License-Identifier: MIT
/*
 * The rules of the kernel services (see nvopt.h): one row per refused
 * option, with each kernel's reason.
 */
#include <stdio.h>

#include "common/nvopt.h"

int nvopt_rules(enum opt_transport tr, const bool seen[OPT_N], char *err, size_t errlen)
{
	/* why each does not apply: to nvmf, to srp */
	static const struct { enum opt_id id; const char *why[2]; } no[] = {
		{ OPT_CM, { "the kernel's nvme-rdma connects its queues through rdma_cm itself",
			    "the kernel's ib_srp connects its channels through rdma_cm itself" } },
		{ OPT_QP_SHARE, { "each controller's queues are QPs of its own, made by nvme-rdma",
				  "each SCSI host's channels are QPs of its own, made by ib_srp" } },
		{ OPT_OP, { "the round trips are NVMe writes and reads, which nvme-rdma maps to "
			    "RDMA operations itself",
			    "the round trips are SCSI writes and reads, which ib_srpt maps to "
			    "RDMA operations itself" } },
		{ OPT_CQ, { "nvme-rdma makes its own CQs", "ib_srp and ib_srpt make their own CQs" } },
		{ OPT_MR, { "nvme-rdma registers its own MRs", "ib_srp registers its own MRs" } },
		{ OPT_SRQ, { "nvmet-rdma chooses its SRQs itself (its use_srq parameter)",
			     "ib_srpt chooses its SRQ itself (the target's use_srq attribute)" } },
		{ OPT_RX_DEPTH, { "the queue depth is --nvme-queue-size",
				  "ib_srp and ib_srpt size their queues themselves" } },
		{ OPT_OOB_SESSION, { "there is no out-of-band session",
				     "there is no out-of-band session" } },
		{ OPT_POLL, { "nvme-rdma polls its own CQs", "ib_srp polls its own CQs" } },
		{ OPT_GID_INDEX, { "nvme-rdma resolves its GID through rdma_cm",
				   "ib_srp resolves its GID through rdma_cm" } },
		{ OPT_SERVER_MODEL, { "the server is the kernel's nvmet target",
				      "the server is the kernel's ib_srpt target" } },
		{ OPT_SERVER_THREADS, { "the server is the kernel's nvmet target",
					"the server is the kernel's ib_srpt target" } },
		{ OPT_PORTS, { "the target listens on one port, 4420",
			       "the target listens on one rdma_cm port (ib_srpt's rdma_cm_port)" } },
	};

	if (!opt_tr_kernel(tr))
		return 0;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (seen[no[i].id]) {
			snprintf(err, errlen, "--%s does not apply to --transport %s: %s",
				 opt_defs[no[i].id].name, opt_word(OPT_TRANSPORT, tr),
				 no[i].why[tr == OPT_TR_SRP]);
			return -1;
		}
	return 0;
}
