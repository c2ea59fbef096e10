// SPDX-License-Identifier: MIT
/*
 * nn_up / nn_down: build a topology with as few ip processes as possible (one
 * batch in the caller's namespace creates every namespace and veth pair, then one
 * batch per namespace, all running at once, sets addresses and links up), waits
 * for the links' carriers, then the rxe links, then waits for their ports.
 *
 * Undoing a failed nn_up and nn_down are the same code: remove everything named
 * rdc<run>* (teardown.c). The run id is fresh (nn_new_run), so all of it is ours.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "netns/nn.h"

/*
 * Prefix lengths: the topology's one subnet (10.222.0.0/16, fd7a:222::/64), or
 * the host alone (loop puts both ends in the caller's namespace). IPv6 without
 * DAD: nothing else is on these links, and DAD would hold the address
 * "tentative", unbindable, for about a second.
 */
#define NN_V6(t) ((t)->family == AF_INET6)
#define NN_NET_PLEN(t) (NN_V6(t) ? 64 : 16)
#define NN_HOST_PLEN(t) (NN_V6(t) ? 128 : 32)
#define NN_NODAD(t) (NN_V6(t) ? " nodad" : "")

/* One ip -batch script, built in memory. */
struct nn_script {
	char *text;
	size_t len;
	FILE *f;
};

static int nn_script_open(struct nn_script *s)
{
	s->text = NULL;
	s->f = open_memstream(&s->text, &s->len);
	return s->f ? 0 : -1;
}

static int nn_script_close(struct nn_script *s)
{
	int ret = 0;

	if (s->f && fclose(s->f))
		ret = -1;
	s->f = NULL;
	return ret;
}

static void nn_script_free(struct nn_script *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (s[i].f)
			fclose(s[i].f);
		free(s[i].text);
	}
}

/* loop puts its addresses in the caller's namespace: refuse to double them. */
static bool nn_addr_taken(const char *addr)
{
	struct ifaddrs *ifa, *i;
	char s[INET6_ADDRSTRLEN];
	bool taken = false;

	if (getifaddrs(&ifa) < 0)
		return false;
	for (i = ifa; i; i = i->ifa_next) {
		int f = i->ifa_addr ? i->ifa_addr->sa_family : AF_UNSPEC;
		const void *a = f == AF_INET ? (void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr :
				f == AF_INET6 ? (void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr :
				NULL;

		/* both sides in inet_ntop's canonical text */
		if (a && inet_ntop(f, a, s, sizeof(s)) && !strcmp(s, addr))
			taken = true;
	}
	freeifaddrs(ifa);
	return taken;
}

/*
 * loop with rxe: a veth pair in the caller's namespace. /32 addresses keep a
 * 10.222.0.0/16 route out of the host's table; both are local, and the rxe on s0
 * reaches its own address through its loopback path.
 */
static int nn_up_loop(struct nn_topo *t, FILE *log)
{
	char peer[NN_IFNAMSIZ], addr[sizeof(t->srv.addr)];
	struct nn_script s;
	int ret;

	if (nn_addr_taken(t->srv.addr)) {
		fprintf(stderr,
			"netns: loop: %s is already on an interface here (another loop run? "
			"`rdmacap down`)\n",
			t->srv.addr);
		errno = EADDRINUSE;
		return -1;
	}
	nn_name_veth(peer, sizeof(peer), t->run, 'c', 0);
	if (nn_script_open(&s) < 0)
		return -1;
	fprintf(s.f, "link add %s group %lu type veth peer name %s group %lu\n", t->srv.ifname,
		nn_group(t->run), peer, nn_group(t->run));
	nn_client_addr(addr, sizeof(addr), t->family, 1);
	fprintf(s.f, "addr add %s/%d dev %s%s\n", t->srv.addr, NN_HOST_PLEN(t), t->srv.ifname,
		NN_NODAD(t));
	fprintf(s.f, "addr add %s/%d dev %s%s\n", addr, NN_HOST_PLEN(t), peer, NN_NODAD(t));
	fprintf(s.f, "link set %s up\n", t->srv.ifname);
	fprintf(s.f, "link set %s up\n", peer);
	if (nn_script_close(&s) < 0) {
		nn_script_free(&s, 1);
		return -1;
	}
	ret = nn_batch("", "ip", s.text, false, log);
	nn_script_free(&s, 1);
	return ret;
}

/* pair and star: namespaces and veths first, then each namespace's own setup. */
static int nn_up_ns(struct nn_topo *t, FILE *log)
{
	int nc = t->nclients, k, ret = -1;
	struct nn_script *s;
	struct nn_cmd *c;
	char veth[NN_IFNAMSIZ];

	s = calloc(nc + 2, sizeof(*s));
	c = calloc(nc + 1, sizeof(*c));
	if (!s || !c)
		goto out;
	for (k = 0; k < nc + 2; k++)
		if (nn_script_open(&s[k]) < 0)
			goto out;

	/* s[nc + 1]: the caller's namespace; s[0]: server; s[k]: client k. */
	fprintf(s[nc + 1].f, "netns add %s\n", t->srv.ns);
	for (k = 1; k <= nc; k++)
		fprintf(s[nc + 1].f, "netns add %s\n", t->cli[k - 1].ns);
	for (k = 1; k <= nc; k++) {
		nn_name_veth(veth, sizeof(veth), t->run, 's', k);
		/* ifindexes of the run's own: nn_ifindex says why */
		fprintf(s[nc + 1].f,
			"link add %s netns %s index %lu group %lu type veth peer name %s netns %s "
			"index %lu group %lu\n",
			veth, t->srv.ns, nn_ifindex(t->run, k), nn_group(t->run), t->cli[k - 1].ifname,
			t->cli[k - 1].ns, nn_ifindex(t->run, k), nn_group(t->run));
	}

	fprintf(s[0].f, "link set lo up\n");
	if (t->kind == NN_STAR) {
		/* STP stays off: ports forward at once instead of after 2 x 15 s. */
		fprintf(s[0].f, "link add %s group %lu type bridge stp_state 0\n", t->srv.ifname,
			nn_group(t->run));
		for (k = 1; k <= nc; k++) {
			nn_name_veth(veth, sizeof(veth), t->run, 's', k);
			fprintf(s[0].f, "link set %s master %s up\n", veth, t->srv.ifname);
		}
	}
	fprintf(s[0].f, "addr add %s/%d dev %s%s\n", t->srv.addr, NN_NET_PLEN(t), t->srv.ifname,
		NN_NODAD(t));
	fprintf(s[0].f, "link set %s up\n", t->srv.ifname);
	for (k = 1; k <= nc; k++) {
		fprintf(s[k].f, "link set lo up\n");
		fprintf(s[k].f, "addr add %s/%d dev %s%s\n", t->cli[k - 1].addr, NN_NET_PLEN(t),
			t->cli[k - 1].ifname, NN_NODAD(t));
		fprintf(s[k].f, "link set %s up\n", t->cli[k - 1].ifname);
	}
	for (k = 0; k < nc + 2; k++)
		if (nn_script_close(&s[k]) < 0)
			goto out;

	if (nn_batch("", "ip", s[nc + 1].text, false, log) < 0)
		goto out;
	for (k = 0; k <= nc; k++) {
		c[k].ns = k ? t->cli[k - 1].ns : t->srv.ns;
		c[k].input = s[k].text;
		c[k].argv[0] = "ip";
		c[k].argv[1] = "-batch";
		c[k].argv[2] = "-";
	}
	ret = nn_cmd_run(c, nc + 1, log);
out:
	if (ret < 0 && (!s || !c))
		fprintf(stderr, "netns: up: %s\n", strerror(ENOMEM));
	if (c)
		nn_cmd_free(c, nc + 1);
	free(c);
	if (s)
		nn_script_free(s, nc + 2);
	free(s);
	return ret;
}

/*
 * Until its carrier is up a link drops what is sent through it (its qdisc is
 * noop): wait for every link the run made, so its first packets are not lost.
 */
static int nn_up_oper(struct nn_topo *t)
{
	int nc = t->kind == NN_LOOP ? 0 : t->nclients, k, n = 0, ret = -1;
	long long end = nn_now_ms() + NN_OPER_TIMEOUT_MS;
	char(*veth)[NN_IFNAMSIZ];
	const char **name;
	char *late = NULL;

	/* the server's namespace: its link, loop's peer or star's ports */
	veth = calloc(nc + 1, sizeof(*veth));
	name = calloc(nc + 2, sizeof(*name));
	if (!veth || !name) {
		fprintf(stderr, "netns: up: %s\n", strerror(ENOMEM));
		goto out;
	}
	name[n++] = t->srv.ifname;
	if (t->kind == NN_LOOP) {
		nn_name_veth(veth[0], sizeof(veth[0]), t->run, 'c', 0);
		name[n++] = veth[0];
	}
	for (k = 1; t->kind == NN_STAR && k <= nc; k++) {
		nn_name_veth(veth[k], sizeof(veth[k]), t->run, 's', k);
		name[n++] = veth[k];
	}
	for (k = 0; k <= nc; k++) {
		const char *ns = k ? t->cli[k - 1].ns : t->srv.ns;

		if (k)
			name[0] = t->cli[k - 1].ifname;
		if (nn_ns_wait_oper(ns, name, k ? 1 : n, end, &late) < 0)
			goto out;
		if (*late) {
			fprintf(stderr, "netns: up: %sin %s not up after %d ms\n", late,
				nn_ns_label(ns), NN_OPER_TIMEOUT_MS);
			errno = ETIMEDOUT;
			goto out;
		}
		free(late);
		late = NULL;
	}
	ret = 0;
out:
	free(late);
	free(name);
	free(veth);
	return ret;
}

static int nn_up_rxe(struct nn_topo *t, FILE *log)
{
	char(*name)[NN_IFNAMSIZ], (*dev)[NN_IFNAMSIZ], (*ns)[NN_NAME_MAX];
	int k, n = t->kind == NN_LOOP ? 1 : t->nclients + 1, ret = -1;

	name = calloc(n, sizeof(*name));
	dev = calloc(n, sizeof(*dev));
	ns = calloc(n, sizeof(*ns));
	if (!name || !dev || !ns) {
		fprintf(stderr, "netns: up: %s\n", strerror(ENOMEM));
		goto out;
	}
	for (k = 0; k < n; k++) {
		const struct nn_host *h = k ? &t->cli[k - 1] : &t->srv;

		snprintf(name[k], sizeof(name[k]), "%s", h->rxe);
		snprintf(dev[k], sizeof(dev[k]), "%s", h->ifname);
		snprintf(ns[k], sizeof(ns[k]), "%s", h->ns);
	}
	if (nn_rxe_add((const char(*)[NN_IFNAMSIZ])name, (const char(*)[NN_IFNAMSIZ])dev,
		       (const char(*)[NN_NAME_MAX])ns, n, log) < 0)
		goto out;
	ret = nn_rxe_wait_active((const char(*)[NN_IFNAMSIZ])name, n, NN_RXE_TIMEOUT_MS);
out:
	free(ns);
	free(dev);
	free(name);
	return ret;
}

static void nn_run_prefix(char *buf, size_t len, const char *run)
{
	snprintf(buf, len, NN_PREFIX "%.4s", run);
}

int nn_up(struct nn_topo *t, const char *run, bool rxe, FILE *log)
{
	char prefix[NN_NAME_MAX];
	int ret;

	if (nn_plan(t, run, rxe) < 0) {
		fprintf(stderr, "netns: up: bad run id \"%s\" or topology\n", run ? run : "(null)");
		return -1;
	}
	if (rxe && !nn_rdma_present()) {
		fprintf(stderr, "netns: up: rxe asked for, but this kernel has no RDMA core "
				"(/sys/module/ib_core)\n");
		errno = ENODEV;
		return -1;
	}
	if (rxe && !nn_rdma_shared()) {
		fprintf(stderr, "netns: up: rdma netns mode is exclusive; rdmacap needs shared "
				"(rdma system set netns shared)\n");
		errno = EPERM;
		return -1;
	}
	if (t->kind == NN_LOOP && !rxe) {
		t->up = true;
		return 0;
	}
	ret = t->kind == NN_LOOP ? nn_up_loop(t, log) : nn_up_ns(t, log);
	if (!ret)
		ret = nn_up_oper(t);
	if (!ret && rxe)
		ret = nn_up_rxe(t, log);
	if (ret < 0) {
		int err = errno;

		nn_run_prefix(prefix, sizeof(prefix), run);
		fprintf(stderr, "netns: up %s failed: removing what it made\n", prefix);
		nn_teardown(prefix, log, NULL);
		errno = err;
		return -1;
	}
	t->up = true;
	return 0;
}

int nn_down(struct nn_topo *t, FILE *log)
{
	char prefix[NN_NAME_MAX];

	if (!nn_run_ok(t->run)) {
		fprintf(stderr, "netns: down: bad run id \"%.7s\"\n", t->run);
		errno = EINVAL;
		return -1;
	}
	if (t->kind == NN_LOOP && !t->rxe) {
		t->up = false;
		return 0;
	}
	nn_run_prefix(prefix, sizeof(prefix), t->run);
	if (nn_teardown(prefix, log, NULL) < 0)
		return -1;
	t->up = false;
	return 0;
}
