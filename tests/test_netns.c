// SPDX-License-Identifier: MIT
/*
 * Unit tests of netns/ that need no privileges: topology specs, run ids, the names
 * and addresses of every object, sysctl/enter error paths, the command runner, the
 * shallow probe. TAP 13 on stdout; exit 0 when all pass, 1 otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "netns/netns.h"
#include "netns/nn.h"
#include "tap/tap.h"

/* results held back so that the plan can come first, as KTAP wants */
static struct tap tap;

static void test_parse_good(void)
{
	static const struct {
		const char *spec;
		enum nn_kind kind;
		int n;
	} good[] = {
		{"loop", NN_LOOP, 1},
		{"pair", NN_PAIR, 1},
		{"star:1", NN_STAR, 1},
		{"star:4", NN_STAR, 4},
		{"star:64", NN_STAR, NN_MAX_CLIENTS},
		{"star:007", NN_STAR, 7},
	};
	unsigned int i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct nn_topo t = {.kind = -1, .nclients = -1};
		char err[128] = "";
		int r = nn_parse(good[i].spec, &t, err, sizeof(err));

		tap_ok(&tap, r == 0 && t.kind == good[i].kind && t.nclients == good[i].n && !err[0],
		   "parse \"%s\" -> kind %d, %d clients", good[i].spec, good[i].kind, good[i].n);
	}
}

static void test_parse_bad(void)
{
	/* spec, a part of the message that must be there */
	static const struct {
		const char *spec, *want;
	} bad[] = {
		{"", "topology \"\": expected loop, pair, star:K or host"},
		{"mesh", "topology \"mesh\": expected loop, pair, star:K or host"},
		{"loopy", "expected loop, pair, star:K or host"},
		{"Pair", "expected loop, pair, star:K or host"},
		{"pair ", "expected loop, pair, star:K or host"},
		{"stars:4", "expected loop, pair, star:K or host"},
		{"star", "topology \"star\": star needs a client count"},
		{"star:", "topology \"star:\": star needs a client count"},
		{"star:0", "topology \"star:0\": K must be 1..64"},
		{"star:65", "topology \"star:65\": K must be 1..64"},
		{"star:99999999999999999999", "K must be 1..64"},
		{"star:-1", "topology \"star:-1\": K is not a number 1..64"},
		{"star:+4", "K is not a number"},
		{"star: 4", "K is not a number"},
		{"star:4x", "K is not a number"},
		{"star:0x4", "K is not a number"},
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nn_topo t = {0};
		char err[128] = "";
		int r = nn_parse(bad[i].spec, &t, err, sizeof(err));

		tap_ok(&tap, r == -1 && strstr(err, bad[i].want), "parse \"%s\" fails: %s", bad[i].spec, err);
	}
	{
		struct nn_topo t = {0};
		char err[8];

		tap_ok(&tap, nn_parse(NULL, &t, NULL, 0) == -1 &&
			   nn_parse("star:0", &t, err, sizeof(err)) == -1 &&
			   strlen(err) == sizeof(err) - 1,
		   "parse: NULL spec, NULL err, short err buffer are safe");
	}
}

static bool is_run(const char *r)
{
	return strlen(r) == 4 && strspn(r, "0123456789abcdef") == 4;
}

static void test_run_id(void)
{
	char run[8], first[8];
	int i, good = 1, differ = 0;

	for (i = 0; i < 64; i++) {
		if (nn_new_run(run) < 0 || !is_run(run))
			good = 0;
		if (!i)
			memcpy(first, run, sizeof(first));
		else if (strcmp(run, first))
			differ = 1;
	}
	tap_ok(&tap, good, "run id: 64 ids are 4 lowercase hex digits (last %s)", run);
	tap_ok(&tap, differ, "run id: ids are random, not all %s", first);
	tap_ok(&tap, nn_run_ok("0a9f") && !nn_run_ok("0A9F") && !nn_run_ok("abc") && !nn_run_ok("abcde") &&
		   !nn_run_ok("wxyz") && !nn_run_ok(""),
	   "run id: validation takes 4 lowercase hex only");
}

/* Every name: "rdc" + run first, fits its buffer, unique across the topology. */
static int check_names(const struct nn_topo *t, const char *run, char *why, size_t len)
{
	char prefix[16], seen[3 * (NN_MAX_CLIENTS + 1) + 2][NN_NAME_MAX];
	const struct nn_host *h;
	struct in_addr a, prev = {0};
	int i, j, n = 0;

	snprintf(prefix, sizeof(prefix), "rdc%s", run);
	for (i = 0; i <= t->nclients; i++) {
		h = i ? &t->cli[i - 1] : &t->srv;
		const char *names[] = {h->ns, h->ifname, h->rxe};

		for (j = 0; j < 3; j++) {
			size_t max = j ? 15 : NN_NAME_MAX - 1;

			if (!names[j][0] && (j != 2 || !t->rxe))
				continue;
			if (strncmp(names[j], prefix, strlen(prefix)) || strlen(names[j]) > max) {
				snprintf(why, len, "bad name \"%s\"", names[j]);
				return -1;
			}
			/* loop: both ends are one host; otherwise no name twice */
			if (t->kind != NN_LOOP || i == 0)
				snprintf(seen[n++], NN_NAME_MAX, "%s", names[j]);
		}
		if (inet_pton(AF_INET, h->addr, &a) != 1 ||
		    (ntohl(a.s_addr) >> 16) != ((10u << 8) | 222) ||
		    (i && ntohl(a.s_addr) <= ntohl(prev.s_addr))) {
			snprintf(why, len, "bad or repeated address \"%s\"", h->addr);
			return -1;
		}
		prev = a;
	}
	if (t->kind == NN_STAR) {
		char br[16], veth[16];

		nn_name_bridge(br, sizeof(br), run);
		if (strcmp(t->srv.ifname, br)) {
			snprintf(why, len, "server not on the bridge %s", br);
			return -1;
		}
		nn_name_veth(veth, sizeof(veth), run, 's', t->nclients);
		if (strncmp(veth, prefix, strlen(prefix)) || strlen(veth) > 15) {
			snprintf(why, len, "bad veth \"%s\"", veth);
			return -1;
		}
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (!strcmp(seen[i], seen[j])) {
				snprintf(why, len, "\"%s\" twice", seen[i]);
				return -1;
			}
	snprintf(why, len, "%d names", n);
	return 0;
}

static void test_plan(void)
{
	static const char *specs[] = {"pair", "star:1", "star:16", "star:64"};
	char why[128], run[8];
	struct nn_topo t;
	unsigned int i;
	int rxe;

	if (nn_new_run(run) < 0)
		snprintf(run, sizeof(run), "beef");
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		for (rxe = 0; rxe < 2; rxe++) {
			memset(&t, 0, sizeof(t));
			nn_parse(specs[i], &t, NULL, 0);
			tap_ok(&tap, nn_plan(&t, run, rxe) == 0 &&
				   check_names(&t, run, why, sizeof(why)) == 0 &&
				   !strcmp(t.srv.addr, "10.222.0.1") && t.srv.ns[0] &&
				   !!t.srv.rxe[0] == rxe && !strcmp(t.run, run) && t.rxe == rxe,
			   "plan %s%s: names and addresses (%s)", specs[i], rxe ? "+rxe" : "", why);
		}
	}

	memset(&t, 0, sizeof(t));
	nn_parse("star:64", &t, NULL, 0);
	nn_plan(&t, "ffff", true);
	tap_ok(&tap, !strcmp(t.srv.ns, "rdcffff-srv") && !strcmp(t.srv.ifname, "rdcffffbr") &&
		   !strcmp(t.srv.rxe, "rdcffffrs") && !strcmp(t.cli[63].ns, "rdcffff-c64") &&
		   !strcmp(t.cli[63].ifname, "rdcffffc64") &&
		   !strcmp(t.cli[63].rxe, "rdcffffr64") && !strcmp(t.cli[0].addr, "10.222.0.2") &&
		   !strcmp(t.cli[63].addr, "10.222.0.65"),
	   "plan star:64: documented names (%s %s %s %s)", t.srv.ns, t.cli[63].ns, t.cli[63].ifname,
	   t.cli[63].addr);

	memset(&t, 0, sizeof(t));
	nn_parse("pair", &t, NULL, 0);
	nn_plan(&t, "0001", false);
	tap_ok(&tap, !strcmp(t.srv.ifname, "rdc0001s1") && !strcmp(t.cli[0].ifname, "rdc0001c1") &&
		   !strcmp(t.cli[0].ns, "rdc0001-c1") && !strcmp(t.cli[0].addr, "10.222.0.2") &&
		   !t.cli[0].rxe[0],
	   "plan pair: veth rdc<run>s1/c1, client 10.222.0.2");

	memset(&t, 0, sizeof(t));
	nn_parse("loop", &t, NULL, 0);
	tap_ok(&tap, nn_plan(&t, "0002", false) == 0 && !t.srv.ns[0] && !strcmp(t.srv.addr, "127.0.0.1") &&
		   !strcmp(t.cli[0].addr, "127.0.0.1") && !t.srv.rxe[0],
	   "plan loop: 127.0.0.1 in the caller's namespace");
	tap_ok(&tap, nn_plan(&t, "0002", true) == 0 && !t.srv.ns[0] && !strcmp(t.srv.ifname, "rdc0002s0") &&
		   !strcmp(t.srv.rxe, "rdc0002rs") && !strcmp(t.cli[0].rxe, t.srv.rxe) &&
		   !strcmp(t.srv.addr, "10.222.0.1"),
	   "plan loop+rxe: one rxe on rdc<run>s0 shared by both ends");

	errno = 0;
	tap_ok(&tap, nn_plan(&t, "XYZ1", false) == -1 && errno == EINVAL, "plan: bad run id refused");
	t.kind = NN_PAIR;
	t.nclients = 2;
	tap_ok(&tap, nn_plan(&t, "0003", false) == -1, "plan: pair with 2 clients refused");
	t.kind = NN_STAR;
	t.nclients = NN_MAX_CLIENTS + 1;
	tap_ok(&tap, nn_plan(&t, "0003", false) == -1, "plan: star beyond NN_MAX_CLIENTS refused");
}

static void test_addr_scheme(void)
{
	char a[16];
	int good = 1, k;

	for (k = 1; k <= 1000; k++) {
		char want[32];

		nn_client_addr(a, sizeof(a), AF_INET, k);
		snprintf(want, sizeof(want), "10.222.%d.%d", (k + 1) / 256, (k + 1) % 256);
		if (strcmp(a, want))
			good = 0;
	}
	nn_client_addr(a, sizeof(a), AF_INET, 254);
	tap_ok(&tap, good && !strcmp(a, "10.222.0.255"), "client address k is host k+1 of 10.222/16");
	nn_client_addr(a, sizeof(a), AF_INET6, 254);
	tap_ok(&tap, !strcmp(a, "fd7a:222::ff"), "IPv6: client address k is host k+1 of fd7a:222::/64");
}

/* every run's veths have ifindexes no other run's have, above lo's 1, in an int */
static void test_ifindex(void)
{
	static const char *const runs[] = { "0000", "0001", "00ff", "0100", "beef", "ffff" };
	unsigned long seen[6 * NN_MAX_CLIENTS], x;
	int n = 0, good = 1, i, j, k;

	for (i = 0; i < 6; i++)
		for (k = 1; k <= NN_MAX_CLIENTS; k++) {
			x = nn_ifindex(runs[i], k);
			if (x <= 1 || x > INT_MAX)
				good = 0;
			for (j = 0; j < n; j++)
				if (seen[j] == x)
					good = 0;
			seen[n++] = x;
		}
	tap_ok(&tap, good && nn_ifindex("0000", 1) == 257 && nn_ifindex("ffff", 64) == 0x1000040,
	       "ifindex: %d veths of 6 runs, each its own (0000/1: %lu)", n, nn_ifindex("0000", 1));
}

static void test_enter_sysctl(void)
{
	char v[64] = "";

	tap_ok(&tap, nn_enter("") == 0 && nn_enter(NULL) == 0, "enter \"\": stays");
	errno = 0;
	tap_ok(&tap, nn_enter("rdc-no-such-ns") == -1 && errno == ENOENT,
	   "enter a missing namespace: ENOENT");
	errno = 0;
	tap_ok(&tap, nn_enter("../etc") == -1 && errno == EINVAL, "enter a path: EINVAL");
	tap_ok(&tap, nn_sysctl_get("", "net.core.somaxconn", v, sizeof(v)) == 0 && atoi(v) > 0 &&
		   !strchr(v, '\n'),
	   "sysctl get net.core.somaxconn here: \"%s\"", v);
	tap_ok(&tap, nn_sysctl_get("", "net/ipv4/ip_local_port_range", v, sizeof(v)) == 0 && strchr(v, '\t'),
	   "sysctl get by /-key keeps inner tabs: \"%s\"", v);
	fprintf(stderr, "# next: three expected netns errors\n");
	tap_ok(&tap, nn_sysctl_get("", "net.core.no_such_key", v, sizeof(v)) == -1 && errno == ENOENT,
	   "sysctl get missing key: ENOENT");
	tap_ok(&tap, nn_sysctl_get("rdc-no-such-ns", "net.core.somaxconn", v, sizeof(v)) == -1 &&
		   errno == ENOENT,
	   "sysctl get in a missing namespace: ENOENT");
	tap_ok(&tap, nn_sysctl_get("", "net.core.somaxconn", v, 2) == -1 && errno == ENOSPC,
	   "sysctl get into a short buffer: ENOSPC");
}

static void test_exec(void)
{
	struct nn_cmd c[3] = {
		{.argv = {"cat", NULL}, .input = "one\ntwo\n", .capture = true},
		{.argv = {"ip", "-V", NULL}, .capture = true},
		{.argv = {"cat", NULL}, .capture = true},
	};
	size_t big = 1 << 20;
	char *in = malloc(big + 1);
	int r;

	r = nn_cmd_run(c, 2, NULL);
	tap_ok(&tap, r == 0 && !strcmp(c[0].output, "one\ntwo\n") && strstr(c[1].output, "iproute2"),
	   "exec: stdin script and captured stdout, two at once");
	nn_cmd_free(c, 2);

	/* More than a pipe holds both ways: the runner must drain while it waits. */
	memset(in, 'x', big);
	in[big] = '\0';
	c[2].input = in;
	r = nn_cmd_run(&c[2], 1, NULL);
	tap_ok(&tap, r == 0 && c[2].output && strlen(c[2].output) == big,
	   "exec: 1 MiB through stdin and stdout");
	nn_cmd_free(&c[2], 1);
	free(in);

	fprintf(stderr, "# next: three expected netns errors\n");
	{
		struct nn_cmd f[3] = {
			{.argv = {"false", NULL}},
			{.argv = {"rdc-no-such-tool", NULL}},
			{.ns = "rdc-no-such-ns", .argv = {"true", NULL}},
		};

		tap_ok(&tap, nn_cmd_run(&f[0], 1, NULL) == -1 && WEXITSTATUS(f[0].status) == 1,
		   "exec: exit status 1 fails");
		tap_ok(&tap, nn_cmd_run(&f[1], 1, NULL) == -1, "exec: a missing tool fails");
		tap_ok(&tap, nn_cmd_run(&f[2], 1, NULL) == -1, "exec: a missing namespace fails");
	}
	{
		struct nn_cmd s = {.argv = {"true", NULL}};

		tap_ok(&tap, nn_cmd_run(&s, 1, NULL) == 0, "exec: true succeeds");
	}
}

static void test_probe(void)
{
	struct nn_caps c;
	struct utsname u;
	int r;

	uname(&u);
	memset(&c, 0xff, sizeof(c));
	r = nn_probe(&c, false, NULL);
	tap_ok(&tap, r == 0 && !strcmp(c.kernel, u.release) && c.kmajor >= 3, "probe: kernel %s (%d.%d)",
	   c.kernel, c.kmajor, c.kminor);
	tap_ok(&tap, c.root || c.why_netns[0], "probe: root=%d netns=%d why_netns=\"%s\"", c.root, c.netns,
	   c.why_netns);
	tap_ok(&tap, c.rxe_module || c.why_rxe[0], "probe: rxe_module=%d why_rxe=\"%s\"", c.rxe_module,
	   c.why_rxe);
	tap_ok(&tap, c.rxe_netns || c.why_rxe_netns[0], "probe: rxe_netns=%d why=\"%s\"", c.rxe_netns,
	   c.why_rxe_netns);
	tap_ok(&tap, (c.kmajor > 7 || (c.kmajor == 7 && c.kminor >= 1)) || !c.rxe_netns,
	   "probe: no rxe in netns claimed before 7.1");
	tap_diag(&tap, "ip=%d rdma=%d", c.ip_tool, c.rdma_tool);
}

int main(void)
{
	struct tap_hold h;

	if (tap_hold_begin(&tap, &h)) {
		perror("open_memstream");
		return 1;
	}
	test_parse_good();
	test_parse_bad();
	test_run_id();
	test_plan();
	test_addr_scheme();
	test_ifindex();
	test_enter_sysctl();
	test_exec();
	test_probe();
	return tap_hold_end(&tap, &h, stdout);
}
