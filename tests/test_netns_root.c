// SPDX-License-Identifier: MIT
/*
 * netns/ against the real kernel; needs root and the --root flag (tests/netns.t):
 *
 *   test_netns_root --root [SPEC...]     default specs: pair star:3
 *
 * For every spec: nn_up, the namespaces/addresses/links are there (asked of `ip`),
 * TCP from every client namespace reaches a listener in the server namespace and
 * arrives from the client's own address, namespaced sysctls, nn_down kills a
 * process left inside and leaves no rdc<run> object. Then: a failed nn_up undoes
 * itself, nn_clean removes the topology of a SIGKILLed process, the deep probe
 * cleans up after itself, and (where rdma_rxe exists) rxe links reach ACTIVE and
 * go away. Timings of nn_up/nn_down are printed as diagnostics.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <limits.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "netns/netns.h"
#include "netns/nn.h"
#include "tap/tap.h"

#define PORT 18515

/* results held back so that the plan can come first, as KTAP wants */
static struct tap tap;

static void skip(const char *desc, const char *why)
{
	tap_result(&tap, TAP_SKIP, why, "%s", desc);
}

/* stdout of one ip/rdma command run in 'ns'; NULL when it fails. */
static char *cmd_out(const char *ns, const char *a0, const char *a1, const char *a2, const char *a3,
		     const char *a4, const char *a5)
{
	struct nn_cmd c = {.ns = ns, .capture = true, .argv = {a0, a1, a2, a3, a4, a5, NULL}};
	char *out;

	if (nn_cmd_run(&c, 1, NULL) < 0) {
		nn_cmd_free(&c, 1);
		return NULL;
	}
	out = c.output;
	c.output = NULL;
	return out;
}

/* Objects named prefix*: namespaces, links in init_net, rdma devices. */
static int count_prefix(const char *prefix, char *what, size_t len)
{
	struct nn_list l = {0};
	struct dirent *de;
	DIR *d;
	int n;

	what[0] = '\0';
	nn_ns_list(prefix, &l);
	nn_ns_links("", prefix, &l);
	d = opendir(NN_IB_DIR);
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			nn_list_add(&l, de->d_name);
	if (d)
		closedir(d);
	if (l.n)
		snprintf(what, len, "%s", l.v[0]);
	n = l.n;
	nn_list_free(&l);
	return n;
}

static long long ms_since(long long t0)
{
	return nn_now_ms() - t0;
}

/*
 * A child stuck inside 'ns', like an agent a crashed harness left behind.
 * Returns once it is inside.
 */
static pid_t sleeper(const char *ns)
{
	int p[2];
	pid_t pid;
	char b;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (nn_enter(ns) < 0 || write(p[1], "x", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &b, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* Was it killed by 'sig'? Kills and reaps it in any case. */
static bool killed_by(pid_t pid, int sig)
{
	int st;

	if (pid <= 0)
		return false;
	if (waitpid(pid, &st, WNOHANG) == pid)
		return WIFSIGNALED(st) && WTERMSIG(st) == sig;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return false;
}

static void check_hosts(const struct nn_topo *t)
{
	char *list = cmd_out("", "ip", "netns", "list", NULL, NULL, NULL);
	int k, nsok = list != NULL, addrok = 1, upok = 1;
	char bad[128] = "";

	for (k = 0; k <= t->nclients; k++) {
		const struct nn_host *h = k ? &t->cli[k - 1] : &t->srv;
		char want[64], *a, *l;

		if (!list || !strstr(list, h->ns)) {
			nsok = 0;
			snprintf(bad, sizeof(bad), "%s", h->ns);
		}
		a = cmd_out(h->ns, "ip", "-4", "-o", "addr", "show", h->ifname);
		l = cmd_out(h->ns, "ip", "-o", "link", "show", h->ifname, NULL);
		snprintf(want, sizeof(want), "inet %s/16 ", h->addr);
		if (!a || !strstr(a, want)) {
			addrok = 0;
			snprintf(bad, sizeof(bad), "%s in %s", want, h->ns);
		}
		if (!l || !strstr(l, "state UP")) {
			upok = 0;
			snprintf(bad, sizeof(bad), "%s in %s not UP", h->ifname, h->ns);
		}
		free(a);
		free(l);
		l = cmd_out(h->ns, "ip", "-o", "link", "show", "lo", NULL);
		if (!l || !strstr(l, ",UP")) {
			upok = 0;
			snprintf(bad, sizeof(bad), "lo in %s not up", h->ns);
		}
		free(l);
	}
	free(list);
	tap_ok(&tap, nsok, "%s: ip netns list shows all %d namespaces %s", t->srv.ns, t->nclients + 1, bad);
	tap_ok(&tap, addrok, "%s: every host has its /16 address %s", t->srv.ns, bad);
	tap_ok(&tap, upok, "%s: every address carrier and lo are UP %s", t->srv.ns, bad);
}

/* Accepts n connections in the server namespace, echoes a byte, reports peers. */
static pid_t tcp_server(const struct nn_topo *t, int n, int rfd, int wfd)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(PORT)};
	int s, c, one = 1, i;
	pid_t pid;
	char b;

	pid = fork();
	if (pid)
		return pid;
	close(rfd);
	alarm(20);
	inet_pton(AF_INET, t->srv.addr, &sa.sin_addr);
	if (nn_enter(t->srv.ns) < 0 || (s = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 128) < 0) {
		dprintf(wfd, "error %s\n", strerror(errno));
		_exit(1);
	}
	dprintf(wfd, "ready\n");
	for (i = 0; i < n; i++) {
		struct sockaddr_in peer;
		socklen_t len = sizeof(peer);
		char a[16];

		c = accept(s, (struct sockaddr *)&peer, &len);
		if (c < 0 || read(c, &b, 1) != 1 || write(c, &b, 1) != 1)
			_exit(1);
		inet_ntop(AF_INET, &peer.sin_addr, a, sizeof(a));
		dprintf(wfd, "peer %s\n", a);
		close(c);
	}
	_exit(0);
}

static pid_t tcp_client(const struct nn_host *h, const char *srv)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(PORT)};
	struct timeval tv = {5, 0};
	pid_t pid;
	char b = 'x';
	int s;

	pid = fork();
	if (pid)
		return pid;
	inet_pton(AF_INET, srv, &sa.sin_addr);
	if (nn_enter(h->ns) < 0 || (s = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || write(s, &b, 1) != 1 ||
	    read(s, &b, 1) != 1 || b != 'x')
		_exit(1);
	_exit(0);
}

static void check_tcp(const struct nn_topo *t)
{
	int p[2], k, good = 1, st, peers = 0;
	char line[128], seen[NN_MAX_CLIENTS + 1] = {0};
	pid_t srv, cli[NN_MAX_CLIENTS];
	FILE *f;

	if (pipe(p) < 0) {
		tap_ok(&tap, 0, "pipe: %s", strerror(errno));
		return;
	}
	srv = tcp_server(t, t->nclients, p[0], p[1]);
	close(p[1]);
	f = fdopen(p[0], "r");
	if (!f || !fgets(line, sizeof(line), f) || strcmp(line, "ready\n")) {
		tap_ok(&tap, 0, "%s: TCP listener on %s:%d: %s", t->srv.ns, t->srv.addr, PORT,
		   f ? line : "fdopen");
		kill(srv, SIGKILL);
		waitpid(srv, NULL, 0);
		if (f)
			fclose(f);
		return;
	}
	for (k = 0; k < t->nclients; k++)
		cli[k] = tcp_client(&t->cli[k], t->srv.addr);
	for (k = 0; k < t->nclients; k++)
		if (waitpid(cli[k], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			good = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		for (k = 0; k < t->nclients; k++)
			if (!strcmp(line + 5, t->cli[k].addr) && !seen[k]) {
				seen[k] = 1;
				peers++;
			}
	}
	fclose(f);
	if (waitpid(srv, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		good = 0;
	tap_ok(&tap, good && peers == t->nclients,
	   "%s: TCP echo from each of %d client namespaces to %s, from its own address (%d seen)",
	   t->srv.ns, t->nclients, t->srv.addr, peers);
}

static void check_sysctl(const struct nn_topo *t)
{
	char here[64] = "", v[64] = "", r[64] = "";

	nn_sysctl_get("", "net.core.somaxconn", here, sizeof(here));
	tap_ok(&tap, nn_sysctl_set(t->srv.ns, "net.core.somaxconn", "65535") == 0 &&
		   nn_sysctl_get(t->srv.ns, "net.core.somaxconn", v, sizeof(v)) == 0 &&
		   !strcmp(v, "65535") &&
		   nn_sysctl_get("", "net.core.somaxconn", r, sizeof(r)) == 0 && !strcmp(r, here),
	   "%s: somaxconn 65535 inside, \"%s\" outside unchanged", t->srv.ns, r);
	tap_ok(&tap, nn_sysctl_set(t->cli[0].ns, "net.ipv4.ip_local_port_range", "1024 65535") == 0 &&
		   nn_sysctl_get(t->cli[0].ns, "net.ipv4.ip_local_port_range", v, sizeof(v)) == 0 &&
		   !strcmp(v, "1024\t65535"),
	   "%s: ip_local_port_range \"1024 65535\" set in the client namespace", t->cli[0].ns);
}

static void topo_test(const char *spec)
{
	char run[8], prefix[16], err[128], what[64];
	long long t0, up_ms, down_ms;
	struct nn_topo t = {0};
	pid_t orphan;

	if (nn_parse(spec, &t, err, sizeof(err)) < 0 || nn_new_run(run) < 0) {
		tap_ok(&tap, 0, "%s: %s", spec, err);
		return;
	}
	snprintf(prefix, sizeof(prefix), "rdc%s", run);
	t0 = nn_now_ms();
	tap_ok(&tap, nn_up(&t, run, false, NULL) == 0 && t.up, "%s: nn_up %s", spec, prefix);
	up_ms = ms_since(t0);
	if (!t.up)
		return;
	if (t.kind == NN_LOOP) {
		tap_ok(&tap, count_prefix(prefix, what, sizeof(what)) == 0 &&
			   !strcmp(t.srv.addr, "127.0.0.1"),
		   "loop: nothing created, 127.0.0.1");
	} else {
		check_hosts(&t);
		check_tcp(&t);
		check_sysctl(&t);
	}

	if (t.kind != NN_LOOP) {
		char script[128];

		/* Not in the run's link group, both ends in one namespace: by name. */
		snprintf(script, sizeof(script), "link add %sx type veth peer name %sy\n", prefix,
			 prefix);
		fprintf(stderr, "# next: an expected ip error (veth end gone with its peer)\n");
		tap_ok(&tap, nn_batch(t.srv.ns, "ip", script, false, NULL) == 0,
		   "%s: extra links outside the run's group in %s", spec, t.srv.ns);
	}
	orphan = t.kind == NN_LOOP ? -1 : sleeper(t.cli[t.nclients - 1].ns);
	t0 = nn_now_ms();
	tap_ok(&tap, nn_down(&t, NULL) == 0 && !t.up, "%s: nn_down", spec);
	down_ms = ms_since(t0);
	tap_ok(&tap, count_prefix(prefix, what, sizeof(what)) == 0,
	   "%s: no %s* namespace, link or rdma device left %s", spec, prefix, what);
	if (t.kind != NN_LOOP)
		tap_ok(&tap, killed_by(orphan, SIGTERM), "%s: nn_down SIGTERMed the process left in %s", spec,
		   t.cli[t.nclients - 1].ns);
	tap_diag(&tap, "time %s: nn_up %lld ms, nn_down %lld ms", spec, up_ms, down_ms);
}

static void undo_test(void)
{
	struct nn_topo t = {0};
	char run[8], prefix[16], ns[32], what[64], script[64];

	nn_parse("star:3", &t, NULL, 0);
	nn_new_run(run);
	snprintf(prefix, sizeof(prefix), "rdc%s", run);
	/* c2 already exists: the batch fails after making srv and c1. */
	snprintf(ns, sizeof(ns), "%s-c2", prefix);
	snprintf(script, sizeof(script), "netns add %s\n", ns);
	nn_batch("", "ip", script, false, NULL);
	fprintf(stderr, "# next: expected netns errors (nn_up into an existing namespace)\n");
	tap_ok(&tap, nn_up(&t, run, false, NULL) == -1 && !t.up, "undo: nn_up fails on a name clash");
	tap_ok(&tap, count_prefix(prefix, what, sizeof(what)) == 0,
	   "undo: the failed nn_up left no %s* object %s", prefix, what);
}

static void clean_test(void)
{
	char run[8], prefix[16], what[64], ns[32];
	int removed = -1, st, n;
	struct nn_topo t = {0};
	pid_t pid, orphan;

	/* nn_clean removes every rdc* object: never someone else's live run. */
	n = count_prefix(NN_PREFIX, what, sizeof(what));
	if (n) {
		char why[128];

		snprintf(why, sizeof(why), "%d rdc* objects of another run on this host (%s)", n,
			 what);
		skip("clean: nn_clean after SIGKILL", why);
		return;
	}
	nn_parse("star:2", &t, NULL, 0);
	nn_new_run(run);
	snprintf(prefix, sizeof(prefix), "rdc%s", run);
	pid = fork();
	if (pid == 0) {
		if (nn_up(&t, run, false, NULL) == 0)
			raise(SIGKILL);
		_exit(1);
	}
	waitpid(pid, &st, 0);
	n = count_prefix(prefix, what, sizeof(what));
	tap_ok(&tap, WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && n == 3,
	   "clean: a SIGKILLed process left star:2 behind (%d objects)", n);
	snprintf(ns, sizeof(ns), "%s-c1", prefix);
	orphan = sleeper(ns);
	tap_ok(&tap, nn_clean(NULL, &removed) == 0, "clean: nn_clean succeeds");
	/* 3 namespaces, 2 veth pairs, 1 bridge; more if someone else left rdc* */
	tap_ok(&tap, removed >= 6, "clean: removed %d objects (>= 6)", removed);
	n = count_prefix(NN_PREFIX, what, sizeof(what));
	tap_ok(&tap, n == 0, "clean: no rdc* object on the host (%d: %s)", n, what);
	tap_ok(&tap, killed_by(orphan, SIGTERM), "clean: the process left in %s was killed", ns);
	removed = -1;
	st = nn_clean(NULL, &removed);
	tap_ok(&tap, st == 0 && removed == 0, "clean: a second nn_clean finds nothing (removed %d)", removed);
}

static void probe_test(struct nn_caps *c)
{
	struct nn_list l = {0};
	int i, left = 0;

	tap_ok(&tap, nn_probe(c, true, NULL) == 0 && c->root && c->ip_tool && c->netns,
	   "probe deep: root, ip, namespaces (%s)", c->why_netns);
	nn_ns_list(NN_PREFIX, &l);
	for (i = 0; i < l.n; i++)
		left += strstr(l.v[i], "-probe") != NULL;
	tap_ok(&tap, !left, "probe deep: no rdc*-probe namespace left (%d)", left);
	nn_list_free(&l);
	tap_diag(&tap, "probe: kernel %s rxe_module=%d (%s) rxe_netns=%d (%s)", c->kernel, c->rxe_module,
	     c->why_rxe, c->rxe_netns, c->why_rxe_netns);
}

/* A process in 'ns' running argv with a deadline. */
static pid_t spawn_in(const char *ns, char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		/* stdout is the TAP stream */
		if (nn_enter(ns) < 0 || dup2(2, 1) < 0)
			_exit(99);
		alarm(30);
		execvp(argv[0], argv);
		_exit(98);
	}
	return pid;
}

/* RDMA traffic (rdma_cm, RC, RDMA read/write) from the last client to the server. */
static void rping_test(const struct nn_topo *t, const char *spec)
{
	const struct nn_host *h = &t->cli[t->nclients - 1];
	char *srv[] = {"rping", "-s", "-a", (char *)t->srv.addr, "-C", "10", NULL};
	char *cli[] = {"rping", "-c", "-a", (char *)t->srv.addr, "-C", "10", NULL};
	char path[PATH_MAX];
	int sst = -1, cst = -1, i;
	pid_t s, c;

	if (nn_which("rping", path, sizeof(path)) < 0) {
		skip("rxe: rping across the topology", "rping (rdmacm-utils) not installed");
		return;
	}
	s = spawn_in(t->srv.ns, srv);
	/* rping has no "listening" signal: retry the client while the server starts. */
	for (i = 0; i < 20; i++) {
		c = spawn_in(h->ns, cli);
		waitpid(c, &cst, 0);
		if (WIFEXITED(cst) && !WEXITSTATUS(cst))
			break;
		nn_sleep_ms(250);
	}
	waitpid(s, &sst, 0);
	tap_ok(&tap, WIFEXITED(cst) && !WEXITSTATUS(cst) && WIFEXITED(sst) && !WEXITSTATUS(sst),
	   "rxe: %s: rping %s -> %s over %s, 10 iterations", spec, h->addr, t->srv.addr,
	   t->srv.rxe);
}

static void rxe_test(const struct nn_caps *c, const char *spec)
{
	char run[8], st[64] = "", path[128], what[64];
	struct nn_topo t = {0};
	long long t0, up_ms, down_ms;
	char *text = NULL, *p_rxe, *p_link, *p_ns;
	int k, active = 1;
	size_t len = 0;
	FILE *log;

	if (!c->rxe_module) {
		char err[32];

		skip("rxe: nn_up with rxe", c->why_rxe);
		nn_parse(spec, &t, err, sizeof(err));
		nn_new_run(run);
		fprintf(stderr, "# next: expected netns error (rxe without RDMA)\n");
		snprintf(path, sizeof(path), "rdc%s", run);
		if (!nn_rdma_present())
			tap_ok(&tap, nn_up(&t, run, true, NULL) == -1 &&
				   count_prefix(path, what, sizeof(what)) == 0,
			   "rxe: nn_up %s+rxe without RDMA fails and makes nothing", spec);
		return;
	}
	if (strcmp(spec, "loop") && !c->rxe_netns) {
		skip("rxe: nn_up with rxe in namespaces", c->why_rxe_netns);
		return;
	}
	nn_parse(spec, &t, NULL, 0);
	nn_new_run(run);
	t0 = nn_now_ms();
	tap_ok(&tap, nn_up(&t, run, true, NULL) == 0, "rxe: nn_up %s+rxe", spec);
	up_ms = ms_since(t0);
	for (k = 0; k <= t.nclients && t.up; k++) {
		const struct nn_host *h = k ? &t.cli[k - 1] : &t.srv;
		FILE *f;

		snprintf(path, sizeof(path), NN_IB_DIR "/%s/ports/1/state", h->rxe);
		f = fopen(path, "r");
		if (!f || !fgets(st, sizeof(st), f) || !strstr(st, "ACTIVE"))
			active = 0;
		if (f)
			fclose(f);
	}
	tap_ok(&tap, t.up && active, "rxe: %s: every rxe port ACTIVE", spec);
	if (t.up && active)
		rping_test(&t, spec);
	if (t.up && t.kind == NN_LOOP) {
		struct nn_topo t2 = {0};
		char run2[8];

		nn_parse("loop", &t2, NULL, 0);
		nn_new_run(run2);
		fprintf(stderr, "# next: expected netns error (second loop+rxe)\n");
		tap_ok(&tap, nn_up(&t2, run2, true, NULL) == -1 && !t2.up &&
			   nn_rxe_wait_active((const char(*)[NN_IFNAMSIZ])t.srv.rxe, 1, 1000) == 0,
		   "rxe: a second loop+rxe is refused, the first stays ACTIVE");
	}
	log = open_memstream(&text, &len);
	t0 = nn_now_ms();
	tap_ok(&tap, log && nn_down(&t, log) == 0, "rxe: nn_down %s+rxe", spec);
	down_ms = ms_since(t0);
	if (log)
		fclose(log);
	/* The order is the contract: rxe gone first, then links, then namespaces. */
	snprintf(path, sizeof(path), "link delete %s\n", t.srv.rxe);
	p_rxe = text ? strstr(text, path) : NULL;
	p_link = text ? strstr(text, "link del group") : NULL;
	p_ns = text ? strstr(text, "netns del") : NULL;
	tap_ok(&tap, p_rxe && p_link && p_rxe < p_link && (t.kind == NN_LOOP || (p_ns && p_link < p_ns)),
	   "rxe: %s: nn_down deletes rxe links, then links, then namespaces", spec);
	free(text);
	tap_diag(&tap, "time %s+rxe: nn_up %lld ms, nn_down %lld ms", spec, up_ms, down_ms);
	snprintf(path, sizeof(path), "rdc%s", run);
	tap_ok(&tap, count_prefix(path, what, sizeof(what)) == 0, "rxe: %s: nothing left %s", spec, what);
}

/*
 * Other runs may share this host: give this test its own /run/netns (a tmpfs in a
 * private mount namespace), so nn_clean sees only our namespaces. Everything else
 * (ip, the kernel, links, rxe) is the real thing.
 */
static int private_netns_dir(void)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0 ||
	    (mkdir(NN_NS_DIR, 0755) < 0 && errno != EEXIST) ||
	    mount("tmpfs", NN_NS_DIR, "tmpfs", 0, "mode=0755") < 0) {
		fprintf(stderr, "test: private " NN_NS_DIR ": %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* the whole stream skipped, for a reason known before any test */
static int skip_all(const char *why)
{
	tap_init(&tap, stdout);
	tap_skip_all(&tap, "%s", why);
	return TAP_EXIT_SKIP;
}

int main(int argc, char **argv)
{
	static const char *def[] = {"pair", "star:3", "loop"};
	struct tap_hold h;
	struct nn_caps c;
	int i;

	if (argc < 2 || strcmp(argv[1], "--root"))
		return skip_all("needs --root (tests/netns.t runs it as root)");
	if (geteuid() != 0)
		return skip_all("not root");
	if (private_netns_dir() < 0)
		return skip_all("cannot make a private " NN_NS_DIR);
	if (tap_hold_begin(&tap, &h))
		return 1;
	if (argc > 2) {
		for (i = 2; i < argc; i++)
			topo_test(argv[i]);
	} else {
		for (i = 0; i < 3; i++)
			topo_test(def[i]);
		undo_test();
		clean_test();
		probe_test(&c);
		rxe_test(&c, "loop");
		rxe_test(&c, "pair");
		rxe_test(&c, "star:3");
	}
	return tap_hold_end(&tap, &h, stdout);
}
