// SPDX-License-Identifier: MIT
/*
 * --launcher mpirun: an Open MPI job of one process on the node (one per
 * agent, so two agents' records never share a stream), its daemon started
 * over ssh with RDMACAP_SSH_CONFIG when set (see launch.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness/hosts/launch.h"

int lmpi_argv(const struct hosts_host *h, struct launch_argv *a)
{
	const char *cfg = getenv("RDMACAP_SSH_CONFIG");
	int n = 0;

	a->v[n++] = "mpirun";
	if (cfg && *cfg) {
		snprintf(a->cp, sizeof(a->cp), "-F %s", cfg);
		a->v[n++] = "--mca";
		a->v[n++] = "plm_rsh_args";
		a->v[n++] = a->cp;
	}
	a->v[n++] = "-np";
	a->v[n++] = "1";
	a->v[n++] = "--host";
	a->v[n++] = (char *)h->name;
	a->v[n++] = "sh";
	a->v[n++] = "-c";
	return n;
}
