// SPDX-License-Identifier: MIT
/*
 * Topology specs, run ids, and the names and addresses of everything nn_up() makes.
 *
 * Addresses: the server is 10.222.0.1/16; client k (1-based) is host number k + 1 of
 * 10.222.0.0/16, i.e. 10.222.0.2 .. 10.222.0.65 for star:64. The formula carries on
 * into 10.222.1.x should NN_MAX_CLIENTS ever grow past 253.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <net/if.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "netns/nn.h"

static void __attribute__((format(printf, 3, 4)))
nn_errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

int nn_parse(const char *spec, struct nn_topo *t, char *err, size_t errlen)
{
	const char *ks;
	char *end;
	long k;

	if (!spec)
		spec = "";
	if (!strcmp(spec, "host")) {
		t->kind = NN_HOST;
		t->nclients = 1;
		return 0;
	}
	if (!strcmp(spec, "loop") || !strcmp(spec, "pair")) {
		t->kind = spec[0] == 'l' ? NN_LOOP : NN_PAIR;
		t->nclients = 1;
		return 0;
	}
	if (strncmp(spec, "star", 4) || (spec[4] && spec[4] != ':')) {
		nn_errf(err, errlen, "topology \"%s\": expected loop, pair, star:K or host", spec);
		return -1;
	}
	if (!spec[4] || !spec[5]) {
		nn_errf(err, errlen,
			"topology \"%s\": star needs a client count, star:K with K 1..%d", spec,
			NN_MAX_CLIENTS);
		return -1;
	}
	/* Digits only: strtol would also take " 4", "+4" and "0x4". */
	ks = spec + 5;
	for (const char *p = ks; *p; p++) {
		if (!isdigit((unsigned char)*p)) {
			nn_errf(err, errlen, "topology \"%s\": K is not a number 1..%d", spec,
				NN_MAX_CLIENTS);
			return -1;
		}
	}
	errno = 0;
	k = strtol(ks, &end, 10);
	if (errno || k < 1 || k > NN_MAX_CLIENTS) {
		nn_errf(err, errlen, "topology \"%s\": K must be 1..%d", spec, NN_MAX_CLIENTS);
		return -1;
	}
	t->kind = NN_STAR;
	t->nclients = k;
	return 0;
}

bool nn_run_ok(const char *run)
{
	int i;

	for (i = 0; i < 4; i++)
		if (!isxdigit((unsigned char)run[i]) || isupper((unsigned char)run[i]))
			return false;
	return run[4] == '\0';
}

/*
 * Every name is "rdc" + 4 hex digits + a suffix that starts with a non-hex
 * character ('-', 's', 'c'+digit, 'b'r, 'r'), so a run's prefix "rdc<run>" never
 * matches another run's objects. Longest: "rdc1234-c64" (11), "rdc1234s64" (10).
 */
void nn_name_ns(char *buf, size_t len, const char *run, int k)
{
	if (k)
		snprintf(buf, len, NN_PREFIX "%.4s-c%hu", run, (unsigned short)k);
	else
		snprintf(buf, len, NN_PREFIX "%.4s-srv", run);
}

void nn_name_veth(char *buf, size_t len, const char *run, char side, int k)
{
	snprintf(buf, len, NN_PREFIX "%.4s%c%hu", run, side, (unsigned short)k);
}

void nn_name_rxe(char *buf, size_t len, const char *run, int k)
{
	if (k)
		snprintf(buf, len, NN_PREFIX "%.4sr%hu", run, (unsigned short)k);
	else
		snprintf(buf, len, NN_PREFIX "%.4srs", run);
}

void nn_name_bridge(char *buf, size_t len, const char *run)
{
	snprintf(buf, len, NN_PREFIX "%.4sbr", run);
}

/*
 * Every link of a run is also in link group 0x7264xxxx ("rd" + run id): one
 * `ip link del group G` removes them all in a single unregister (one RCU grace
 * period) instead of one per link, 30 ms instead of 330 ms for star:16 here.
 */
unsigned long nn_group(const char *run)
{
	return NN_GROUP_BASE | strtoul(run, NULL, 16);
}

/*
 * The ifindex of both ends of a run's veth k, (run + 1) * 256 + k: no two runs
 * share one. rdma_cm files every RoCE id it routes under its link's ifindex
 * and destination address in one table for all namespaces, and a neighbour
 * update of that pair in any namespace, with another MAC, ends the ids as
 * UNREACHABLE (cma_netevent_callback). With ifindexes picked by the kernel,
 * each fresh namespace's veth is 2 and every run's server is 10.222.0.1: the
 * neighbour entry of one run (ageing, say) broke the connections another run
 * was making.
 */
unsigned long nn_ifindex(const char *run, int k)
{
	return ((strtoul(run, NULL, 16) + 1) << 8) | (unsigned int)k;
}

void nn_client_addr(char *buf, size_t len, int family, int k)
{
	unsigned int h = k + 1;

	if (family == AF_INET6)
		snprintf(buf, len, "fd7a:222::%x", h);
	else
		snprintf(buf, len, "10.222.%u.%u", (h >> 8) & 0xff, h & 0xff);
}

static void nn_host_set(struct nn_host *h, const char *ns, const char *ifname, const char *addr,
			const char *rxe)
{
	snprintf(h->ns, sizeof(h->ns), "%s", ns);
	snprintf(h->ifname, sizeof(h->ifname), "%s", ifname);
	snprintf(h->addr, sizeof(h->addr), "%s", addr);
	snprintf(h->rxe, sizeof(h->rxe), "%s", rxe);
}

int nn_plan(struct nn_topo *t, const char *run, bool rxe)
{
	char ns[NN_NAME_MAX], ifn[NN_IFNAMSIZ], addr[sizeof(t->srv.addr)], rx[NN_IFNAMSIZ];
	int k;

	if (!run || !nn_run_ok(run) || t->nclients < 1 || t->nclients > NN_MAX_CLIENTS ||
	    (t->kind != NN_STAR && t->nclients != 1) || t->kind == NN_HOST) {
		errno = EINVAL;
		return -1;
	}
	snprintf(t->run, sizeof(t->run), "%s", run);
	t->rxe = rxe;
	t->up = false;
	memset(&t->srv, 0, sizeof(t->srv));
	memset(t->cli, 0, sizeof(t->cli));

	if (t->kind == NN_LOOP) {
		/*
		 * One rxe on one veth end talks to itself (rxe loops packets back
		 * when the destination is its own address); the peer end only has
		 * to be up for the port to become ACTIVE.
		 */
		if (rxe) {
			nn_name_veth(ifn, sizeof(ifn), run, 's', 0);
			nn_name_rxe(rx, sizeof(rx), run, 0);
			nn_client_addr(addr, sizeof(addr), t->family, 0);
			nn_host_set(&t->srv, "", ifn, addr, rx);
		} else {
			nn_host_set(&t->srv, "", "lo", t->family == AF_INET6 ? "::1" : "127.0.0.1", "");
		}
		t->cli[0] = t->srv;
		return 0;
	}

	nn_name_ns(ns, sizeof(ns), run, 0);
	if (t->kind == NN_STAR)
		nn_name_bridge(ifn, sizeof(ifn), run);
	else
		nn_name_veth(ifn, sizeof(ifn), run, 's', 1);
	nn_name_rxe(rx, sizeof(rx), run, 0);
	nn_client_addr(addr, sizeof(addr), t->family, 0);
	nn_host_set(&t->srv, ns, ifn, addr, rxe ? rx : "");
	for (k = 1; k <= t->nclients; k++) {
		nn_name_ns(ns, sizeof(ns), run, k);
		nn_name_veth(ifn, sizeof(ifn), run, 'c', k);
		nn_client_addr(addr, sizeof(addr), t->family, k);
		nn_name_rxe(rx, sizeof(rx), run, k);
		nn_host_set(&t->cli[k - 1], ns, ifn, addr, rxe ? rx : "");
	}
	return 0;
}

/* Is anything named prefix* a namespace, a link here, or an rdma device? */
static bool nn_prefix_used(const char *prefix)
{
	static const char *dirs[] = {NN_NS_DIR, NN_IB_DIR};
	size_t plen = strlen(prefix);
	struct if_nameindex *ifs, *i;
	bool used = false;
	struct dirent *de;
	unsigned int d;
	DIR *dir;

	for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]) && !used; d++) {
		dir = opendir(dirs[d]);
		if (!dir)
			continue;
		while ((de = readdir(dir)))
			if (!strncmp(de->d_name, prefix, plen))
				used = true;
		closedir(dir);
	}
	ifs = if_nameindex();
	if (!ifs)
		return true; /* cannot tell: pick another id */
	for (i = ifs; i->if_index; i++)
		if (!strncmp(i->if_name, prefix, plen))
			used = true;
	if_freenameindex(ifs);
	return used;
}

int nn_new_run(char run[8])
{
	char prefix[NN_NAME_MAX];
	uint16_t r;
	int tries;

	for (tries = 0; tries < 32; tries++) {
		if (getrandom(&r, sizeof(r), 0) != sizeof(r)) {
			fprintf(stderr, "netns: getrandom: %s\n", strerror(errno));
			return -1;
		}
		snprintf(run, 8, "%04x", r);
		snprintf(prefix, sizeof(prefix), NN_PREFIX "%s", run);
		if (!nn_prefix_used(prefix))
			return 0;
	}
	fprintf(stderr, "netns: no free run id after %d tries\n", tries);
	errno = EEXIST;
	return -1;
}
