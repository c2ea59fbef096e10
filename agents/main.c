// SPDX-License-Identifier: MIT
/*
 * rdmacap-agent: one connection endpoint set of rdmacap, server or client,
 * driven by the orchestrator over stdin/stdout (common/proto.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "agents/ag.h"
#include "agents/opts.h"
#include "agents/transport.h"

/* The orchestrator raises the hard limit; the soft one is ours to take. */
static int ag_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		ag_warn("getrlimit RLIMIT_NOFILE: %s", strerror(errno));
		return -1;
	}
	if (rl.rlim_cur == rl.rlim_max)
		return 0;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		ag_warn("setrlimit RLIMIT_NOFILE: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct transport *t;
	struct ag_opts o;
	char err[256];
	int r;

	r = ag_opts_parse(&o, argc, argv, err, sizeof(err));
	if (r == 1) {
		if (ag_usage(stdout) || fflush(stdout)) {
			fprintf(stderr, AG_PROG ": --help: stdout: %s\n", strerror(errno));
			return 1;
		}
		return 0;
	}
	if (r) {
		fprintf(stderr, AG_PROG ": %s\n", err);
		if (ag_usage(stderr))
			return 1;
		return OPT_EXIT_USAGE;
	}
	/* peers vanish; a send to them must be an error, not a death */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
		ag_fatal("signal", "SIGPIPE", errno);
		return 1;
	}
	if (ag_raise_nofile())
		return 1;
	t = transport_find(o.transport);
	if (!t) {
		/* opts.c accepts only the vocabulary's words: a word without a row */
		ag_fatal("transport_find", opt_word(OPT_TRANSPORT, o.transport), ENOSYS);
		return 1;
	}
	if (o.role == AG_ROLE_SERVER)
		return t->server(&o);
	/* --cpus: a client agent's one loop, bound before its first object (a
	 * server binds each of its loops itself) */
	if (o.ncpus && ag_pin(o.cpus[0]))
		return 1;
	return t->client(&o);
}
