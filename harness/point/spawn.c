// SPDX-License-Identifier: MIT
/*
 * Spawning: the argv of every agent (the plan's words, from common/opt.h) and
 * the processes, servers first and clients once every server listens.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "common/clock.h"
#include "common/deadline.h"
#include "common/nvmfname.h"
#include "common/srpname.h"
#include "harness/hosts/remote.h"
#include "harness/point/rt.h"

/*
 * Servers listen within this, or the phase deadline when that is longer (see
 * sp_start_wait_s): a ud server posts its QP's 4,096 receives and sets up TLS
 * before its hello, which a loaded host can stretch past this. A server that
 * exits ends the wait at once; only a hung one costs the longer deadline.
 */
#define SP_SRV_START_S 15

struct sp_argv {
	char *v[64];
	char buf[2048];
	size_t used;
	int n;
};

static void sp_arg(struct sp_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sp_arg(struct sp_argv *a, const char *fmt, ...)
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

static void sp_common_args(struct rt *r, struct sp_argv *a, const char *role)
{
	const struct hp_plan *p = r->c->plan;

	sp_arg(a, "%s", agt_binary());
	sp_arg(a, "--role=%s", role);
	sp_arg(a, "--transport=%s", opt_word(OPT_TRANSPORT, p->transport));
	sp_arg(a, "--addr=%s", r->c->topo->srv.addr);
	sp_arg(a, "--size=%ld", p->size);
	sp_arg(a, "--timeout=%ld", r->pt->timeout_s);
	if (p->transport == OPT_TR_TCP)
		sp_arg(a, "--keepidle=%u", dl_tcp_keepidle_s((uint64_t)r->pt->clients));
}

/* --device: the host's RDMA device, and the port --device named */
static void sp_device(struct sp_argv *av, const struct hp_plan *p, const struct nn_host *h)
{
	if (h->rxe[0] && p->device.port)
		sp_arg(av, "--device=%s:%u", h->rxe, p->device.port);
	else if (h->rxe[0])
		sp_arg(av, "--device=%s", h->rxe);
}

static void sp_rc_args(struct rt *r, struct sp_argv *av, const struct nn_host *h, bool server)
{
	const struct hp_plan *p = r->c->plan;
	const char *d = r->c->tls_dir, *role = server ? "server" : "client";

	if (p->transport == OPT_TR_TCP || opt_tr_kernel(p->transport))
		return;
	if (opt_tr_fi(p->transport)) {
		sp_arg(av, "--fi-provider=%s", p->fi_provider);
		sp_arg(av, "--cq=%s", opt_word(OPT_CQ, p->cq));
		sp_arg(av, "--poll=%s", opt_word(OPT_POLL, p->poll));
		if (p->srq)
			sp_arg(av, "--srq");
		return;
	}
	sp_arg(av, "--cm=%s", opt_word(OPT_CM, p->cm));
	sp_device(av, p, h);
	if (p->gid_index >= 0)
		sp_arg(av, "--gid-index=%d", p->gid_index);
	if (p->sl)
		sp_arg(av, "--sl=%d", p->sl);
	if (p->tclass)
		sp_arg(av, "--tclass=%d", p->tclass);
	if (p->transport == OPT_TR_UD) {
		if (server)
			sp_arg(av, "--ah=%s", opt_word(OPT_AH, p->ah));
		if (server && p->ah_max)
			sp_arg(av, "--ah-max=%ld", p->ah_max);
		goto tls;
	}
	sp_arg(av, "--cq=%s", opt_word(OPT_CQ, p->cq));
	sp_arg(av, "--mr=%s", opt_word(OPT_MR, p->mr));
	sp_arg(av, "--op=%s", opt_word(OPT_OP, p->op));
	if (p->srq)
		sp_arg(av, "--srq");
	if (p->rx_depth)
		sp_arg(av, "--rx-depth=%ld", p->rx_depth);
	sp_arg(av, "--oob-session=%s", opt_word(OPT_OOB_SESSION, p->oob_session));
	sp_arg(av, "--poll=%s", opt_word(OPT_POLL, p->poll));
	/* a client's rdma_cm order; the server answers requests as they come */
	if (!server && p->cm == OPT_CM_RDMACM)
		sp_arg(av, "--cm-order=%s", opt_word(OPT_CM_ORDER, p->cm_order));
tls:
	if (p->cm != OPT_CM_OOB_TLS)
		return;
	if (p->tls_ca) {
		/* the user's own PKI: one certificate for both roles */
		sp_arg(av, "--tls-ca=%s", p->tls_ca);
		sp_arg(av, "--tls-cert=%s", p->tls_cert);
		sp_arg(av, "--tls-key=%s", p->tls_key);
	} else if (*d) {
		sp_arg(av, "--tls-ca=%s/ca.pem", d);
		sp_arg(av, "--tls-cert=%s/%s.pem", d, role);
		sp_arg(av, "--tls-key=%s/%s.key", d, role);
	}
}

/*
 * The kernel services: --transport nvmf's subsystem is named after the run
 * (common/nvmfname.h), a client asks for its controllers' queues; srp's
 * target and the clients' initiator_ext are (common/srpname.h), and both
 * sides log in through the host's device. The server sizes its disk for
 * every client's LBA range. The kernel, not the agent, listens on the port.
 */
static void sp_kern_args(struct rt *r, struct sp_argv *av, const struct nn_host *h, bool server)
{
	const struct hp_plan *p = r->c->plan;

	if (p->transport == OPT_TR_SRP) {
		sp_arg(av, "--run=%s", r->c->topo->run);
		sp_arg(av, "--port=%d", SRPN_CM_PORT);
		sp_device(av, p, h);
	} else {
		sp_arg(av, "--nqn=%s%s", NVMFN_NQN_PREFIX, r->c->topo->run);
		sp_arg(av, "--port=%d", NVMFN_TRSVCID);
	}
	if (server) {
		sp_arg(av, "--slots=%ld", r->pt->clients);
		return;
	}
	if (p->transport == OPT_TR_NVMF) {
		sp_arg(av, "--nvme-io-queues=%ld", p->nvme_io_queues);
		sp_arg(av, "--nvme-queue-size=%ld", p->nvme_queue_size);
	}
}

/* --cpus of agent i, when cpu_place bound its loops */
static void sp_cpus(struct rt *r, struct sp_argv *av, long i)
{
	char list[OPT_CPUS_MAX * 5];

	if (!cpu_arg(r, i, list, sizeof(list)) && list[0])
		sp_arg(av, "--%s=%s", OPT_CPUS, list);
}

/*
 * --hosts: the agent's command line, run on its host (lay_agent_at) through
 * its launcher. A watchdog past every phase's deadline ends it whatever happens.
 */
static int sp_remote(struct rt *r, long i, struct sp_argv *av, char *buf, size_t len,
		     char **out, long nofile)
{
	struct lay_agent la = lay_agent_at(r, i);

	if (rm_argv(r->c->remote, (int)la.host, la.nth < RM_SHARED_AGENTS, av->v, nofile,
		    RT_NPHASES * r->pt->timeout_s + 30, buf, len, out, 64)) {
		snprintf(r->pt->why, sizeof(r->pt->why), "agent %ld: ssh command line too long", i);
		return -1;
	}
	return 0;
}

static int sp_spawn(struct rt *r, long i, const char *ns, struct sp_argv *av, long nofile)
{
	struct agt_agent *a = &r->ag[i];
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
	char err[160], buf[4096], *ssh[64];
	char *const *argv = av->v;

	if (r->c->remote) {
		if (sp_remote(r, i, av, buf, sizeof(buf), ssh, nofile))
			return -1;
		argv = ssh;
		nofile = 1024; /* the local ssh client's */
		a->deathsig = rm_deathsig(r->c->remote);
	}
	if (agt_spawn(a, ns, argv, nofile, err, sizeof(err))) {
		snprintf(r->pt->why, sizeof(r->pt->why), "starting agent %ld: %s", i, err);
		return -1;
	}
	lp_pid_put(r, a->pid, i);
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, a->out_fd, &ev)) {
		snprintf(r->pt->why, sizeof(r->pt->why), "epoll_ctl: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static bool sp_srv_hello(struct rt *r)
{
	for (long i = 0; i < r->nsrv; i++)
		if (!r->ag[i].hello && !r->ag[i].exited)
			return false;
	return true;
}

/*
 * The QPs server process i will be asked for: those of the client agents
 * that talk to it (--qp-share: their shared QPs). 0 where the server has no
 * pool (tcp, ud, --server-model thread).
 */
static long sp_pool(struct rt *r, long i)
{
	const struct hp_plan *p = r->c->plan;
	long sum = 0;

	if (!opt_tr_connected(p->transport) || p->server_model != OPT_MODEL_EVENT)
		return 0;
	for (long k = r->nsrv; k < r->nsrv + r->pt->agents; k++) {
		struct lay_agent la = lay_agent_at(r, k);

		if (la.srv == i)
			sum += p->qp_share && p->qp_share < la.n ? p->qp_share : la.n;
	}
	return sum;
}

/* Each server process owns ports/S consecutive ports. */
static int sp_servers(struct rt *r)
{
	const struct hp_plan *p = r->c->plan;
	struct pt_point *pt = r->pt;
	long S = r->nsrv, m = pt->ports / S;

	for (long i = 0; i < S; i++) {
		struct sp_argv av = { 0 };
		long pool = sp_pool(r, i);

		r->ag[i].idx = (int)i;
		r->ag[i].server = true;
		sp_common_args(r, &av, "server");
		if (opt_tr_kernel(p->transport)) {
			sp_kern_args(r, &av, &r->c->topo->srv, true);
			goto spawn;
		}
		sp_arg(&av, "--port=%ld", r->port + i * m);
		sp_arg(&av, "--ports=%ld", m);
		sp_arg(&av, "--server-model=%s", opt_word(OPT_SERVER_MODEL, p->server_model));
		sp_arg(&av, "--server-threads=%ld", p->server_threads);
		sp_rc_args(r, &av, &r->c->topo->srv, true);
		if (pool)
			sp_arg(&av, "--pool=%ld", pool);
		sp_cpus(r, &av, i);
spawn:
		if (sp_spawn(r, i, r->c->topo->srv.ns, &av,
			     pt->clients / S * lay_fds_per_client(p) + 1024)) {
			r->nag = i + (r->ag[i].pid > 0);
			return -1;
		}
	}
	return 0;
}

/*
 * Client agents where lay_agent_at puts them; a tcp client id uses port
 * base + id % ports, so the servers share the load evenly.
 */
static int sp_clients(struct rt *r)
{
	const struct hp_plan *p = r->c->plan;
	struct nn_topo *t = r->c->topo;
	struct pt_point *pt = r->pt;
	long m = pt->ports / r->nsrv;

	for (long i = r->nsrv; i < r->nag; i++) {
		struct lay_agent la = lay_agent_at(r, i);
		const struct nn_host *h = &t->cli[la.host - 1];
		struct agt_agent *a = &r->ag[i];
		struct sp_argv av = { 0 };
		long nofile;

		a->idx = (int)i;
		a->first = la.first;
		a->n = la.n;
		sp_common_args(r, &av, "client");
		if (opt_tr_kernel(p->transport)) {
			sp_kern_args(r, &av, h, false);
		} else if (p->transport != OPT_TR_TCP) {
			/*
			 * An rc client agent sets up all its clients through one
			 * session (TLS or rdma_cm) to one server port: spread the
			 * agents, not the ids, over the server processes.
			 */
			sp_arg(&av, "--port=%ld", r->port + la.srv * m);
			sp_arg(&av, "--ports=1");
		} else {
			sp_arg(&av, "--port=%ld", r->port);
			sp_arg(&av, "--ports=%ld", pt->ports);
		}
		sp_arg(&av, "--clients=%ld", a->n);
		sp_arg(&av, "--first-id=%ld", a->first);
		sp_arg(&av, "--msgs=%ld", p->msgs);
		sp_arg(&av, "--think-ms=%ld", p->think_ms);
		sp_arg(&av, "--stagger-ms=%ld", p->stagger_ms);
		sp_arg(&av, "--workers=%ld", pt->workers);
		if (p->qp_share)
			sp_arg(&av, "--qp-share=%ld", p->qp_share);
		/* our own namespaces: each client host has its address; else the route's */
		if (t->kind != NN_LOOP && t->kind != NN_HOST)
			sp_arg(&av, "--bind=%s", h->addr);
		sp_rc_args(r, &av, h, false);
		sp_cpus(r, &av, i);
		nofile = a->n * lay_fds_per_client(p) + 1024;
		if (nofile > pt->per_agent_nofile)
			pt->per_agent_nofile = nofile;
		if (sp_spawn(r, i, h->ns, &av, nofile)) {
			r->nag = i + (a->pid > 0);
			return -1;
		}
	}
	return 0;
}

/*
 * A loaded host may need the whole phase deadline to start an agent, so it is
 * never less; a remote agent comes through its ssh login and command, measured.
 */
double sp_start_wait_s(const struct rt *r, double fixed_s)
{
	double s = fixed_s > (double)r->pt->timeout_s ? fixed_s : (double)r->pt->timeout_s;

	return s + (r->c->remote ? rm_start_s(r->c->remote) : 0);
}

int sp_start_agents(struct rt *r)
{
	struct pt_point *pt = r->pt;
	long nag = r->nag;
	double wait = sp_start_wait_s(r, SP_SRV_START_S);

	cpu_place(r);
	r->nag = r->nsrv;
	if (sp_servers(r))
		return -1;
	if (lp_loop(r, sp_srv_hello, clock_s() + wait) || r->srv_exited) {
		if (!pt->why[0] && !pt->mem_floor_hit) /* the floor's cause is the why */
			snprintf(pt->why, sizeof(pt->why), "server agents did not start within %.0f s",
				 wait);
		return -1;
	}
	r->nag = nag;
	return sp_clients(r);
}
