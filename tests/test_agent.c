// SPDX-License-Identifier: MIT
/*
 * Unit tests of rdmacap-agent's parts: histogram encoding, payloads, the load
 * engine's scheduling, the stdin command reader and the command line. Prints
 * TAP 13 itself so it depends on agents/ only.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/ctl.h"
#include "agents/load.h"
#include "agents/opts.h"
#include "common/proto.h"
#include "tap/tap.h"

static struct tap tap;

/* records go to a memfd so they can be checked and stay off the TAP stream */
static int t_rec;

static char *t_records(void)
{
	static char buf[65536];
	ssize_t r = pread(t_rec, buf, sizeof(buf) - 1, 0);

	buf[r > 0 ? r : 0] = '\0';
	return buf;
}

static void t_records_reset(void)
{
	if (ftruncate(t_rec, 0) || lseek(t_rec, 0, SEEK_SET))
		perror("reset records");
}

static uint64_t t_rng = 88172645463325252ull;

static uint64_t t_rand(void)
{
	t_rng ^= t_rng << 13;
	t_rng ^= t_rng >> 7;
	t_rng ^= t_rng << 17;
	return t_rng;
}

static void test_hist(void)
{
	static struct proto_hist h, d;
	static char buf[PROTO_HIST_STR_MAX];
	static const char *bad[] = {
		"", "1", "1:", "1:0", ":1", "1:1,", "2:1,1:1", "3:1,3:1", "01:1",
		"1:01", "975:1x", "976:1", "1:18446744073709551616", "-1:1", "1:-1",
		"1:1 ,2:1", "0:18446744073709551615,1:1",
	};
	unsigned i, b;
	uint64_t v;
	int n, good = 1;

	n = proto_hist_encode(&h, buf, sizeof(buf));
	tap_ok(&tap, n == 1 && !strcmp(buf, "-") && !proto_hist_decode("-", &d) && !d.total,
	     "hist: empty encodes as '-' and decodes back");

	for (i = 0; i < 100000; i++)
		proto_hist_add(&h, t_rand() >> (t_rand() % 64));
	proto_hist_add(&h, 0);
	proto_hist_add(&h, UINT64_MAX);
	n = proto_hist_encode(&h, buf, sizeof(buf));
	tap_ok(&tap, n > 0 && !proto_hist_decode(buf, &d) && !memcmp(&h, &d, sizeof(h)),
	     "hist: 100002 values encode and decode to the same buckets (%d chars)", n);
	tap_ok(&tap, proto_hist_encode(&h, buf, (size_t)n) == -1 &&
	     proto_hist_encode(&h, buf, (size_t)n + 1) == n,
	     "hist: encode refuses a buffer one byte short");

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!proto_hist_decode(bad[i], &d)) {
			tap_diag(&tap, "accepted malformed histogram '%s'", bad[i]);
			good = 0;
		}
	tap_ok(&tap, good, "hist: decode rejects %zu malformed strings", sizeof(bad) / sizeof(bad[0]));

	/* the proto.h mapping: every value falls in [value(b), value(b + 1)) */
	good = 1;
	for (i = 0; i < 200000 && good; i++) {
		v = i < 1000 ? i : t_rand() >> (t_rand() % 64);
		b = proto_hist_bucket(v);
		if (b >= PROTO_HIST_BUCKETS || proto_hist_value(b) > v ||
		    (b + 1 < PROTO_HIST_BUCKETS && proto_hist_value(b + 1) <= v)) {
			tap_diag(&tap, "value %llu -> bucket %u", (unsigned long long)v, b);
			good = 0;
		}
	}
	tap_ok(&tap, good, "hist: proto_hist_bucket/value bracket every value");
}

static void test_payload(void)
{
	uint8_t whole[4099], part[4099];
	size_t off, len, at;
	int same = 1;

	load_payload(7, 3, 0, whole, sizeof(whole));
	for (off = 0; off < sizeof(whole); off += len) {
		len = 1 + t_rand() % 37;
		if (off + len > sizeof(whole))
			len = sizeof(whole) - off;
		load_payload(7, 3, off, part + off, len);
	}
	tap_ok(&tap, !memcmp(whole, part, sizeof(whole)),
	     "payload: generated in odd pieces equals generated whole");
	tap_ok(&tap, load_payload_check(7, 3, 0, whole, sizeof(whole)) == sizeof(whole) &&
	     load_payload_check(7, 3, 1000, whole + 1000, 77) == 77,
	     "payload: check accepts the payload, also from an offset");

	load_payload(7, 4, 0, part, sizeof(part));
	at = load_payload_check(7, 3, 0, part, sizeof(part));
	load_payload(8, 3, 0, part, sizeof(part));
	tap_ok(&tap, at < 8 && load_payload_check(7, 3, 0, part, sizeof(part)) < 8,
	     "payload: another seq or id is rejected within the first word");

	for (off = 0; off < sizeof(whole) && same; off += 1 + off / 3) {
		whole[off] ^= 1u << (off % 8);
		at = load_payload_check(7, 3, 0, whole, sizeof(whole));
		whole[off] ^= 1u << (off % 8);
		same = at == off;
	}
	tap_ok(&tap, same, "payload: a single flipped bit is found at its byte");
}

/* fake transport: remembers the order of starts and what is in flight */
struct t_tr {
	uint32_t started[64], nstarted;
	uint32_t inflight, peak;
	int fail_idx;
	struct load *l;
};

static void t_start(void *arg, uint32_t idx)
{
	struct t_tr *t = arg;

	if (t->nstarted < 64)
		t->started[t->nstarted] = idx;
	t->nstarted++;
	if ((int)idx == t->fail_idx) {
		load_fail(t->l, idx, "send", EPIPE, NULL);
		return;
	}
	if (++t->inflight > t->peak)
		t->peak = t->inflight;
}

static const struct load_ops t_ops = { .start = t_start };

/* answer the in-flight round trip of idx with its exact echo, in two pieces */
static int t_echo(struct load *l, struct t_tr *t, uint32_t idx, int corrupt)
{
	uint8_t buf[256];
	uint32_t size = l->cfg.size;

	load_payload(l->cfg.first_id + idx, load_seq(l, idx), 0, buf, size);
	if (corrupt)
		buf[size - 1] ^= 0x40;
	t->inflight--;
	if (load_rx(l, idx, buf, size / 2))
		return -1;
	return load_rx(l, idx, buf + size / 2, size - size / 2);
}

static void test_load_workers(void)
{
	static struct load l;
	struct load_cfg cfg = { .nconn = 5, .first_id = 100, .msgs = 2, .size = 33,
				.workers = 2, .timeout_s = 10 };
	struct t_tr t = { .fail_idx = -1, .l = &l };
	uint32_t i, rounds = 0;

	if (load_init(&l, &cfg, &t_ops, &t)) {
		tap_ok(&tap, 0, "load: init");
		return;
	}
	/* connection 2 never came up: it must get no traffic */
	load_attach(&l, 0);
	load_attach(&l, 1);
	load_attach(&l, 3);
	load_attach(&l, 4);
	load_run(&l);
	tap_ok(&tap, t.nstarted == 2 && t.inflight == 2,
	     "load: --workers 2 starts 2 round trips (%u)", t.nstarted);
	/* complete the oldest in-flight one each time, like a FIFO network */
	while (!load_finished(&l) && rounds++ < 100) {
		i = t.started[t.nstarted - t.inflight];
		if (t_echo(&l, &t, i, 0) != 1)
			break;
	}
	tap_ok(&tap, load_finished(&l) && l.msgs == 8 && l.verified == 8 && t.peak == 2,
	     "load: 4 up connections x 2 msgs done, never more than 2 in flight (peak %u)",
	     t.peak);
	tap_ok(&tap, t.started[0] == 0 && t.started[1] == 1 && t.started[2] == 3 &&
	     t.started[3] == 4 && t.started[4] == 0 && t.started[5] == 1 &&
	     t.started[6] == 3 && t.started[7] == 4,
	     "load: freed workers take idle connections round-robin (0 1 3 4 0 1 3 4)");
	t_records_reset();
	load_report(&l, NULL);
	tap_ok(&tap, strstr(t_records(), "result role=client ok=4 msgs=8 verified=8 bad=0 errors=0 us=") != NULL,
	     "load: result record counts");
	load_fini(&l);
}

static void test_load_faults(void)
{
	static struct load l;
	struct load_cfg cfg = { .nconn = 3, .first_id = 7, .msgs = 3, .size = 16,
				.timeout_s = 10 };
	struct t_tr t = { .fail_idx = -1, .l = &l };
	uint8_t junk[20] = { 0 };
	int r;

	if (load_init(&l, &cfg, &t_ops, &t)) {
		tap_ok(&tap, 0, "load: init");
		return;
	}
	load_attach(&l, 0);
	load_attach(&l, 1);
	load_attach(&l, 2);
	t_records_reset();
	load_run(&l);
	tap_ok(&tap, t.nstarted == 3, "load: --workers 0 starts every connection at once");
	r = t_echo(&l, &t, 0, 1);
	tap_ok(&tap, r == 1 && l.bad == 1 && l.msgs == 1 &&
	     strstr(t_records(), "verify fail id=7 seq=0\n") != NULL,
	     "load: a corrupted echo counts as bad and emits 'verify fail id=7 seq=0'");
	r = load_rx(&l, 1, junk, sizeof(junk));
	tap_ok(&tap, r == -1 && l.errors == 1 &&
	     strstr(t_records(), "msg fail id=8 call=recv errno=71 err=EPROTO\n") != NULL,
	     "load: more bytes than sent fail the connection with EPROTO");
	/* the next start of connection 0 fails, as a send() would */
	t.fail_idx = 0;
	t_echo(&l, &t, 0, 0);
	while (!load_finished(&l) && load_want(&l, 2))
		t_echo(&l, &t, 2, 0);
	tap_ok(&tap, load_finished(&l) && l.errors == 2 && l.msgs == 5 && l.verified == 4 &&
	     strstr(t_records(), "msg fail id=7 call=send errno=32 err=EPIPE\n") != NULL,
	     "load: a send error inside start() fails that connection, the rest finish");
	load_fini(&l);
}

static void test_load_ready_fail(void)
{
	static struct load l;
	struct load_cfg cfg = { .nconn = 3, .msgs = 1, .size = 8, .workers = 1,
				.timeout_s = 10 };
	struct t_tr t = { .fail_idx = -1, .l = &l };
	uint32_t i;

	if (load_init(&l, &cfg, &t_ops, &t)) {
		tap_ok(&tap, 0, "load: init");
		return;
	}
	for (i = 0; i < 3; i++)
		load_attach(&l, i);
	load_run(&l);
	/* connection 1 waits for a worker when its peer goes away */
	load_fail(&l, 1, "recv", 0, "eof");
	t_echo(&l, &t, 0, 0);
	t_echo(&l, &t, 2, 0);
	tap_ok(&tap, load_finished(&l) && t.nstarted == 2 && t.started[1] == 2 && l.errors == 1 &&
	     l.msgs == 2, "load: a connection lost while waiting for a worker is skipped");
	load_fini(&l);
}

static void test_load_think(void)
{
	static struct load l;
	struct load_cfg cfg = { .nconn = 2, .msgs = 2, .size = 8, .think_ms = 30,
				.timeout_s = 10 };
	struct t_tr t = { .fail_idx = -1, .l = &l };
	struct pollfd pfd;
	uint64_t t0, waited;
	int n;

	if (load_init(&l, &cfg, &t_ops, &t)) {
		tap_ok(&tap, 0, "load: init");
		return;
	}
	load_attach(&l, 0);
	load_attach(&l, 1);
	load_run(&l);
	t_echo(&l, &t, 0, 0);
	t_echo(&l, &t, 1, 0);
	t0 = clock_ns();
	tap_ok(&tap, t.nstarted == 2 && !load_want(&l, 0),
	     "load: --think-ms holds the next round trip back");
	pfd.fd = load_timer_fd(&l);
	pfd.events = POLLIN;
	n = poll(&pfd, 1, 2000);
	if (n == 1)
		load_on_timer(&l);
	waited = (clock_ns() - t0) / 1000000;
	tap_ok(&tap, n == 1 && t.nstarted == 4 && waited >= 25 && waited < 1000,
	     "load: the think timer releases both after ~30 ms (%llu ms)",
	     (unsigned long long)waited);
	load_fini(&l);
}

static void test_load_deadline(void)
{
	static struct load l;
	struct load_cfg cfg = { .nconn = 2, .msgs = 5, .size = 8, .timeout_s = 1 };
	struct t_tr t = { .fail_idx = -1, .l = &l };
	struct pollfd pfd;
	int n = 0, i;

	if (load_init(&l, &cfg, &t_ops, &t)) {
		tap_ok(&tap, 0, "load: init");
		return;
	}
	load_attach(&l, 0);
	load_attach(&l, 1);
	t_records_reset();
	load_run(&l);
	t_echo(&l, &t, 1, 0);
	pfd.fd = load_timer_fd(&l);
	pfd.events = POLLIN;
	for (i = 0; i < 3 && !load_finished(&l); i++) {
		n = poll(&pfd, 1, 3000);
		if (n == 1)
			load_on_timer(&l);
	}
	tap_ok(&tap, load_finished(&l) && l.errors == 2 && l.msgs == 1 &&
	     strstr(t_records(), "msg fail id=0 call=recv errno=0 err=timeout\n"),
	     "load: --timeout ends traffic and fails what is still in flight");
	load_fini(&l);
}

static void test_ctl(void)
{
	struct ctl c;
	int p[2];
	enum ctl_cmd a, b, d, e, f, g;
	char big[517];

	if (pipe(p) || ctl_init(&c, p[0])) {
		tap_ok(&tap, 0, "ctl: pipe");
		return;
	}
	/* the tail of an overlong line must not count, even when it reads "stop" */
	memset(big, 'x', sizeof(big));
	memcpy(big + sizeof(big) - 5, "stop\n", 5);
	if (write(p[1], "go\nbogus\r\n", 10) != 10 || write(p[1], big, sizeof(big)) < 0 ||
	    write(p[1], "run \nrun\nst", 11) != 11)
		perror("write");
	a = ctl_next(&c);
	b = ctl_next(&c);
	d = ctl_next(&c);
	if (write(p[1], "op\n", 3) != 3)
		perror("write");
	e = ctl_next(&c);
	close(p[1]);
	f = ctl_next(&c);
	g = ctl_next(&c);
	tap_ok(&tap, a == CTL_GO && b == CTL_RUN && d == CTL_NONE && e == CTL_STOP &&
	     f == CTL_EOF && g == CTL_EOF,
	     "ctl: go, junk, 'run ' and an overlong line skipped, run, split 'stop', EOF "
	     "(%s %s %s %s %s)",
	     ctl_name(a), ctl_name(b), ctl_name(d), ctl_name(e), ctl_name(f));
	close(p[0]);
}

/* "kill" (--fault kill-server with --hosts): the reader dies of SIGKILL at once */
static void test_ctl_kill(void)
{
	int p[2], st = 0;
	pid_t pid;

	if (pipe(p)) {
		tap_ok(&tap, 0, "ctl kill: pipe");
		return;
	}
	pid = fork();
	if (!pid) {
		struct ctl c;

		close(p[1]);
		if (ctl_init(&c, p[0]))
			_exit(3);
		/* "killx" is no command: only the line "kill" kills */
		while (ctl_next(&c) != CTL_EOF)
			;
		_exit(0);
	}
	if (pid < 0 || write(p[1], "killx\ngo\nkill\n", 15) != 15)
		perror("fork, write");
	close(p[0]);
	close(p[1]);
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	tap_ok(&tap, pid > 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	       "ctl: 'kill' SIGKILLs the reader, 'killx' does not (status %#x)", st);
}

static int t_parse(struct ag_opts *o, char *err, const char *line)
{
	char copy[512], *argv[40], *tok;
	int argc = 0;

	snprintf(copy, sizeof(copy), "rdmacap-agent %s", line);
	for (tok = strtok(copy, " "); tok && argc < 39; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	err[0] = '\0';
	return ag_opts_parse(o, argc, argv, err, 256);
}

static void test_opts(void)
{
	static const struct {
		const char *line, *needle;
	} bad[] = {
		{ "--role client --transport tcp --size 0", "--size" },
		{ "--role client --transport tcp --size 1048577", "--size" },
		{ "--role server --transport tcp --ports 0", "--ports" },
		{ "--role server --transport tcp --frob", "--frob" },
		{ "--role server --transport tcp --frob=1", "--frob" },
		{ "--role client --transport tcp --size -1", "--size" },
		{ "--role client --transport tcp --size 12k", "--size" },
		{ "--role client --transport tcp --size", "--size" },
		{ "--role client --transport tcp --clients 0", "--clients" },
		{ "--role client --transport tcp --port 65535 --ports 2", "--ports" },
		{ "--role client --transport tcp --addr 10.0.0.300", "--addr" },
		{ "--role client --transport tcp --bind ::1", "--bind" },
		{ "--role client --transport tcp --timeout 0", "--timeout" },
		{ "--role client --transport udp", "--transport" },
		{ "--role peer --transport tcp", "--role" },
		{ "--transport tcp", "--role" },
		{ "--role client", "--transport" },
		{ "--role server --transport tcp --clients 5", "--clients" },
		{ "--role client --transport tcp --server-model thread", "--server-model" },
		{ "--role server --transport tcp --server-model fork", "--server-model" },
		{ "--role server --transport tcp --server-threads 0", "--server-threads" },
		{ "--role client --transport rc --cm rdmacm --pool 5", "--pool" },
		{ "--role server --transport tcp --pool 5", "--pool" },
		{ "--role server --transport rc --cm rdmacm --pool -1", "--pool" },
		{ "--role server --transport rc --cm rdmacm --pool 1048577", "--pool" },
		{ "--role client --transport tcp --first-id 4294967295 --clients 2", "--first-id" },
		{ "--role client --transport tcp extra", "extra" },
		{ "--role client --transport tcp -x", "-x" },
	};
	struct ag_opts o;
	char err[256];
	size_t i;
	int r, good = 1;

	r = t_parse(&o, err, "--role server --transport tcp --addr 127.0.0.2 --port 9000 "
		    "--ports 4 --size 1048576 --timeout 5 --server-model thread "
		    "--server-threads 3 --backlog 128");
	tap_ok(&tap, !r && o.role == AG_ROLE_SERVER && o.transport == OPT_TR_TCP &&
	     !strcmp(o.addr_str, "127.0.0.2") && o.port == 9000 && o.ports == 4 &&
	     o.size == 1048576 && o.timeout_s == 5 && o.model == OPT_MODEL_THREAD &&
	     o.server_threads == 3 && o.backlog == 128,
	     "opts: full server line parses (%s)", err);
	r = t_parse(&o, err, "--role server --transport rc --cm rdmacm --pool 2000");
	tap_ok(&tap, !r && o.pool == 2000, "opts: rc server --pool parses (%s)", err);
	r = t_parse(&o, err, "--role client --transport rc --cm rdmacm --clients 50000 --first-id 7 "
		    "--msgs 0 --think-ms 10 --stagger-ms 2 --workers 16 --bind 127.0.0.9");
	tap_ok(&tap, !r && o.role == AG_ROLE_CLIENT && o.transport == OPT_TR_RC &&
	     o.clients == 50000 && o.first_id == 7 && !o.msgs && o.think_ms == 10 &&
	     o.stagger_ms == 2 && o.workers == 16 && o.has_bind &&
	     !strcmp(o.bind_str, "127.0.0.9") && o.port == OPT_DEF_PORT && o.ports == 1 &&
	     o.size == opt_defs[OPT_SIZE].def,
	     "opts: full client line parses, defaults kept (%s)", err);
	r = t_parse(&o, err, "--role=client --transport=tcp");
	tap_ok(&tap, !r && o.clients == 1 && o.msgs == opt_defs[OPT_MSGS].def && o.timeout_s == opt_defs[OPT_TIMEOUT].def &&
	     !strcmp(o.addr_str, "127.0.0.1"), "opts: --opt=value form and defaults");
	tap_ok(&tap, t_parse(&o, err, "--role client --help") == 1, "opts: --help");

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = t_parse(&o, err, bad[i].line);
		if (r != -1 || !strstr(err, bad[i].needle)) {
			tap_diag(&tap, "'%s' -> %d '%s', want an error naming %s", bad[i].line, r,
			       err, bad[i].needle);
			good = 0;
		}
	}
	tap_ok(&tap, good, "opts: %zu bad lines rejected, each naming the offending option",
	     sizeof(bad) / sizeof(bad[0]));
}

int main(void)
{
	t_rec = memfd_create("records", MFD_CLOEXEC);
	if (t_rec < 0) {
		perror("memfd_create");
		return 1;
	}
	proto_set_fd(t_rec);
	tap_init(&tap, stdout);
	tap_plan(&tap, 29);
	test_hist();
	test_payload();
	test_load_workers();
	test_load_faults();
	test_load_ready_fail();
	test_load_think();
	test_load_deadline();
	test_ctl();
	test_ctl_kill();
	test_opts();
	tap_totals(&tap);
	return tap_exit_code(&tap);
}
