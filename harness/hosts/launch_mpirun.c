// SPDX-License-Identifier: MIT
/*
 * --launcher mpirun: an Open MPI job of one process on the node (one per
 * agent, so two agents' records never share a stream). Open MPI starts its
 * daemon on the node over ssh (plm rsh), once per job: rdmacap runs one job
 * per command and per agent, so each would pay a whole ssh login. The
 * daemon's ssh gets lssh's options (RDMACAP_SSH_CONFIG, BatchMode, the dead
 * peer's bound) and rides the node's shared connection (see launch.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/hosts/launch.h"

int lmpi_argv(const struct hosts_host *h, const char *ctl, struct launch_argv *a)
{
	size_t l;
	int n = 0;

	a->v[n++] = "mpirun";
	/* the port too: the shared connection is looked up by host, port and user */
	if (lssh_optline(ctl, a->cp, sizeof(a->cp)) ||
	    (h->port && ((l = strlen(a->cp)) + 16 > sizeof(a->cp) ||
			 snprintf(a->cp + l, sizeof(a->cp) - l, " -p %u", h->port) < 0)))
		fprintf(stderr, "rdmacap: mpirun: ssh's options longer than %d bytes "
			"(RDMACAP_SSH_CONFIG's path?): the daemon's ssh runs without them\n",
			LAUNCH_CP_MAX);
	else {
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
