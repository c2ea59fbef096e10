// SPDX-License-Identifier: MIT
/*
 * The uc roles: rc's, with the QP type o->transport gives (see uc.h).
 */
#include "agents/rc/rc.h"
#include "agents/uc/uc.h"

int uc_server_run(const struct ag_opts *o)
{
	return rc_server_run(o);
}

int uc_client_run(const struct ag_opts *o)
{
	return rc_client_run(o);
}
