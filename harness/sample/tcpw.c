// SPDX-License-Identifier: MIT
/* The kernel's TCP counters per namespace: see tcpw.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/sample/tcpw.h"

/* "Tcp" rows from snmp, "TcpExt" rows from netstat, then dev's and softnet's */
#define TCPW_NSNMP 7
#define TCPW_NEXT 16
#define TCPW_DEV (TCPW_NSNMP + TCPW_NEXT)
#define TCPW_SOFTNET (TCPW_DEV + 2)

_Static_assert(TCPW_SOFTNET + 2 == TCPW_N, "tcpw.h and tcpw.c disagree on counters");

const char *const tcpw_names[TCPW_N] = {
	"TcpInSegs", "TcpOutSegs", "TcpRetransSegs", "TcpInErrs", "TcpOutRsts",
	"TcpAttemptFails", "TcpEstabResets",
	"TcpExtTCPTimeouts", "TcpExtTCPLostRetransmit", "TcpExtTCPSynRetrans",
	"TcpExtListenOverflows", "TcpExtListenDrops", "TcpExtTCPBacklogDrop",
	"TcpExtTCPMemoryPressures", "TcpExtTCPAbortOnTimeout", "TcpExtTCPAbortOnMemory",
	"TcpExtTCPAbortOnData", "TcpExtTCPRcvQDrop", "TcpExtTCPReqQFullDrop",
	"TcpExtTCPZeroWindowDrop", "TcpExtTCPOFODrop", "TcpExtPruneCalled", "TcpExtTCPKeepAlive",
	"rx_dropped", "tx_dropped", "softnet_dropped", "softnet_time_squeeze",
};

enum { TCPW_F_SNMP, TCPW_F_NETSTAT, TCPW_F_DEV, TCPW_NF };
static const char *const tcpw_files[TCPW_NF] = { "snmp", "netstat", "dev" };

/* /proc/net/dev of a namespace with the host's interfaces (loop, host) is the longest */
#define TCPW_BUF 65536

struct tcpw {
	int nns;                            /* [0] the server's, then each client's */
	int fd[1 + NN_MAX_CLIENTS][TCPW_NF];
	int softnet;
	char *buf;
};

void tcpw_close(struct tcpw *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->nns; i++)
		for (int f = 0; f < TCPW_NF; f++)
			close(w->fd[i][f]);
	if (w->softnet >= 0)
		close(w->softnet);
	free(w->buf);
	free(w);
}

struct tcpw *tcpw_open(const struct nn_topo *t, char *why, size_t len)
{
	struct tcpw *w = calloc(1, sizeof(*w));

	if (!w || !(w->buf = malloc(TCPW_BUF))) {
		snprintf(why, len, "tcpw: calloc: %s", strerror(errno));
		free(w);
		return NULL;
	}
	w->softnet = open("/proc/net/softnet_stat", O_RDONLY | O_CLOEXEC);
	if (w->softnet < 0) {
		snprintf(why, len, "tcpw: open /proc/net/softnet_stat: %s", strerror(errno));
		goto err;
	}
	for (int k = -1; k < t->nclients; k++) {
		const char *ns = k < 0 ? t->srv.ns : t->cli[k].ns;

		/* loop, host: the clients' namespace is the server's, read once */
		if (k >= 0 && !strcmp(ns, t->srv.ns))
			continue;
		if (nn_open_net(ns, tcpw_files, TCPW_NF, w->fd[w->nns])) {
			snprintf(why, len, "tcpw: open /proc/net/{snmp,netstat,dev} in namespace %s: %s",
				 *ns ? ns : "(own)", strerror(errno));
			goto err;
		}
		w->nns++;
	}
	return w;
err:
	tcpw_close(w);
	return NULL;
}

/* The whole file at fd into w->buf, NUL-terminated. 0 or -1. */
static int tcpw_slurp(struct tcpw *w, int fd)
{
	size_t l = 0;

	for (;;) {
		ssize_t n = pread(fd, w->buf + l, TCPW_BUF - 1 - l, (off_t)l);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		l += (size_t)n;
		if (!n || l == TCPW_BUF - 1)
			break;
	}
	w->buf[l] = '\0';
	return 0;
}

/*
 * snmp and netstat print a row of names and a row of values per protocol
 * ("Tcp: RtoAlgorithm ...", "Tcp: 1 ..."): each wanted name's value added to
 * v[i], names[i] without the protocol's prefix "pfx".
 */
static void tcpw_rows(const char *buf, const char *pfx, const char *const *names, int n,
		      uint64_t *v)
{
	size_t pl = strlen(pfx);
	const char *hdr = buf;

	while ((hdr = strstr(hdr, pfx))) {
		const char *val = strchr(hdr, '\n'), *h, *x;

		if ((hdr != buf && hdr[-1] != '\n') || hdr[pl] != ':' || !val ||
		    strncmp(val + 1, pfx, pl) || val[1 + pl] != ':') {
			hdr += pl;
			continue;
		}
		h = hdr + pl + 1;
		x = val + 1 + pl + 1;
		while (*h && *h != '\n') {
			size_t hl, xl;

			h += strspn(h, " ");
			x += strspn(x, " ");
			hl = strcspn(h, " \n");
			xl = strcspn(x, " \n");
			for (int i = 0; i < n && hl; i++)
				if (strlen(names[i]) - pl == hl && !strncmp(names[i] + pl, h, hl))
					v[i] += strtoull(x, NULL, 10);
			h += hl;
			x += xl;
		}
		return;
	}
}

/* /proc/net/dev: receive drops are the 4th figure after "name:", transmit the 12th */
static void tcpw_dev(const char *buf, uint64_t *v)
{
	const char *l = buf;

	while ((l = strchr(l, ':'))) {
		char *e;
		uint64_t f[12];
		int k;

		e = (char *)l + 1;
		for (k = 0; k < 12; k++) {
			f[k] = strtoull(e, &e, 10);
			if (*e != ' ' && *e != '\n')
				break;
		}
		if (k == 12) {
			v[0] += f[3];
			v[1] += f[11];
		}
		l = strchr(l, '\n');
		if (!l)
			break;
	}
}

/* softnet_stat: per CPU, hex: processed, dropped, time_squeeze, ... */
static void tcpw_softnet(const char *buf, uint64_t *v)
{
	for (const char *l = buf; *l; ) {
		char *e;

		strtoull(l, &e, 16);
		v[0] += strtoull(e, &e, 16);
		v[1] += strtoull(e, &e, 16);
		l = strchr(e, '\n');
		if (!l)
			break;
		l++;
	}
}

int tcpw_read(struct tcpw *w, uint64_t *srv, uint64_t *cli)
{
	memset(srv, 0, TCPW_N * sizeof(*srv));
	memset(cli, 0, TCPW_N * sizeof(*cli));
	for (int i = 0; i < w->nns; i++) {
		uint64_t *v = i ? cli : srv;

		if (tcpw_slurp(w, w->fd[i][TCPW_F_SNMP]))
			return -1;
		tcpw_rows(w->buf, "Tcp", tcpw_names, TCPW_NSNMP, v);
		if (tcpw_slurp(w, w->fd[i][TCPW_F_NETSTAT]))
			return -1;
		tcpw_rows(w->buf, "TcpExt", tcpw_names + TCPW_NSNMP, TCPW_NEXT, v + TCPW_NSNMP);
		if (tcpw_slurp(w, w->fd[i][TCPW_F_DEV]))
			return -1;
		tcpw_dev(w->buf, v + TCPW_DEV);
	}
	if (tcpw_slurp(w, w->softnet))
		return -1;
	tcpw_softnet(w->buf, srv + TCPW_SOFTNET);
	return 0;
}
