// SPDX-License-Identifier: MIT
/*
 * Unit tests of common/proto: every record writer's line parses back to what was
 * written, every malformed variant is rejected with its reason, the commands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/proto.h"
#include "tap/tap.h"

static struct tap t;
static int t_fd;
static char t_line[PROTO_LINE_MAX], t_raw[PROTO_LINE_MAX]; /* parsed, as written */

/* The one line the last writer produced, parsed into r; -100 when none. */
static int t_back(int wret, struct proto_rec *r)
{
	ssize_t n;

	if (wret)
		return -100;
	n = pread(t_fd, t_line, sizeof(t_line) - 1, 0);
	if (ftruncate(t_fd, 0) || lseek(t_fd, 0, SEEK_SET) || n < 1 || t_line[n - 1] != '\n' ||
	    memchr(t_line, '\n', (size_t)n - 1))
		return -100;
	t_line[n - 1] = '\0';
	memcpy(t_raw, t_line, (size_t)n);
	return proto_parse(t_line, r);
}

/* Step histograms: the non-empty ones come back as written, the empty ones absent. */
static void t_steps(const struct proto_hist *h)
{
	static struct proto_hist st[PROTO_NSTEPS], d;
	struct proto_rec r;
	bool same = true;
	char line[PROTO_LINE_MAX];

	proto_hist_add(&st[PROTO_STEP_ROUTE], 1500);
	proto_hist_add(&st[PROTO_STEP_ROUTE], 90000);
	proto_hist_add(&st[PROTO_STEP_RTS], 7);
	tap_ok(&t, !t_back(proto_result_client(&(struct proto_result_client){ .ok = 1, .msgs = 2, .verified = 2, .us = 5 },
					       h, st), &r) && r.type == PROTO_RESULT_CLIENT,
	       "result role=client with step histograms parses");
	for (int i = 0; i < PROTO_NSTEPS; i++) {
		memset(&d, 0, sizeof(d));
		if (!st[i].total)
			same &= !r.result_client.steps[i];
		else
			same &= r.result_client.steps[i] &&
				!proto_hist_decode(r.result_client.steps[i], &d) &&
				!memcmp(&d, &st[i], sizeof(d));
	}
	tap_ok(&t, same && strstr(t_raw, " step_resolve_route=") && strstr(t_raw, " step_rtr_rts=") &&
			   !strstr(t_raw, "step_tls"),
	       "step histograms round trip; empty steps are left out");
	tap_ok(&t, !strcmp(proto_step_name(PROTO_STEP_ADDR), "resolve_addr") &&
			   !strcmp(proto_step_name(PROTO_STEP_CONN), "established") &&
			   !strcmp(proto_step_name(PROTO_STEP_RTS), "rtr_rts") &&
			   !strcmp(proto_step_name(PROTO_NSTEPS), "?"),
	       "step names come from the record's keys");
	snprintf(line, sizeof(line), "result role=client ok=1 msgs=0 verified=0 bad=0 errors=0 us=0 "
		 "hist=- step_tls=5:1 step_tls=5:1");
	tap_ok(&t, proto_parse(line, &r) == PROTO_E_DUP, "a step twice is rejected");
	snprintf(line, sizeof(line), "result role=client ok=1 msgs=0 verified=0 bad=0 errors=0 us=0 "
		 "hist=- step_exchange=5:0");
	tap_ok(&t, proto_parse(line, &r) == PROTO_E_HIST, "a malformed step histogram is rejected");
	snprintf(line, sizeof(line), "result role=client ok=1 msgs=0 verified=0 bad=0 errors=0 us=0 "
		 "hist=- step_nosuch=5:1");
	tap_ok(&t, proto_parse(line, &r) == PROTO_E_KEY, "an unknown step is rejected");
}

static void t_roundtrip(void)
{
	static struct proto_hist h, d;
	struct proto_loop lp[3];
	struct proto_rec r;
	int pid = getpid();

	tap_ok(&t, !t_back(proto_hello_server(2, 18515, -1), &r) && r.type == PROTO_HELLO_SERVER &&
			   r.hello_server.pid == pid && r.hello_server.ports == 2 &&
			   r.hello_server.port == 18515 && r.hello_server.max_backlog == PROTO_NONE_I,
	       "hello role=server round trip");
	tap_ok(&t, !t_back(proto_hello_server(1, 7, 4096), &r) && r.hello_server.max_backlog == 4096 &&
			   !strncmp(t_raw, "hello role=server pid=", 22) &&
			   strstr(t_raw, " max_backlog=4096"),
	       "hello role=server with max_backlog");
	tap_ok(&t, !t_back(proto_hello_client(10, 5), &r) && r.type == PROTO_HELLO_CLIENT &&
			   r.hello_client.pid == pid && r.hello_client.first == 10 &&
			   r.hello_client.clients == 5,
	       "hello role=client round trip");
	tap_ok(&t, !t_back(proto_drop("10.0.0.1:5000", "ECONNRESET"), &r) && r.type == PROTO_DROP &&
			   !strcmp(r.drop.peer, "10.0.0.1:5000") && !strcmp(r.drop.reason, "ECONNRESET"),
	       "drop round trip");
	tap_ok(&t, !t_back(proto_drop("a b", "x=y\n"), &r) && !strcmp(r.drop.peer, "a_b") &&
			   !strcmp(r.drop.reason, "x_y_"),
	       "drop: bytes outside the word set become '_' and still parse");
	tap_ok(&t, !t_back(proto_result_server(&(struct proto_result_server){
				   1, 2, 3, 4, 5, PROTO_NONE, PROTO_NONE, PROTO_NONE, PROTO_NONE,
				   NULL, PROTO_NONE, PROTO_NONE }), &r) &&
			   r.type == PROTO_RESULT_SERVER && r.result_server.accepted == 1 &&
			   r.result_server.dropped == 5 && r.result_server.rejected == PROTO_NONE &&
			   !strcmp(t_raw, "result role=server accepted=1 peak=2 echoed=3 bytes=4 dropped=5"),
	       "result role=server (tcp) round trip, byte for byte");
	tap_ok(&t, !t_back(proto_result_server(&(struct proto_result_server){
				   1, 2, 3, UINT64_MAX, 5, 0, 9, PROTO_NONE, PROTO_NONE, NULL, 6, 8 }), &r) &&
			   r.result_server.bytes == UINT64_MAX && r.result_server.rejected == 0 &&
			   r.result_server.cq_events == 9 && r.result_server.cq_arms == 6 &&
			   r.result_server.cq_spins == 8 && strstr(t_raw, " cq_events=9 cq_arms=6 cq_spins=8"),
	       "result role=server (rc) with rejected, cq_events, cq_arms and cq_spins");
	tap_ok(&t, !t_back(proto_result_server(&(struct proto_result_server){
				   7, 7, 3, 4, 0, 1, 9, 7, 12, NULL, PROTO_NONE, PROTO_NONE }), &r) &&
			   r.result_server.ah == 7 && r.result_server.rejected == 1 &&
			   !strcmp(t_raw, "result role=server accepted=7 peak=7 echoed=3 bytes=4 dropped=0 rejected=1 cq_events=9 ah=7 ah_made=12") &&
			   r.result_server.ah_made == 12,
	       "result role=server (ud) with ah and ah_made, byte for byte");
	tap_ok(&t, !t_back(proto_result_server(&(struct proto_result_server){
				   .accepted = 3, .peak = 3, .rejected = PROTO_NONE,
				   .cq_events = PROTO_NONE, .ah = PROTO_NONE, .ah_made = PROTO_NONE,
				   .loops = "2:10,1:0", .cq_arms = PROTO_NONE, .cq_spins = PROTO_NONE }), &r) &&
			   !strcmp(t_raw, "result role=server accepted=3 peak=3 echoed=0 bytes=0 dropped=0 loops=2:10,1:0") &&
			   proto_loops_decode(r.result_server.loops, lp, 2) == 2 &&
			   lp[0].accepted == 2 && lp[0].cpu_ms == 10 && lp[1].accepted == 1 &&
			   proto_loops_decode(r.result_server.loops, lp, 1) == -1,
	       "result role=server with loops, byte for byte; decoded, and refused past max");
	{
		struct proto_loop in[3] = { { 0, 1 }, { 18446744073709551615ull, 2 }, { 5, 0 } };
		char b[64];

		tap_ok(&t, proto_loops_encode(in, 3, b, sizeof(b)) > 0 &&
				   proto_loops_decode(b, lp, 3) == 3 &&
				   lp[1].accepted == in[1].accepted && lp[2].cpu_ms == 0 &&
				   proto_loops_encode(in, 3, b, 8) == -1,
		       "loops: encode then decode is the identity; a short buffer fails");
	}
	proto_hist_add(&h, 0);
	proto_hist_add(&h, 1000);
	proto_hist_add(&h, UINT64_MAX);
	memset(&d, 0, sizeof(d));
	tap_ok(&t, !t_back(proto_result_client(&(struct proto_result_client){ 3, 100, 90, 1, 2, 77, NULL,
										PROTO_NONE, PROTO_NONE, PROTO_NONE,
									{ PROTO_NONE, PROTO_NONE, PROTO_NONE }, { NULL } },
					       &h, NULL), &r) &&
			   r.type == PROTO_RESULT_CLIENT && r.result_client.ok == 3 &&
			   r.result_client.msgs == 100 && r.result_client.verified == 90 &&
			   r.result_client.bad == 1 && r.result_client.errors == 2 &&
			   r.result_client.us == 77 && !proto_hist_decode(r.result_client.hist, &d) &&
			   !memcmp(&d, &h, sizeof(h)),
	       "result role=client round trip with its histogram");
	tap_ok(&t, !t_back(proto_result_client(&(struct proto_result_client){ 1, 5, 5, 0, 0, 9, NULL,
										4, 2, PROTO_NONE,
									{ PROTO_NONE, PROTO_NONE, PROTO_NONE }, { NULL } }, &d, NULL), &r) &&
			   r.result_client.retried == 4 && r.result_client.late == 2 &&
			   strstr(t_raw, " retried=4 late=2") && !strstr(t_raw, "qps="),
	       "result role=client (ud) with retried and late");
	tap_ok(&t, !t_back(proto_result_client(&(struct proto_result_client){ 8, 5, 5, 0, 0, 9, NULL,
										PROTO_NONE, PROTO_NONE, 2, { 40, 0, 1000 }, { NULL } }, &d, NULL), &r) &&
			   r.result_client.qps == 2 && r.result_client.retried == PROTO_NONE &&
			   r.result_client.cq.events == 40 && r.result_client.cq.arms == 0 &&
			   r.result_client.cq.spins == 1000 &&
			   strstr(t_raw, " qps=2 cq_events=40 cq_arms=0 cq_spins=1000"),
	       "result role=client (rc --qp-share) with qps and the poller's counters");
	tap_ok(&t, !strstr(t_raw, "step_"), "result role=client without steps has no step_ key");
	t_steps(&h);
	tap_ok(&t, !t_back(proto_conn_ok(7, 1234), &r) && r.type == PROTO_CONN_OK &&
			   r.conn_ok.id == 7 && r.conn_ok.us == 1234,
	       "conn ok round trip");
	tap_ok(&t, !t_back(proto_conn_fail(7, "connect", 111, NULL, false, -1), &r) &&
			   r.type == PROTO_CONN_FAIL && r.fail.id == 7 && !strcmp(r.fail.call, "connect") &&
			   r.fail.err == 111 && !strcmp(r.fail.errname, "ECONNREFUSED") &&
			   !r.fail.at_server && r.fail.status == PROTO_NONE_I,
	       "conn fail round trip, errno named");
	tap_ok(&t, !t_back(proto_conn_fail(8, "rdma_connect", 0, "REJECTED", false, 28), &r) &&
			   r.fail.status == 28 &&
			   !strcmp(t_raw, "conn fail id=8 call=rdma_connect errno=0 err=REJECTED status=28"),
	       "conn fail with an rdma_cm reject status, byte for byte");
	tap_ok(&t, !t_back(proto_conn_fail(9, "ibv_modify_qp", 22, NULL, true, -1), &r) &&
			   r.fail.at_server && !strcmp(r.fail.errname, "EINVAL"),
	       "conn fail at=server");
	tap_ok(&t, !t_back(proto_connected(4, 1, 999), &r) && r.type == PROTO_CONNECTED &&
			   r.connected.ok == 4 && r.connected.fail == 1 && r.connected.us == 999,
	       "connected round trip");
	tap_ok(&t, !t_back(proto_msg_fail(3, "recv", 0, "eof"), &r) && r.type == PROTO_MSG_FAIL &&
			   r.fail.id == 3 && !strcmp(r.fail.call, "recv") && !strcmp(r.fail.errname, "eof"),
	       "msg fail round trip");
	tap_ok(&t, !t_back(proto_verify_fail(3, 42), &r) && r.type == PROTO_VERIFY_FAIL &&
			   r.verify_fail.id == 3 && r.verify_fail.seq == 42,
	       "verify fail round trip");
	tap_ok(&t, !t_back(proto_error("socket", 24), &r) && r.type == PROTO_ERROR &&
			   !strcmp(r.fail.call, "socket") && r.fail.err == 24 &&
			   !strcmp(r.fail.errname, "EMFILE"),
	       "error round trip");
	tap_ok(&t, !t_back(proto_bye(), &r) && r.type == PROTO_BYE && !strcmp(t_raw, "bye"),
	       "bye round trip");
}

static const struct {
	const char *line;
	int err;
} t_bad[] = {
	{ "", PROTO_E_TYPE },
	{ "hello", PROTO_E_TYPE },
	{ "hello role=servers pid=1 ports=1 port=1", PROTO_E_TYPE },
	{ "byebye", PROTO_E_TYPE },
	{ "conn maybe id=1 us=2", PROTO_E_TYPE },
	{ "bye ", PROTO_E_KEY },
	{ "bye x=1", PROTO_E_KEY },
	{ "conn ok id=1  us=2", PROTO_E_KEY },
	{ "conn ok id=1 us=2 extra", PROTO_E_KEY },
	{ "conn ok id=1 us=2 nope=3", PROTO_E_KEY },
	{ "conn ok id=1 id=1 us=2", PROTO_E_DUP },
	{ "conn ok id=1", PROTO_E_MISSING },
	{ "hello role=server pid=1 ports=1", PROTO_E_MISSING },
	{ "result role=client ok=1 msgs=1 verified=1 bad=0 errors=0 us=1", PROTO_E_MISSING },
	{ "drop peer=1.2.3.4:5 reason=", PROTO_E_WORD },
	{ "drop peer=$(rm) reason=x", PROTO_E_WORD },
	{ "drop peer=a reason=b=c", PROTO_E_WORD },
	{ "conn fail id=1 call=c errno=1 err=E at=client", PROTO_E_WORD },
	{ "conn ok id=x us=2", PROTO_E_NUMBER },
	{ "conn ok id=01 us=2", PROTO_E_NUMBER },
	{ "conn ok id=-1 us=2", PROTO_E_NUMBER },
	{ "conn ok id=1 us=18446744073709551616", PROTO_E_NUMBER },
	{ "conn ok id=1 us=", PROTO_E_NUMBER },
	{ "error call=c errno=-0 err=E", PROTO_E_NUMBER },
	{ "error call=c errno=9223372036854775808 err=E", PROTO_E_NUMBER },
	{ "result role=server accepted=1 peak=1 echoed=1 bytes=1 dropped=1 "
	  "rejected=18446744073709551615", PROTO_E_NUMBER },
	{ "result role=client ok=1 msgs=1 verified=1 bad=0 errors=0 us=1 hist=1:1,", PROTO_E_HIST },
	{ "result role=server accepted=1 peak=1 echoed=1 bytes=1 dropped=1 loops=1:2,", PROTO_E_LOOPS },
	{ "result role=server accepted=1 peak=1 echoed=1 bytes=1 dropped=1 loops=1", PROTO_E_LOOPS },
	{ "result role=server accepted=1 peak=1 echoed=1 bytes=1 dropped=1 loops=01:2", PROTO_E_LOOPS },
	{ "result role=server accepted=1 peak=1 echoed=1 bytes=1 dropped=1 loops=1:2;3:4", PROTO_E_LOOPS },
	{ "result role=client ok=1 msgs=1 verified=1 bad=0 errors=0 us=1 hist=2:1,1:1",
	  PROTO_E_HIST },
	{ "result role=client ok=1 msgs=1 verified=1 bad=0 errors=0 us=1 hist=976:1",
	  PROTO_E_HIST },
};

static void t_malformed(void)
{
	char *line = malloc(PROTO_LINE_MAX + 1);
	struct proto_rec r;
	unsigned i, bad = 0;
	int got;

	for (i = 0; i < sizeof(t_bad) / sizeof(t_bad[0]); i++) {
		snprintf(t_line, sizeof(t_line), "%s", t_bad[i].line);
		got = proto_parse(t_line, &r);
		if (got != t_bad[i].err) {
			tap_diag(&t, "'%s': %s, expected %s", t_bad[i].line, proto_strerror(got),
				 proto_strerror(t_bad[i].err));
			bad++;
		}
	}
	tap_ok(&t, !bad, "%zu malformed records each rejected with their reason",
	       sizeof(t_bad) / sizeof(t_bad[0]));
	if (!line) {
		tap_ok(&t, 0, "malloc");
		return;
	}
	/* the longest accepted line is PROTO_LINE_MAX - 2 bytes (plus its newline) */
	memset(line, 'x', PROTO_LINE_MAX);
	memcpy(line, "drop peer=a reason=", 19);
	line[PROTO_LINE_MAX - 2] = '\0';
	got = proto_parse(line, &r);
	memset(line, 'x', PROTO_LINE_MAX);
	memcpy(line, "drop peer=a reason=", 19);
	line[PROTO_LINE_MAX - 1] = '\0';
	tap_ok(&t, !got && proto_parse(line, &r) == PROTO_E_LONG,
	       "a line of PROTO_LINE_MAX - 2 bytes parses, one byte more is too long");
	free(line);
}

static void t_cmds(void)
{
	bool ok = true;

	for (int c = 0; c < PROTO_NCMDS; c++) {
		const char *w = proto_cmd_word((enum proto_cmd)c);

		ok = ok && proto_cmd_parse(w, strlen(w)) == c;
	}
	tap_ok(&t, ok, "commands: every word parses back to its command");
	tap_ok(&t, proto_cmd_parse("run ", 4) == -1 && proto_cmd_parse("stop\r", 5) == -1 &&
			   proto_cmd_parse("", 0) == -1 && proto_cmd_parse("GO", 2) == -1 &&
			   proto_cmd_parse("st", 2) == -1,
	       "commands: trailing blanks, case, prefixes and empty lines rejected");
}

int main(void)
{
	t_fd = memfd_create("records", MFD_CLOEXEC);
	if (t_fd < 0) {
		perror("memfd_create");
		return 1;
	}
	proto_set_fd(t_fd);
	tap_init(&t, stdout);
	tap_plan(&t, 33);
	t_roundtrip();
	t_malformed();
	t_cmds();
	tap_totals(&t);
	return tap_exit_code(&t);
}
