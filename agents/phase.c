// SPDX-License-Identifier: MIT
/*
 * Client phase driver: go, the staggered setups and their deadlines, the
 * connected record, run, the traffic report, stop. See phase.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/phase.h"
#include "common/deadline.h"
#include "common/proto.h"

static int ph_arm(int tfd, uint64_t at, uint64_t *armed)
{
	struct itimerspec its = { 0 };

	if (at == *armed)
		return 0;
	its.it_value.tv_sec = (time_t)(at / 1000000000ull);
	its.it_value.tv_nsec = (long)(at % 1000000000ull);
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL)) {
		ag_warn("timerfd_settime: %s", strerror(errno));
		return -1;
	}
	*armed = at;
	return 0;
}

static void ph_settle(struct ph *p, bool ok)
{
	p->settled++;
	if (ok)
		p->nok++;
	else
		p->nfail++;
}

void ph_up(struct ph *p, uint32_t i)
{
	proto_conn_ok(p->o->first_id + i, (clock_ns() - p->t0[i]) / 1000);
	load_attach(&p->load, i);
	ph_settle(p, true);
}

void ph_fail(struct ph *p, uint32_t i, const char *call, int err, const char *ename,
	     bool at_server, int status)
{
	proto_conn_fail(p->o->first_id + i, call, err, ename, at_server, status);
	ph_settle(p, false);
}

/* when setup i is due: --stagger-ms apart from "go" */
static uint64_t ph_due(const struct ph *p, uint32_t i)
{
	return p->t_go + (uint64_t)p->o->stagger_ms * 1000000ull * i;
}

/* Starts the setups that are due; true when more are due right now. */
static bool ph_start_due(struct ph *p)
{
	uint64_t now = clock_ns(), due;
	uint32_t budget = p->ops->batch;

	while (p->next < p->n) {
		due = ph_due(p, p->next);
		if (due > now) {
			ph_arm(p->stag, due, &p->stag_armed);
			return false;
		}
		if (!budget--)
			return true;
		/* a setup that settles wakes the loop, which starts the next */
		if (p->lead && p->next - p->settled >= p->lead)
			return false;
		p->t0[p->next] = p->mark[p->next] = clock_ns();
		p->ops->start(p->arg, p->next++);
	}
	return false;
}

/*
 * Where setup i's deadline runs from: its start, or with a lead when it was due,
 * so holding it back moves neither it nor deadline.h's rule (the agent's
 * deadline before the harness's). Either way in order, as setups start.
 */
static uint64_t ph_dl_base(const struct ph *p, uint32_t i)
{
	return p->lead ? ph_due(p, i) : p->t0[i];
}

static void ph_dl_arm(struct ph *p)
{
	while (p->dl_head < p->next && !p->ops->pending(p->arg, p->dl_head))
		p->dl_head++;
	if (p->dl_head < p->next)
		ph_arm(p->dl, ph_dl_base(p, p->dl_head) + dl_setup_ns(p->o->timeout_s),
		       &p->dl_armed);
}

static void ph_dl_expire(struct ph *p)
{
	uint64_t now = clock_ns(), t = dl_setup_ns(p->o->timeout_s), exp;

	if (read(p->dl, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		ag_warn("read deadline timer: %s", strerror(errno));
	p->dl_armed = 0;
	for (; p->dl_head < p->next; p->dl_head++) {
		if (!p->ops->pending(p->arg, p->dl_head))
			continue;
		if (ph_dl_base(p, p->dl_head) + t > now)
			break;
		p->ops->expire(p->arg, p->dl_head);
	}
	/* what the lead held back past its deadline fails unstarted, as it would have queued */
	while (p->lead && p->next < p->n && ph_due(p, p->next) + t <= now) {
		p->t0[p->next] = p->mark[p->next] = ph_due(p, p->next);
		p->ops->expire(p->arg, p->next++);
	}
	ph_dl_arm(p);
}

static void ph_run(struct ph *p)
{
	p->phase = PH_RUN;
	if (load_run(&p->load))
		p->phase = PH_STOP;
}

/*
 * "stop" or EOF. Traffic cut short still earned its record: what was measured,
 * the unfinished round trips as lost, before the caller's "bye".
 */
static void ph_stop(struct ph *p)
{
	if (p->phase == PH_RUN) {
		load_cut(&p->load, false);
		load_report(&p->load, p->steps);
	}
	p->phase = PH_STOP;
}

static void ph_ctl(struct ph *p)
{
	enum ctl_cmd cmd;

	while ((cmd = ctl_next(&p->ctl)) != CTL_NONE) {
		switch (cmd) {
		case CTL_GO:
			if (p->phase != PH_WAIT_GO) {
				ag_warn("stdin: 'go' twice ignored");
				break;
			}
			p->t_go = clock_ns();
			p->phase = PH_CONNECT;
			break;
		case CTL_RUN:
			if (p->phase == PH_WAIT_RUN)
				ph_run(p);
			else if (p->phase == PH_WAIT_GO || p->phase == PH_CONNECT)
				p->run_pending = true;	/* run once connected */
			else
				ag_warn("stdin: 'run' twice ignored");
			break;
		default:
			ph_stop(p);
			return;
		}
	}
}

/* Phase changes that follow from events; true when the loop must not block. */
static bool ph_progress(struct ph *p)
{
	bool busy = false;

	if (p->phase == PH_CONNECT) {
		busy = ph_start_due(p);
		ph_dl_arm(p);
		if (p->next == p->n && p->settled == p->n) {
			proto_connected(p->nok, p->nfail, (clock_ns() - p->t_go) / 1000);
			p->phase = PH_WAIT_RUN;
			if (p->run_pending)
				ph_run(p);
		}
	}
	if (p->phase == PH_RUN && load_finished(&p->load)) {
		load_report(&p->load, p->steps);
		p->phase = PH_HOLD;
	}
	return busy;
}

int ph_loop(struct ph *p)
{
	struct epoll_event ev[PH_EVENTS_MAX];
	int max = (int)(p->ops->events < PH_EVENTS_MAX ? p->ops->events : PH_EVENTS_MAX);
	bool busy = false;
	uint32_t t, v;
	int i, n, spin;

	while (p->phase != PH_STOP && !proto_dead()) {
		if (!p->ctl.pollable) {
			ph_ctl(p);
			busy |= ph_progress(p);
			if (p->phase == PH_STOP)
				break;
		}
		spin = p->ops->spin ? p->ops->spin(p->arg) : 0;
		if (spin < 0)
			return -1;
		/* what spin read may have settled the last setup or ended the traffic */
		if (p->ops->spin)
			busy |= ph_progress(p);
		/* stdin that cannot be polled is read again every 100 ms */
		n = epoll_wait(p->ep, ev, max, busy || spin ? 0 : p->ctl.pollable ? -1 : 100);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ag_fatal("epoll_wait", "client loop", errno);
			return -1;
		}
		for (i = 0; i < n && p->phase != PH_STOP; i++) {
			t = TAG_TYPE(ev[i].data.u64);
			v = TAG_VAL(ev[i].data.u64);
			switch (t) {
			case PH_T_CTL:
				ph_ctl(p);
				break;
			case PH_T_STAGGER:
				if (read(p->stag, &p->stag_armed, 8) < 0 && errno != EAGAIN)
					ag_warn("read stagger timer: %s", strerror(errno));
				p->stag_armed = 0;
				break;
			case PH_T_DEADLINE:
				ph_dl_expire(p);
				break;
			case PH_T_LOAD:
				if (load_on_timer(&p->load))
					p->phase = PH_STOP;
				break;
			default:
				if (p->ops->event(p->arg, t, v, ev[i].events))
					return -1;
				break;
			}
		}
		busy = ph_progress(p);
	}
	return 0;
}

void ph_step(struct ph *p, uint32_t i, enum proto_step s)
{
	uint64_t now = clock_ns();

	if (i >= p->n || (unsigned)s >= PROTO_NSTEPS)
		return;
	proto_hist_add(&p->steps[s], now - p->mark[i]);
	p->mark[i] = now;
}

int ph_watch(struct ph *p, int fd, uint32_t events, uint64_t tag, const char *what)
{
	return tag_watch(p->ep, fd, events, tag, what);
}

int ph_init(struct ph *p, const struct ag_opts *o, const struct ph_ops *ops,
	    const struct load_ops *lops, void *arg)
{
	struct load_cfg lc = {
		.nconn = o->clients, .first_id = o->first_id, .msgs = o->msgs,
		.size = o->size, .think_ms = o->think_ms, .workers = o->workers,
		.timeout_s = o->timeout_s,
	};

	memset(p, 0, sizeof(*p));
	p->o = o;
	p->ops = ops;
	p->arg = arg;
	p->n = o->clients;
	p->ep = p->stag = p->dl = -1;
	p->t0 = calloc(p->n ? p->n : 1, sizeof(*p->t0));
	p->mark = calloc(p->n ? p->n : 1, sizeof(*p->mark));
	p->steps = calloc(PROTO_NSTEPS, sizeof(*p->steps));
	if (!p->t0 || !p->mark || !p->steps) {
		ag_fatal("calloc", "client state", ENOMEM);
		return -1;
	}
	if (load_init(&p->load, &lc, lops, arg)) {
		ag_fatal("load_init", "traffic engine", ENOMEM);
		return -1;
	}
	p->loaded = true;
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	if (p->ep < 0) {
		ag_fatal("epoll_create1", "client loop", errno);
		return -1;
	}
	p->stag = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	p->dl = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (p->stag < 0 || p->dl < 0) {
		ag_fatal("timerfd_create", "client timers", errno);
		return -1;
	}
	if (ph_watch(p, p->stag, EPOLLIN, PH_TAG(PH_T_STAGGER, 0), "stagger timer") ||
	    ph_watch(p, p->dl, EPOLLIN, PH_TAG(PH_T_DEADLINE, 0), "deadline timer") ||
	    ph_watch(p, load_timer_fd(&p->load), EPOLLIN, PH_TAG(PH_T_LOAD, 0),
		     "think timer"))
		return -1;
	if (ctl_init(&p->ctl, STDIN_FILENO) || ctl_watch(&p->ctl, p->ep, PH_TAG(PH_T_CTL, 0)))
		return -1;
	return 0;
}

void ph_fini(struct ph *p)
{
	if (p->dl >= 0 && close(p->dl))
		ag_warn("close deadline timer: %s", strerror(errno));
	if (p->stag >= 0 && close(p->stag))
		ag_warn("close stagger timer: %s", strerror(errno));
	if (p->ep >= 0 && close(p->ep))
		ag_warn("close client loop: %s", strerror(errno));
	p->dl = p->stag = p->ep = -1;
	if (p->loaded)
		load_fini(&p->load);
	p->loaded = false;
	free(p->t0);
	free(p->mark);
	free(p->steps);
	p->t0 = p->mark = NULL;
	p->steps = NULL;
}
