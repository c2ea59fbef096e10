// SPDX-License-Identifier: MIT
/*
 * --launcher srun: a job step of one task on the node, inside the allocation
 * rdmacap runs in, beside every other step of it (--overlap; see launch.h).
 */
#include "harness/hosts/launch.h"

int lsrun_argv(const struct hosts_host *h, struct launch_argv *a)
{
	static char *const srun[] = { "srun", "--nodes=1", "--ntasks=1", "--overlap", "--quiet",
				      "--job-name=rdmacap" };
	int n = 0;

	for (size_t i = 0; i < sizeof(srun) / sizeof(srun[0]); i++)
		a->v[n++] = srun[i];
	a->v[n++] = "-w";
	a->v[n++] = (char *)h->name;
	a->v[n++] = "--";
	a->v[n++] = "sh";
	a->v[n++] = "-c";
	return n;
}
