// SPDX-License-Identifier: MIT
/*
 * --launcher ssh: the OpenSSH client's words, for one command, the host's
 * shared connection and scp (see launch.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness/hosts/launch.h"

/*
 * Options of every ssh and scp: no prompt, fail fast, notice a dead peer;
 * with ctl, through the host's shared connection when it is up, or as that
 * connection (master).
 */
static int lssh_opts(char **v, int n, const char *ctl, bool master, char *cp, size_t cplen)
{
	static char *const o[] = { "-o", "BatchMode=yes", "-o", "ConnectTimeout=15",
				   "-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3" };
	const char *cfg = getenv("RDMACAP_SSH_CONFIG");

	_Static_assert(LSSH_CONNECT_S == 15 && LSSH_ALIVE_S == 2 && LSSH_ALIVE_MAX == 3,
		       "the options above");
	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++)
		v[n++] = o[i];
	if (cfg && *cfg) {
		v[n++] = "-F";
		v[n++] = (char *)cfg;
	}
	if (ctl && *ctl) {
		snprintf(cp, cplen, "ControlPath=%s/%%C", ctl);
		v[n++] = "-o";
		v[n++] = cp;
		v[n++] = "-o";
		v[n++] = master ? "ControlMaster=yes" : "ControlMaster=no";
	}
	return n;
}

int lssh_optline(const char *ctl, char *buf, size_t len)
{
	char *v[LAUNCH_WORDS], cp[LAUNCH_CTL_MAX + 32];
	int n = lssh_opts(v, 0, ctl, false, cp, sizeof(cp));
	size_t off = 0;

	for (int i = 0; i < n; i++) {
		int w = snprintf(buf + off, len - off, "%s%s", i ? " " : "", v[i]);

		if (w < 0 || (size_t)w >= len - off)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

/* "ssh OPTIONS [-p PORT]": the words before the destination */
static int lssh_head(const struct hosts_host *h, const char *ctl, bool master,
		     struct launch_argv *a)
{
	int n = 0;

	a->v[n++] = "ssh";
	n = lssh_opts(a->v, n, ctl, master, a->cp, sizeof(a->cp));
	if (h->port) {
		snprintf(a->port, sizeof(a->port), "%u", h->port);
		a->v[n++] = "-p";
		a->v[n++] = a->port;
	}
	return n;
}

int lssh_argv(const struct hosts_host *h, const char *ctl, bool master, struct launch_argv *a)
{
	int n = lssh_head(h, ctl, master, a);

	a->v[n++] = "-T";
	a->v[n++] = (char *)h->dest;
	a->v[n++] = "--";
	return n;
}

int lssh_master(const struct hosts_host *h, const char *ctl, int persist_s,
		struct launch_argv *a)
{
	int n = lssh_head(h, ctl, true, a);

	snprintf(a->opt, sizeof(a->opt), "ControlPersist=%d", persist_s);
	a->v[n++] = "-o";
	a->v[n++] = a->opt;
	a->v[n++] = "-f";
	a->v[n++] = "-N";
	a->v[n++] = (char *)h->dest;
	a->v[n] = NULL;
	return n;
}

int lssh_exit(const struct hosts_host *h, const char *ctl, struct launch_argv *a)
{
	int n = lssh_head(h, ctl, false, a);

	a->v[n++] = "-O";
	a->v[n++] = "exit";
	a->v[n++] = (char *)h->dest;
	a->v[n] = NULL;
	return n;
}

int lssh_scp(const struct hosts_host *h, const char *ctl, char *const local[], const char *remote,
	     char *dst, size_t dlen, struct launch_argv *a)
{
	int n = 0;

	a->v[n++] = "scp";
	n = lssh_opts(a->v, n, ctl, false, a->cp, sizeof(a->cp));
	if (h->port) {
		snprintf(a->port, sizeof(a->port), "%u", h->port);
		a->v[n++] = "-P";
		a->v[n++] = a->port;
	}
	snprintf(dst, dlen, "%s:%s", h->scp, remote);
	a->v[n++] = "-pq";
	for (int i = 0; local[i] && n < LAUNCH_WORDS - 2; i++)
		a->v[n++] = local[i];
	a->v[n++] = dst;
	a->v[n] = NULL;
	return n;
}
