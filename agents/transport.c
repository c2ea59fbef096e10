// SPDX-License-Identifier: MIT
/*
 * The transports built into the agent: one row each. See transport.h.
 */
#include <stddef.h>

#include "agents/nvmf/nvmf.h"
#include "agents/fi/fab.h"
#include "agents/rc/rc.h"
#include "agents/srp/srp.h"
#include "agents/tcp/tcp.h"
#include "agents/transport.h"
#include "agents/ud/ud.h"

static const struct transport transports[] = {
	{ OPT_TR_TCP, tcp_server_run, tcp_client_run },
	{ OPT_TR_RC, rc_server_run, rc_client_run },
	{ OPT_TR_UD, ud_server_run, ud_client_run },
	{ OPT_TR_UC, rc_server_run, rc_client_run },	/* rc's roles with UC QPs (rc.h) */
	{ OPT_TR_NVMF, nvmf_server_run, nvmf_client_run },
	{ OPT_TR_FI_MSG, fab_msg_server_run, fab_msg_client_run },
	{ OPT_TR_FI_RDM, fab_rdm_server_run, fab_rdm_client_run },
	{ OPT_TR_SRP, srp_server_run, srp_client_run },
};

const struct transport *transport_find(enum opt_transport id)
{
	size_t i;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (transports[i].id == id)
			return &transports[i];
	return NULL;
}
