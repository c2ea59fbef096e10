/* SPDX-License-Identifier: MIT */
/*
 * rt: the runtime of one load point, its private context while it runs,
 * shared by the files of harness/point/ that split the point runtime by
 * decision. Not for use outside them; load/ and main see only point.h.
 *
 *   point.c    the phases in order (start, connect, peak, traffic, stop) and
 *              their deadlines (common/deadline.h)                       pt_
 *   layout.c   how many server and client processes, ports, fd limits    lay_
 *   spawn.c    agent argv and starting the processes                     sp_
 *   loop.c     the event loop: pipes, sampler tick, signals, reaping     lp_
 *   records.c  parsed records (common/proto.h) into the point's state    rec_
 *   measure.c  peak and after figures from /proc and the RDMA counters   meas_
 *   verdict.c  figures and the verdict once the agents are gone          vd_
 *   cause.c    a failing call and errno as the limit behind it           cause_
 *   pfault.c   --fault in the traffic phase: when, the wait, the undo,
 *              what it cost (fault.h strikes)                            pf_
 *   memfloor.c MemAvailable against --mem-floor at the sampler's tick    mf_
 *   lost.c     a --hosts host lost mid-point: named, its clients failed  lost_
 *   cpus.c     a CPU of its own for each spinning loop (--poll)          cpu_
 *   rsample.c  each --hosts host's counters at baseline, peak and after
 *              (rsample.h, also read by the TAP and JSON writers)        rsmp_
 *
 * Data flows one way: plan -> layout -> agents -> records -> verdict; the
 * TAP and JSON writers (harness/figures/: pointtap.c, json.c, through fig.h) read
 * struct pt_point. May use agent.h, memfloor.h, proc.h, harness/sample/sample.h,
 * harness/hosts/remote.h, common/.
 */
#ifndef RDC_HARNESS_RT_H
#define RDC_HARNESS_RT_H

#include <stdbool.h>
#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/proto.h"
#include "harness/point/agent.h"
#include "harness/point/point.h"

/* Phases in the order a point goes through them. */
enum rt_phase { RT_START, RT_CONNECT, RT_TRAFFIC, RT_STOP, RT_NPHASES };

/* The settled state of one client id. */
enum rt_st { RT_PENDING, RT_OK, RT_FAIL };

struct rt {
	struct pt_ctx *c;
	struct pt_point *pt;
	int ep, tfd;
	struct agt_agent *ag; /* [0, nsrv) servers, [nsrv, nag) clients */
	long nag, nsrv, srv_exited, srv_fds_base;
	pid_t *pid_of;       /* hash: pid -> agent index + 1 */
	size_t pid_cap;
	uint8_t *st;         /* enum rt_st per client id */
	uint32_t *us;        /* connect time per client id */
	struct proto_hist *hist;
	struct proto_hist *steps;	/* [PROTO_NSTEPS]: setup steps */
	double t_start, t_go;
	double last_progress;
	long nconn_ok, nconn_fail;
	long n_connected_agents, n_result_agents, n_hello;
	struct smp_res res_now;
	double t_res_next;   /* the sampler reads res_now again from then (loop.c) */
	double t_wire;       /* last port counter reading of the sampler tick */
	enum rt_phase phase;
	long port;           /* first server port */
	struct flt_run flt;  /* --fault of this point */
	uint8_t *lost_id;    /* per client id: its traffic failed (named or lost) */
	long retrans_base[NN_MAX_CLIENTS + 1]; /* tcp: per namespace when the fault struck */
	bool srv_kill_expected; /* the fault killed the server: wait for the clients */
	int mf_fd;           /* /proc/meminfo kept open, -1: no floor (memfloor.c) */
	double mf_next;      /* MemAvailable is read again from then */
	int cpu[CPU_SETSIZE]; /* cpus.c: the loops' CPUs, servers' loops first, clients' */
	long ncpu;           /* 0: no loop bound */
};

/* layout.c: processes, ports and the per-phase timeout for 'clients'. */
void lay_split(struct rt *r, long clients);

/* The fds one client holds in its agent, and an fi-msg connection in the server. */
long lay_fds_per_client(const struct hp_plan *p);

/*
 * Where agent i of the point stands, from what lay_split decided; the one place
 * the split is worked out. Servers are agents [0, nsrv), all on host 0 (the
 * server's namespace or host). Client agent j = i - nsrv talks to server
 * j % nsrv, lives on client host 1 + j % topo->nclients (topo->cli[host - 1];
 * with --hosts, remote->list.h[host]) as the (j / nclients)th there, and holds
 * pt->clients / pt->agents client ids, one more for the first
 * pt->clients % pt->agents agents, numbered on from the agents before it.
 */
struct lay_agent {
	bool server;
	long host;      /* 0: the server host; k >= 1: client host k */
	long nth;       /* its rank among the agents of its host */
	long srv;       /* the server process it talks to (a server: itself) */
	long first, n;  /* client ids [first, first + n); a server: 0, 0 */
};
struct lay_agent lay_agent_at(const struct rt *r, long i);

/*
 * cpus.c: with --poll busy|adaptive, a CPU of its own for each spinning loop of
 * the point (r->cpu, pt->cpus), or why none is bound (pt->not_pinned). After
 * lay_split, before the agents start.
 */
void cpu_place(struct rt *r);
/* Agent i's --cpus list into buf, "" when none is bound: 0, or -1 if short. */
int cpu_arg(const struct rt *r, long i, char *buf, size_t len);

/* spawn.c: server agents, then (once they listen) the client agents. 0 or -1 (why set). */
int sp_start_agents(struct rt *r);
/* How long agents may take to say hello: max(fixed_s, phase deadline) + ssh start. */
double sp_start_wait_s(const struct rt *r, double fixed_s);

/* loop.c */
int lp_setup(struct rt *r, long clients);
void lp_teardown(struct rt *r);
void lp_pid_put(struct rt *r, pid_t pid, long idx);
/*
 * Runs until done(r) or the deadline: done, deadline, aborted (^C), or
 * MemAvailable below the floor (pt->mem_floor_hit; not once stopping).
 */
enum lp_end { LP_DONE, LP_DEADLINE, LP_ABORTED, LP_MEMORY };
enum lp_end lp_loop(struct rt *r, bool (*done)(struct rt *), double deadline);
/* Reaps every agent that ended, and names it. */
void lp_reap(struct rt *r);
/* Reads whatever an agent's pipe holds now (records of an agent that exited). */
void lp_drain(struct rt *r, struct agt_agent *a);
void lp_progress(struct rt *r, bool force);

/* records.c */
int rec_line(void *ctx, struct agt_agent *a, char *line);
/* A client's failure under its cause (call, errname, at_server: the server's call). */
void rec_fail(struct rt *r, long id, const char *call, int err, const char *errname,
	      bool at_server);
void rec_fail_pending(struct rt *r, struct agt_agent *a, const char *call, const char *errname);
/* Agent a will send no result: its connected clients are lost, named by call and 'why'. */
void rec_agent_lost(struct rt *r, struct agt_agent *a, const char *call, const char *why);
/* Agent a owes no result (nothing to run, or lost): stop waiting for it. */
void rec_agent_done(struct rt *r, struct agt_agent *a);

/* measure.c: RDMA counters before the agents, their processes once started, */
/* the peak with every connection held, and the counters back at baseline after; */
/* the port counters and the run's QP states beside them. */
void meas_res_base(struct rt *r);
void meas_base(struct rt *r);
void meas_peak(struct rt *r);
/*
 * The agents' processes from /proc into the point: the servers' RSS and threads
 * summed (srv_rss_peak_kb, srv_threads), the clients' summed with the largest
 * RSS (cli_rss_kb, cli_threads, cli_rss_max_kb); full adds fds summed and the
 * most maps in one process (srv_fds, srv_maps_max, cli_fds, cli_maps_max),
 * which walk each process's fd table and maps. which: MEAS_SRV, MEAS_CLI or both.
 */
#define MEAS_SRV 1u
#define MEAS_CLI 2u
void meas_agents(struct rt *r, unsigned int which, bool full);
void meas_end(struct rt *r);  /* traffic done: the QPs' states */
/*
 * The agents' CPU over the traffic phase: meas_cpu_start before "run", meas_cpu_end
 * once the results are in (srv_cpu_s, cli_cpu_s; -1 with --hosts, whose
 * agents' /proc is not this host's).
 */
void meas_cpu_start(struct rt *r);
void meas_cpu_end(struct rt *r);
/*
 * Each local agent's CPU over its own setup (setup_srv_cpu, setup_cli_cpu:
 * "cpu_ms/wall_ms" per process): meas_setup_start at "go", meas_setup_agent at a
 * client agent's "connected", meas_setup_end when the connect phase ends (the
 * servers, and clients that never said "connected"). A process whose CPU
 * nears its wall time was the setup's limit while a CPU may have idled.
 */
void meas_setup_start(struct rt *r);
void meas_setup_agent(struct rt *r, struct agt_agent *a);
void meas_setup_end(struct rt *r);
void meas_after(struct rt *r);
/* RDMA objects above the baseline now, both sides: what teardown has to free */
uint64_t meas_held(struct rt *r);

/* memfloor.c: the floor of the point (pt_ctx.mem_floor_kb) read at the tick */
void mf_open(struct rt *r);  /* first thing in lp_setup: mf_fd, pt->mem_start */
void mf_close(struct rt *r);
/* MemAvailable, at most every 100 ms until the stop: sets pt->mem_floor_hit */
void mf_tick(struct rt *r);

/* verdict.c */
void vd_verdict(struct rt *r);

/* cause.c: the cause behind the point's failures, explained into pt->cause. */
void cause_pick(struct rt *r);

/*
 * lost.c: a --hosts host lost mid-point. lost_ended: agent a's launcher ended
 * with 'status'; true when that means its host is lost (then
 * named, its clients failed, a server host's loss the point's why).
 * lost_silent: a's phase deadline (deadline_s) passed with no record from it.
 * lost_stop: a did not end within wait_s of "stop" (srun, mpirun: the
 * launcher never heard of its node again; ssh names a silent host itself).
 * lost_cause: the lost hosts first in pt->cause.
 */
bool lost_ended(struct rt *r, struct agt_agent *a, int status);
void lost_silent(struct rt *r, struct agt_agent *a, double deadline_s);
void lost_stop(struct rt *r, struct agt_agent *a, double wait_s);
void lost_cause(struct rt *r);

/* pfault.c */
void pf_init(struct rt *r);               /* before the agents start: flt_arm */
/* The traffic wait (lp_loop until done or end) with the fault struck on time. */
enum lp_end pf_traffic(struct rt *r, bool (*done)(struct rt *), double t0, double end);
void pf_undo(struct rt *r);               /* idempotent */
void pf_disarm(struct rt *r);             /* after the agents stopped */
void pf_mark_lost(struct rt *r, long id); /* client id's traffic failed */
void pf_failed(struct rt *r, const char *call, const char *errname); /* a failure record arrived */
void pf_figures(struct rt *r);
void pf_cause(struct rt *r, char *out, size_t len);

#endif
