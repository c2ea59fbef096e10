// SPDX-License-Identifier: MIT
/*
 * One load point: server agent, P client agents, barriers, deadlines, verdict.
 *
 * The orchestrator is a single event loop: epoll over every agent's stdout,
 * a timerfd for the sampler and the signalfd main() set up. Agents are released
 * together ("go"), report each connection, hold them all open until every agent
 * has settled (so the server really holds N at once, and we measure it there),
 * then run the traffic ("run"), report, and close on "stop".
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/deadline.h"
#include "common/proto.h"
#include "harness/agent.h"
#include "harness/point.h"
#include "harness/proc.h"

#define HR_CONNS_PER_PORT 20000 /* below the ~28k default ephemeral ports per destination */
#define HR_CONNS_PER_AGENT 20000
#define HR_TICK_MS 20           /* 50 Hz sampler */
/*
 * Memory maps per rc connection in one process, measured in the rxe VM: 20,142
 * maps for 5,000 connections (QP SQ and RQ, two CQ rings), and ibv_create_cq
 * ENOMEM at the 16,348th connection of one process under vm.max_map_count 65530.
 */
#define HR_MAPS_PER_CONN 4
#define HR_MAPS_SLACK 512       /* the agent's own maps: ~144 measured, room for TLS */
#define HR_EV_SIG UINT32_MAX
#define HR_EV_TICK (UINT32_MAX - 1)

enum { ST_PENDING, ST_OK, ST_FAIL };

struct hr_run {
	struct hr_ctx *c;
	struct hr_point *pt;
	int ep, tfd;
	struct ha_agent *ag; /* [0, nsrv) servers, [nsrv, nag) clients */
	long nag, nsrv, srv_exited, srv_fds_base;
	pid_t *pid_of;       /* hash: pid -> agent index + 1 */
	size_t pid_cap;
	uint8_t *st;         /* per client id */
	uint32_t *us;        /* connect time per client id */
	struct proto_hist *hist;
	double t_start, t_go;
	double last_progress;
	long nconn_ok, nconn_fail;
	long n_connected_agents, n_result_agents, n_hello;
	struct hs_res res_now;
	int phase;           /* 0 start, 1 connect, 2 traffic, 3 stop */
	long port;           /* first server port */
};

/* --- pid lookup: agents may be thousands; reaping must not be O(P^2) --- */

static void hr_pid_put(struct hr_run *r, pid_t pid, long idx)
{
	size_t h = ((size_t)pid * 2654435761u) & (r->pid_cap - 1);

	while (r->pid_of[h * 2])
		h = (h + 1) & (r->pid_cap - 1);
	r->pid_of[h * 2] = pid;
	r->pid_of[h * 2 + 1] = (pid_t)idx;
}

static long hr_pid_get(struct hr_run *r, pid_t pid)
{
	size_t h = ((size_t)pid * 2654435761u) & (r->pid_cap - 1);

	while (r->pid_of[h * 2]) {
		if (r->pid_of[h * 2] == pid)
			return r->pid_of[h * 2 + 1];
		h = (h + 1) & (r->pid_cap - 1);
	}
	return -1;
}

/* --- failures and causes --- */

static void hr_fail_add(struct hr_run *r, long id, const char *call, int err, const char *errname)
{
	struct hr_point *pt = r->pt;
	static const char *const phases[] = { "start", "connect", "traffic", "stop" };
	int i;

	for (i = 0; i < pt->ncauses; i++)
		if (!strcmp(pt->causes[i].call, call) && !strcmp(pt->causes[i].errname, errname))
			break;
	if (i == pt->ncauses && i < HR_MAX_CAUSES) {
		snprintf(pt->causes[i].call, sizeof(pt->causes[i].call), "%s", call);
		snprintf(pt->causes[i].errname, sizeof(pt->causes[i].errname), "%s", errname);
		pt->causes[i].err = err;
		pt->ncauses++;
	}
	if (i < HR_MAX_CAUSES)
		pt->causes[i].count++;
	if (pt->nfails < HR_MAX_FAILS) {
		struct hr_fail *f = &pt->fails[pt->nfails++];

		f->id = id;
		snprintf(f->phase, sizeof(f->phase), "%s", phases[r->phase]);
		snprintf(f->call, sizeof(f->call), "%s", call);
		f->err = err;
		snprintf(f->errname, sizeof(f->errname), "%s", errname);
		f->t_s = r->t_go ? clock_s() - r->t_go : 0;
		/* the counters of the latest tick: at most 20 ms old */
		f->res = r->res_now;
	}
}

static void hr_settle(struct hr_run *r, long id, int st)
{
	if (r->st[id] != ST_PENDING)
		return;
	r->st[id] = (uint8_t)st;
	if (st == ST_OK)
		r->nconn_ok++;
	else
		r->nconn_fail++;
}

/* Every still-pending client of agent a fails with the same cause. */
static void hr_fail_pending(struct hr_run *r, struct ha_agent *a, const char *call,
			    const char *errname)
{
	for (long id = a->first; id < a->first + a->n; id++) {
		if (r->st[id] != ST_PENDING)
			continue;
		hr_fail_add(r, id, call, 0, errname);
		hr_settle(r, id, ST_FAIL);
		a->fail++;
	}
}

/* --- records --- */

/* A client id the agent owns, or -1 (a protocol error). */
static long hr_id(struct hr_run *r, struct ha_agent *a, uint64_t v)
{
	if (v >= (uint64_t)(a->first + a->n) || (long)v < a->first) {
		r->pt->proto_errors++;
		return -1;
	}
	return (long)v;
}

static void hr_result_server(struct hr_run *r, struct ha_agent *a,
			     const struct proto_result_server *s)
{
	a->result = true;
	r->pt->srv_accepted += (long)s->accepted;
	r->pt->srv_drops += (long)s->dropped;
}

static void hr_result_client(struct hr_run *r, struct ha_agent *a,
			     const struct proto_result_client *c)
{
	struct hr_point *pt = r->pt;

	a->result = true;
	r->n_result_agents++;
	pt->msgs += c->msgs;
	pt->verified += c->verified;
	pt->bad += c->bad;
	pt->lost += c->errors;
	/* checked by proto_parse: only a total overflow can fail here */
	if (proto_hist_decode(c->hist, r->hist))
		pt->proto_errors++;
}

static void hr_conn(struct hr_run *r, struct ha_agent *a, const struct proto_rec *rc)
{
	long id = hr_id(r, a, rc->type == PROTO_CONN_OK ? rc->conn_ok.id : rc->fail.id);

	if (id < 0 || r->st[id] != ST_PENDING)
		return;
	if (rc->type == PROTO_CONN_OK) {
		r->us[id] = rc->conn_ok.us > UINT32_MAX ? UINT32_MAX : (uint32_t)rc->conn_ok.us;
		hr_settle(r, id, ST_OK);
		a->ok++;
	} else {
		hr_fail_add(r, id, rc->fail.call, (int)rc->fail.err, rc->fail.errname);
		hr_settle(r, id, ST_FAIL);
		a->fail++;
	}
}

static void hr_error(struct hr_run *r, struct ha_agent *a, const struct proto_fail *f)
{
	fprintf(stderr, "rdmacap: agent %d: %s: %s\n", a->idx, f->call, f->errname);
	if (a->server)
		snprintf(r->pt->why, sizeof(r->pt->why), "server agent: %s: %s", f->call,
			 f->errname);
	else
		hr_fail_pending(r, a, f->call, f->errname);
}

static int hr_line(void *ctx, struct ha_agent *a, char *line)
{
	struct hr_run *r = ctx;
	struct proto_rec rc;
	int err;

	if (r->c->plan->verbose)
		fprintf(stderr, "rdmacap: agent %d: %s\n", a->idx, line);
	err = proto_parse(line, &rc);
	if (err) {
		if (r->c->plan->verbose)
			fprintf(stderr, "rdmacap: agent %d: %s\n", a->idx, proto_strerror(err));
		r->pt->proto_errors++;
		return 0;
	}
	switch (rc.type) {
	case PROTO_HELLO_SERVER:
	case PROTO_HELLO_CLIENT:
		if ((rc.type == PROTO_HELLO_SERVER) != a->server)
			break;
		if (!a->hello)
			r->n_hello++;
		a->hello = true;
		return 0;
	case PROTO_CONN_OK:
	case PROTO_CONN_FAIL:
		if (a->server)
			break;
		hr_conn(r, a, &rc);
		return 0;
	case PROTO_CONNECTED:
		if (a->server)
			break;
		if (!a->connected)
			r->n_connected_agents++;
		a->connected = true;
		/* anything the agent did not report is lost: count it, don't wait for it */
		hr_fail_pending(r, a, "agent", "unreported");
		return 0;
	case PROTO_MSG_FAIL:
		hr_fail_add(r, hr_id(r, a, rc.fail.id), rc.fail.call, (int)rc.fail.err,
			    rc.fail.errname);
		return 0;
	case PROTO_VERIFY_FAIL:
		hr_fail_add(r, hr_id(r, a, rc.verify_fail.id), "verify", 0, "mismatch");
		return 0;
	case PROTO_RESULT_SERVER:
		if (!a->server)
			break;
		hr_result_server(r, a, &rc.result_server);
		return 0;
	case PROTO_RESULT_CLIENT:
		if (a->server)
			break;
		hr_result_client(r, a, &rc.result_client);
		return 0;
	case PROTO_BYE:
		a->bye = true;
		return 0;
	case PROTO_DROP:
		/* the server side of a failure: often the real cause of a client's EOF */
		hr_fail_add(r, -1, "server", 0, rc.drop.reason);
		if (r->c->plan->verbose)
			fprintf(stderr, "rdmacap: server dropped %s: %s\n", rc.drop.peer,
				rc.drop.reason);
		return 0;
	case PROTO_ERROR:
		hr_error(r, a, &rc.fail);
		return 0;
	case PROTO_NTYPES:
		break;
	}
	/* a record of the other role */
	r->pt->proto_errors++;
	return 0;
}

/* --- processes --- */

static void hr_reap(struct hr_run *r)
{
	char st[48];
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		long i = hr_pid_get(r, pid);
		struct ha_agent *a;

		if (i < 0)
			continue;
		a = &r->ag[i];
		a->exited = true;
		a->status = status;
		if (a->server)
			r->srv_exited++;
		if (r->phase >= 3 && WIFEXITED(status) && !WEXITSTATUS(status))
			continue;
		ha_status_str(status, st, sizeof(st));
		if (a->server) {
			if (r->phase < 3 && !r->pt->why[0])
				snprintf(r->pt->why, sizeof(r->pt->why), "server agent %s", st);
			continue;
		}
		if (r->phase < 3 && !(WIFEXITED(status) && !WEXITSTATUS(status)))
			fprintf(stderr, "rdmacap: client agent %d (pid %d) %s\n", a->idx, (int)pid, st);
		/* its pending clients fail; connected ones are lost if traffic never ended */
		hr_fail_pending(r, a, "agent", st);
		if (r->phase == 2 && !a->result) {
			r->pt->lost += (uint64_t)a->ok;
			hr_fail_add(r, -1, "agent", 0, st);
			a->result = true;
			r->n_result_agents++;
		}
		if (!a->connected) {
			a->connected = true;
			r->n_connected_agents++;
		}
	}
}

static void hr_progress(struct hr_run *r, bool force)
{
	double now = clock_s();

	if (!r->c->tty || (!force && now - r->last_progress < 0.2))
		return;
	r->last_progress = now;
	fprintf(stderr, "\r\033[K[%ld clients] connected %ld failed %ld  %.1fs", r->pt->clients,
		r->nconn_ok, r->nconn_fail, r->t_go ? now - r->t_go : 0.0);
	if (force)
		fputc('\n', stderr);
}

static void hr_tick(struct hr_run *r)
{
	struct hs_sample x = { 0 };
	struct hx_proc p;
	uint64_t exp;

	if (read(r->tfd, &exp, sizeof(exp)) != sizeof(exp))
		return;
	x.t_ms = (uint32_t)((clock_s() - r->t_start) * 1000);
	x.connected = (uint32_t)r->nconn_ok;
	for (long i = 0; i < r->nsrv; i++) {
		if (hx_proc_read(r->ag[i].pid, false, &p))
			continue;
		x.srv_rss_kb += (uint32_t)p.rss_kb;
		x.srv_threads += (uint32_t)p.threads;
	}
	if (r->c->sampler && hs_has_res(r->c->sampler) && !hs_res_read(r->c->sampler, &r->res_now))
		x.res = r->res_now;
	hs_series_add(&r->pt->series, &x);
	hr_progress(r, false);
}

/* Runs the loop until done() or the deadline. 0 done, 1 deadline, 2 aborted. */
static int hr_loop(struct hr_run *r, bool (*done)(struct hr_run *), double deadline)
{
	struct epoll_event ev[64];

	while (!done(r)) {
		double left = deadline - clock_s();
		int n;

		if (r->c->aborted)
			return 2;
		if (left <= 0)
			return 1;
		n = epoll_wait(r->ep, ev, 64, (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR)
			return 2;
		for (int i = 0; i < n; i++) {
			uint32_t k = ev[i].data.u32;

			if (k == HR_EV_TICK) {
				hr_tick(r);
			} else if (k == HR_EV_SIG) {
				struct signalfd_siginfo si;

				while (read(r->c->sigfd, &si, sizeof(si)) == sizeof(si))
					if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM)
						r->c->aborted = true;
				hr_reap(r);
			} else if (k < r->nag) {
				struct ha_agent *a = &r->ag[k];
				int rc = ha_read(a, hr_line, r);

				/* at EOF ha_read closed the fd, which also left epoll */
				if (rc < 0) {
					r->pt->proto_errors++;
					close(a->out_fd);
					a->out_fd = -1;
				}
			}
		}
		/* SIGCHLD may be coalesced or arrive before the pipe drains */
		hr_reap(r);
	}
	return 0;
}

static bool hr_srv_hello(struct hr_run *r)
{
	for (long i = 0; i < r->nsrv; i++)
		if (!r->ag[i].hello && !r->ag[i].exited)
			return false;
	return true;
}

static bool hr_all_hello(struct hr_run *r)
{
	for (long i = r->nsrv; i < r->nag; i++)
		if (!r->ag[i].hello && !r->ag[i].exited)
			return false;
	return true;
}

static bool hr_all_connected(struct hr_run *r)
{
	return r->n_connected_agents >= r->nag - r->nsrv || r->srv_exited;
}

static bool hr_all_results(struct hr_run *r)
{
	return r->n_result_agents >= r->nag - r->nsrv || r->srv_exited;
}

static bool hr_clients_gone(struct hr_run *r)
{
	for (long i = r->nsrv; i < r->nag; i++)
		if (!r->ag[i].exited)
			return false;
	return true;
}

static bool hr_server_gone(struct hr_run *r)
{
	return r->srv_exited >= r->nsrv;
}

/* --- argv --- */

struct hr_argv {
	char *v[64];
	char buf[2048];
	size_t used;
	int n;
};

static void hr_arg(struct hr_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hr_arg(struct hr_argv *a, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (a->n >= 62 || a->used >= sizeof(a->buf))
		return;
	va_start(ap, fmt);
	n = vsnprintf(a->buf + a->used, sizeof(a->buf) - a->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(a->buf) - a->used)
		return;
	a->v[a->n++] = a->buf + a->used;
	a->v[a->n] = NULL;
	a->used += (size_t)n + 1;
}

static void hr_common_args(struct hr_run *r, struct hr_argv *a, const char *role)
{
	const struct hp_plan *p = r->c->plan;

	hr_arg(a, "%s", ha_binary());
	hr_arg(a, "--role=%s", role);
	hr_arg(a, "--transport=%s", opt_word(OPT_TRANSPORT, p->transport));
	hr_arg(a, "--addr=%s", r->c->topo->srv.addr);
	hr_arg(a, "--size=%ld", p->size);
	hr_arg(a, "--timeout=%ld", r->pt->timeout_s);
}

static void hr_rc_args(struct hr_run *r, struct hr_argv *av, const struct nn_host *h,
		       bool server)
{
	const struct hp_plan *p = r->c->plan;
	const char *d = r->c->tls_dir, *role = server ? "server" : "client";

	if (p->transport != OPT_TR_RC)
		return;
	hr_arg(av, "--cm=%s", opt_word(OPT_CM, p->cm));
	hr_arg(av, "--dev=%s", h->rxe);
	hr_arg(av, "--cq=%s", opt_word(OPT_CQ, p->cq));
	hr_arg(av, "--op=%s", opt_word(OPT_OP, p->op));
	if (p->srq)
		hr_arg(av, "--srq");
	hr_arg(av, "--oob-session=%s", opt_word(OPT_OOB_SESSION, p->oob_session));
	if (p->cm != OPT_CM_OOB_TLS)
		return;
	if (p->tls_ca) {
		/* the user's own PKI: one certificate for both roles */
		hr_arg(av, "--tls-ca=%s", p->tls_ca);
		hr_arg(av, "--tls-cert=%s", p->tls_cert);
		hr_arg(av, "--tls-key=%s", p->tls_key);
	} else if (*d) {
		hr_arg(av, "--tls-ca=%s/ca.pem", d);
		hr_arg(av, "--tls-cert=%s/%s.pem", d, role);
		hr_arg(av, "--tls-key=%s/%s.key", d, role);
	}
}

static int hr_spawn(struct hr_run *r, long i, const char *ns, struct hr_argv *av, long nofile)
{
	struct ha_agent *a = &r->ag[i];
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
	char err[160];

	if (ha_spawn(a, ns, av->v, nofile, err, sizeof(err))) {
		snprintf(r->pt->why, sizeof(r->pt->why), "starting agent %ld: %s", i, err);
		return -1;
	}
	hr_pid_put(r, a->pid, i);
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, a->out_fd, &ev)) {
		snprintf(r->pt->why, sizeof(r->pt->why), "epoll_ctl: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Server agents first (each owns ports/S consecutive ports), and only once all
 * of them listen, the client agents (round-robin over the client hosts; client
 * id uses port base + id % ports, so the servers share the load evenly).
 */
static int hr_start_agents(struct hr_run *r)
{
	const struct hp_plan *p = r->c->plan;
	struct nn_topo *t = r->c->topo;
	struct hr_point *pt = r->pt;
	long S = r->nsrv, P = pt->agents, per = pt->clients / P, extra = pt->clients % P;
	long m = pt->ports / S, first = 0;

	for (long i = 0; i < S; i++) {
		struct hr_argv av = { 0 };

		r->ag[i].idx = (int)i;
		r->ag[i].server = true;
		hr_common_args(r, &av, "server");
		hr_arg(&av, "--port=%ld", r->port + i * m);
		hr_arg(&av, "--ports=%ld", m);
		hr_arg(&av, "--server-model=%s", opt_word(OPT_SERVER_MODEL, p->server_model));
		hr_arg(&av, "--server-threads=%ld", p->server_threads);
		hr_rc_args(r, &av, &t->srv, true);
		if (hr_spawn(r, i, t->srv.ns, &av, pt->clients / S + 1024)) {
			r->nag = i + (r->ag[i].pid > 0);
			return -1;
		}
	}
	if (hr_loop(r, hr_srv_hello, clock_s() + 15) || r->srv_exited) {
		if (!pt->why[0])
			snprintf(pt->why, sizeof(pt->why), "server agents did not start within 15 s");
		r->nag = S;
		return -1;
	}
	for (long i = S; i < r->nag; i++) {
		const struct nn_host *h = &t->cli[(i - S) % t->nclients];
		struct ha_agent *a = &r->ag[i];
		struct hr_argv av = { 0 };

		a->idx = (int)i;
		a->first = first;
		a->n = per + (i - S < extra);
		first += a->n;
		hr_common_args(r, &av, "client");
		if (p->transport == OPT_TR_RC) {
			/*
			 * An rc client agent sets up all its clients through one
			 * session (TLS or rdma_cm) to one server port: spread the
			 * agents, not the ids, over the server processes.
			 */
			hr_arg(&av, "--port=%ld", r->port + ((i - S) % S) * m);
			hr_arg(&av, "--ports=1");
		} else {
			hr_arg(&av, "--port=%ld", r->port);
			hr_arg(&av, "--ports=%ld", pt->ports);
		}
		hr_arg(&av, "--clients=%ld", a->n);
		hr_arg(&av, "--first-id=%ld", a->first);
		hr_arg(&av, "--msgs=%ld", p->msgs);
		hr_arg(&av, "--think-ms=%ld", p->think_ms);
		hr_arg(&av, "--stagger-ms=%ld", p->stagger_ms);
		hr_arg(&av, "--workers=%ld", p->workers);
		if (t->kind != NN_LOOP)
			hr_arg(&av, "--bind=%s", h->addr);
		hr_rc_args(r, &av, h, false);
		if (a->n + 1024 > pt->per_agent_nofile)
			pt->per_agent_nofile = a->n + 1024;
		if (hr_spawn(r, i, h->ns, &av, a->n + 1024)) {
			r->nag = i + (a->pid > 0);
			return -1;
		}
	}
	return 0;
}

/* CAP_SYS_RESOURCE (bit 24 of CapEff): may we raise a hard limit? */
static bool hr_cap_sys_resource(void)
{
	char line[256];
	bool yes = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long caps;

		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			yes = caps & (1ull << 24);
	}
	fclose(f);
	return yes;
}

/* The NOFILE hard limit an agent can get: fs.nr_open if we may raise it, else ours. */
static long hr_nofile_cap(bool *raisable)
{
	struct rlimit rl;
	char v[32];

	*raisable = hr_cap_sys_resource();
	if (*raisable && !nn_sysctl_get("", "fs.nr_open", v, sizeof(v)))
		return atol(v);
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1024;
	return rl.rlim_max == RLIM_INFINITY ? 1L << 20 : (long)rl.rlim_max;
}

static void hr_layout(struct hr_run *r, long clients)
{
	const struct hp_plan *p = r->c->plan;
	struct hr_point *pt = r->pt;
	long hosts = r->c->topo->nclients, per_host, ports_auto, cap, per_proc;
	bool raisable;

	pt->clients = clients;
	/*
	 * Without --timeout, a phase may take 60 s plus 10 ms per client and 200 ms per
	 * agent process: setting up 20,000 rc connections, or starting 500 agents that
	 * each open the device and shake hands over TLS, is minutes of work under
	 * emulation, and a deadline that does not grow with the plan would make every
	 * big point fail by "timeout". (The agent count is known below; see hr_layout.)
	 */
	pt->timeout_s = p->timeout_set ? p->timeout_s : p->timeout_s + clients / 100;
	cap = hr_nofile_cap(&raisable);
	pt->nofile_got = cap;
	/* 1024 fds of slack for the process itself (pipes, epoll, listeners, TLS files) */
	per_proc = cap > 2048 ? cap - 1024 : 1024;
	per_proc = per_proc < HR_CONNS_PER_AGENT ? per_proc : HR_CONNS_PER_AGENT;
	if (p->agents)
		pt->agents = p->agents > clients ? clients : p->agents;
	else {
		pt->agents = (clients + per_proc - 1) / per_proc;
		if (pt->agents < hosts)
			pt->agents = hosts > clients ? clients : hosts;
	}
	/* one server process can hold only what its fd limit allows */
	r->nsrv = clients + 1024 > cap ? (clients + per_proc - 1) / per_proc : 1;
	if (p->transport == OPT_TR_RC) {
		char v[32];
		long mmc = nn_sysctl_get("", "vm.max_map_count", v, sizeof(v)) ? 65530 : atol(v);
		long per_rc = (mmc - HR_MAPS_SLACK) / HR_MAPS_PER_CONN;

		/*
		 * Every QP maps its SQ and RQ and every CQ its ring: one process runs
		 * out of vm.max_map_count long before the device runs out of QPs.
		 * Spread both sides over processes unless --agents says otherwise.
		 */
		if (per_rc < 1)
			per_rc = 1;
		if (clients > per_rc) {
			long n = (clients + per_rc - 1) / per_rc;

			if (n > r->nsrv)
				r->nsrv = n;
			if (!p->agents && n > pt->agents)
				pt->agents = n;
			snprintf(pt->capped, sizeof(pt->capped),
				 "vm.max_map_count %ld (about %d maps per connection): server over %ld "
				 "processes, clients over %ld agents", mmc, HR_MAPS_PER_CONN, r->nsrv,
				 pt->agents);
		}
	}
	pt->servers = r->nsrv;
	if (!p->timeout_set)
		pt->timeout_s += (pt->agents + r->nsrv) / 5;
	if (pt->timeout_s > opt_defs[OPT_TIMEOUT].max)
		pt->timeout_s = opt_defs[OPT_TIMEOUT].max;
	per_host = (clients + hosts - 1) / hosts;
	ports_auto = (per_host + HR_CONNS_PER_PORT - 1) / HR_CONNS_PER_PORT;
	pt->ports = p->ports ? p->ports : ports_auto;
	/* every server process owns the same number of ports */
	pt->ports = (pt->ports + r->nsrv - 1) / r->nsrv * r->nsrv;
	if (pt->ports > opt_defs[OPT_PORTS].max * r->nsrv)
		pt->ports = opt_defs[OPT_PORTS].max * r->nsrv;
	/* a tcp client agent is told all of them: keep within what its --ports takes */
	if (p->transport != OPT_TR_RC && pt->ports > opt_defs[OPT_PORTS].max)
		pt->ports = opt_defs[OPT_PORTS].max / r->nsrv * r->nsrv;
	if (pt->ports < r->nsrv)
		pt->ports = r->nsrv;
	if (r->nsrv > 1 && !pt->capped[0])
		snprintf(pt->capped, sizeof(pt->capped),
			 "RLIMIT_NOFILE hard limit %ld%s: server split over %ld processes", cap,
			 raisable ? "" : " (no CAP_SYS_RESOURCE to raise it)", r->nsrv);
}

static void hr_srv_read(struct hr_run *r)
{
	struct hr_point *pt = r->pt;
	struct hx_proc p;

	pt->srv_rss_peak_kb = pt->srv_fds = pt->srv_threads = 0;
	for (long i = 0; i < r->nsrv; i++) {
		if (hx_proc_read(r->ag[i].pid, true, &p))
			continue;
		pt->srv_rss_peak_kb += p.rss_kb;
		pt->srv_fds += p.fds;
		pt->srv_threads += p.threads;
		if (p.maps > pt->srv_maps_max)
			pt->srv_maps_max = p.maps;
	}
}

static void hr_peak(struct hr_run *r)
{
	struct hr_point *pt = r->pt;
	double end = clock_s() + 5;
	struct hx_proc p;

	/*
	 * A client is connected once the kernel finished the handshake; the server
	 * may still be accepting. Measure it once it holds every connection (one fd
	 * each beyond its baseline), or after 5 s with what it has.
	 */
	bool threads = r->c->plan->server_model == OPT_MODEL_THREAD;

	hr_srv_read(r);
	/* the thread model starts its client's thread just after accept (+1: main) */
	while ((pt->srv_fds < r->srv_fds_base + pt->connected ||
		(threads && pt->srv_threads < pt->connected + r->nsrv)) &&
	       clock_s() < end && !r->srv_exited) {
		usleep(20000);
		hr_srv_read(r);
	}
	hx_sockstat(r->ag[0].pid, &pt->tcp_inuse_peak, &(long){ 0 });
	hx_slab_kb(&pt->slab_peak_kb);
	for (long i = r->nsrv; i < r->nag; i++) {
		if (hx_proc_read(r->ag[i].pid, true, &p))
			continue;
		pt->cli_rss_kb += p.rss_kb;
		pt->cli_threads += p.threads;
		pt->cli_fds += p.fds;
		if (p.rss_kb > pt->cli_rss_max_kb)
			pt->cli_rss_max_kb = p.rss_kb;
		if (p.maps > pt->cli_maps_max)
			pt->cli_maps_max = p.maps;
	}
	if (r->c->sampler && hs_has_res(r->c->sampler) && !hs_res_read(r->c->sampler, &pt->res_peak))
		pt->have_res = true;
}

static void hr_stop_all(struct hr_run *r)
{
	r->phase = 3;
	for (long i = r->nsrv; i < r->nag; i++) {
		ha_send(&r->ag[i], PROTO_CMD_STOP);
		ha_close_in(&r->ag[i]);
	}
	if (hr_loop(r, hr_clients_gone, clock_s() + 10))
		for (long i = r->nsrv; i < r->nag; i++)
			ha_kill(&r->ag[i], SIGKILL);
	hr_loop(r, hr_clients_gone, clock_s() + 5);
	for (long i = 0; i < r->nsrv && i < r->nag; i++) {
		ha_send(&r->ag[i], PROTO_CMD_STOP);
		ha_close_in(&r->ag[i]);
	}
	if (hr_loop(r, hr_server_gone, clock_s() + 10))
		for (long i = 0; i < r->nsrv && i < r->nag; i++)
			ha_kill(&r->ag[i], SIGKILL);
	hr_loop(r, hr_server_gone, clock_s() + 5);
	/* drain what the agents wrote last (results, bye) */
	for (long i = 0; i < r->nag; i++)
		if (r->ag[i].out_fd >= 0)
			ha_read(&r->ag[i], hr_line, r);
}

/* RDMA objects are freed asynchronously after the process exits: poll a while. */
static void hr_after(struct hr_run *r)
{
	struct hr_point *pt = r->pt;
	double end = clock_s() + 5;

	if (!pt->have_res)
		return;
	do {
		if (!hs_res_read(r->c->sampler, &pt->res_after) &&
		    !memcmp(pt->res_after.srv, pt->res_base.srv, sizeof(pt->res_base.srv)) &&
		    !memcmp(pt->res_after.cli, pt->res_base.cli, sizeof(pt->res_base.cli)))
			return;
		usleep(50000);
	} while (clock_s() < end);
	pt->leak = true;
	for (int i = 0; i < HS_NRES; i++) {
		size_t l = strlen(pt->leak_what);

		if (pt->res_after.srv[i] != pt->res_base.srv[i] ||
		    pt->res_after.cli[i] != pt->res_base.cli[i])
			snprintf(pt->leak_what + l, sizeof(pt->leak_what) - l, "%s%s %+lld",
				 l ? ", " : "", hs_res_name(i),
				 (long long)(pt->res_after.srv[i] + pt->res_after.cli[i]) -
					 (long long)(pt->res_base.srv[i] + pt->res_base.cli[i]));
	}
}

static void hr_verdict(struct hr_run *r)
{
	struct hr_point *pt = r->pt;
	uint32_t *ok_us;
	long n = 0;

	pt->connected = r->nconn_ok;
	pt->failed = r->nconn_fail;
	pt->unsettled = pt->clients - pt->connected - pt->failed;
	pt->connect_pct = 100.0 * (double)pt->connected / (double)pt->clients;
	{
		/* a client succeeds when it connected and none of its traffic was lost or bad */
		long lost = (long)(pt->lost + pt->bad);
		long good = pt->connected - (lost > pt->connected ? pt->connected : lost);

		uint64_t m = (uint64_t)r->c->plan->msgs, due = (uint64_t)pt->connected * m;

		/* round trips that never happened count whole clients as failed */
		if (pt->msgs < due && !lost && m)
			good = pt->connected - (long)((due - pt->msgs + m - 1) / m);
		if (good < 0)
			good = 0;
		pt->success_pct = 100.0 * (double)good / (double)pt->clients;
	}
	ok_us = malloc(sizeof(*ok_us) * (size_t)(pt->connected + 1));
	if (ok_us) {
		for (long id = 0; id < pt->clients; id++)
			if (r->st[id] == ST_OK)
				ok_us[n++] = r->us[id];
		hs_exact(ok_us, (size_t)n, &pt->conn_us);
		free(ok_us);
	}
	hs_hist(r->hist->n, PROTO_HIST_BUCKETS, &pt->lat_ns);
	for (unsigned b = 0; b < PROTO_HIST_BUCKETS; b++)
		if (pt->lat_ns.p50 && proto_hist_value(b) > 10 * pt->lat_ns.p50)
			pt->lat_slow += r->hist->n[b];
	if (pt->t_traffic_s > 0)
		pt->msgs_per_s = (double)pt->msgs / pt->t_traffic_s;
	if (pt->connected) {
		pt->srv_bytes_per_conn =
			1024.0 * (double)(pt->srv_rss_peak_kb - pt->srv_rss_base_kb) / (double)pt->connected;
		pt->kern_bytes_per_conn = 1024.0 * (double)(pt->slab_peak_kb - pt->slab_base_kb) /
					  (double)pt->connected;
	}
	if (pt->ncauses) {
		int best = 0;

		/*
		 * The first failure's cause names the limit. When what a client saw is
		 * only the effect of the server closing on it (EOF, reset), the server's
		 * own reason for dropping peers is the cause.
		 */
		const char *e = pt->fails[0].errname;
		bool effect = !strcmp(e, "eof") || !strcmp(e, "ECONNRESET") || !strcmp(e, "EPIPE");

		for (int i = 0; i < pt->ncauses; i++)
			if (!strcmp(pt->causes[i].call, pt->fails[0].call) &&
			    !strcmp(pt->causes[i].errname, e))
				best = i;
		for (int i = pt->ncauses - 1; effect && i >= 0; i--)
			if (!strcmp(pt->causes[i].call, "server"))
				best = i;
		hr_explain(r->c, pt->causes[best].call, pt->causes[best].err, pt->causes[best].errname,
			   pt->causes[best].count, pt->cause, sizeof(pt->cause));
	}

	pt->ok = false;
	if (pt->aborted)
		snprintf(pt->why, sizeof(pt->why), "interrupted");
	else if (pt->why[0])
		;
	else if (pt->connected < pt->clients)
		snprintf(pt->why, sizeof(pt->why), "%ld of %ld clients did not connect: %s",
			 pt->clients - pt->connected, pt->clients, pt->cause[0] ? pt->cause : "?");
	else if (pt->bad || pt->lost || pt->msgs != pt->expect_msgs || pt->verified != pt->msgs)
		snprintf(pt->why, sizeof(pt->why),
			 "traffic: %llu of %llu round trips, %llu verified, %llu bad, %llu lost%s%s",
			 (unsigned long long)pt->msgs, (unsigned long long)pt->expect_msgs,
			 (unsigned long long)pt->verified, (unsigned long long)pt->bad,
			 (unsigned long long)pt->lost, pt->cause[0] ? ": " : "", pt->cause);
	else if (pt->leak)
		snprintf(pt->why, sizeof(pt->why), "RDMA resources not back to baseline: %s",
			 pt->leak_what);
	else if (pt->proto_errors)
		snprintf(pt->why, sizeof(pt->why), "%ld malformed agent records", pt->proto_errors);
	else
		pt->ok = true;
}

static int hr_setup(struct hr_run *r, long clients)
{
	struct itimerspec its = { .it_interval = { 0, HR_TICK_MS * 1000000L },
				  .it_value = { 0, HR_TICK_MS * 1000000L } };
	struct epoll_event ev;

	r->ep = epoll_create1(EPOLL_CLOEXEC);
	r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (r->ep < 0 || r->tfd < 0 || timerfd_settime(r->tfd, 0, &its, NULL))
		return -1;
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = HR_EV_TICK };
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, r->tfd, &ev))
		return -1;
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = HR_EV_SIG };
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, r->c->sigfd, &ev))
		return -1;
	r->nag = r->pt->agents + r->nsrv;
	r->ag = calloc((size_t)r->nag, sizeof(*r->ag));
	for (r->pid_cap = 16; r->pid_cap < (size_t)r->nag * 2; r->pid_cap *= 2)
		;
	r->pid_of = calloc(r->pid_cap * 2, sizeof(*r->pid_of));
	r->st = calloc((size_t)clients, 1);
	r->us = calloc((size_t)clients, sizeof(*r->us));
	r->hist = calloc(1, sizeof(*r->hist));
	if (!r->ag || !r->pid_of || !r->st || !r->us || !r->hist)
		return -1;
	return 0;
}

static void hr_teardown(struct hr_run *r)
{
	for (long i = 0; i < r->nag; i++)
		ha_free(&r->ag[i]);
	free(r->ag);
	free(r->pid_of);
	free(r->st);
	free(r->us);
	free(r->hist);
	if (r->tfd >= 0)
		close(r->tfd);
	if (r->ep >= 0)
		close(r->ep);
}

int hr_point_run(struct hr_ctx *c, long clients, struct hr_point *pt)
{
	struct hr_run r = { .c = c, .pt = pt, .ep = -1, .tfd = -1 };
	struct hx_proc p;
	int rc;

	memset(pt, 0, sizeof(*pt));
	r.t_start = clock_s();
	hr_layout(&r, clients);
	pt->expect_msgs = (uint64_t)clients * (uint64_t)c->plan->msgs;
	/*
	 * Shared namespace: keep clear of other runs' ports, and below the default
	 * ephemeral range (32768-60999), where our own clients' TIME_WAIT sockets
	 * would make the next point's bind fail with EADDRINUSE.
	 */
	r.port = c->topo->kind == NN_LOOP ? 20000 + (strtol(c->topo->run, NULL, 16) % 180) * 64
					  : OPT_DEF_PORT;
	if (hr_setup(&r, clients)) {
		snprintf(pt->why, sizeof(pt->why), "setup: %s", strerror(errno));
		r.nag = r.ag ? r.nag : 0;
		goto out;
	}
	if (c->sampler && hs_has_res(c->sampler) && !hs_res_read(c->sampler, &pt->res_base)) {
		pt->have_res = true;
		r.res_now = pt->res_base;
	}

	if (hr_start_agents(&r))
		goto stop;
	for (long i = 0; i < r.nsrv; i++)
		if (!hx_proc_read(r.ag[i].pid, true, &p)) {
			pt->srv_rss_base_kb += p.rss_kb;
			r.srv_fds_base += p.fds;
		}
	hx_slab_kb(&pt->slab_base_kb);
	rc = hr_loop(&r, hr_all_hello, clock_s() + 30 + 0.05 * (double)r.nag);
	if (rc || !hr_all_hello(&r) || r.srv_exited) {
		if (!pt->why[0])
			snprintf(pt->why, sizeof(pt->why), "client agents did not start: %s",
				 rc == 2 ? "interrupted" : "deadline");
		goto stop;
	}
	pt->started = true;

	r.phase = 1;
	r.t_go = clock_s();
	for (long i = r.nsrv; i < r.nag; i++)
		ha_send(&r.ag[i], PROTO_CMD_GO);
	rc = hr_loop(&r, hr_all_connected,
		     r.t_go + (double)dl_connect_ns((uint64_t)pt->timeout_s,
						    (uint64_t)c->plan->stagger_ms,
						    (uint64_t)(clients / pt->agents + 1)) / 1e9 +
			     DL_GRACE_S);
	pt->t_connect_s = clock_s() - r.t_go;
	hr_progress(&r, true);
	pt->connected = r.nconn_ok;
	if (rc == 2)
		goto stop;
	if (rc == 1) {
		pt->timeout_connect = true;
		for (long i = r.nsrv; i < r.nag; i++)
			if (!r.ag[i].connected)
				hr_fail_pending(&r, &r.ag[i], "connect-phase", "timeout");
	}
	hr_peak(&r);

	r.phase = 2;
	{
		double t0 = clock_s();
		long waiting = 0;

		for (long i = r.nsrv; i < r.nag; i++) {
			if (r.ag[i].connected && !r.ag[i].exited && r.ag[i].ok && !r.ag[i].result &&
			    !ha_send(&r.ag[i], PROTO_CMD_RUN)) {
				waiting++;
				continue;
			}
			/* nothing to run: count it as done */
			if (!r.ag[i].result) {
				r.ag[i].result = true;
				r.n_result_agents++;
			}
		}
		rc = waiting ? hr_loop(&r, hr_all_results,
				       t0 + (double)dl_traffic_ns((uint64_t)pt->timeout_s,
								  (uint64_t)c->plan->think_ms,
								  (uint64_t)c->plan->msgs) / 1e9 +
					       DL_GRACE_S)
			     : 0;
		pt->t_traffic_s = clock_s() - t0;
		if (rc == 1)
			pt->timeout_traffic = true;
	}

stop:
	hr_stop_all(&r);
	hr_after(&r);
out:
	pt->aborted = c->aborted;
	hr_verdict(&r);
	hr_teardown(&r);
	return c->aborted ? -1 : 0;
}

void hr_point_free(struct hr_point *pt)
{
	hs_series_free(&pt->series);
}
