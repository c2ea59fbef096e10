/* SPDX-License-Identifier: MIT */
/*
 * fault: --fault, one failure injected into a point's traffic phase, and its undo.
 *
 * Offers: the strict spec parser (cli.c calls it before anything exists), what a
 * kind needs of the host (tc and sch_netem for netem kinds: flt_unavailable),
 * and, for one point, arm (before its agents start) / apply / the timed undo
 * (stop-server:MS, link-down:MS) / the undo at the point's end, which is
 * idempotent and runs also when rdmacap is interrupted / disarm (after its
 * agents stopped). What a fault did ends up in struct flt_result (the point's
 * figures).
 *
 * A netem kind is only what it says: its qdiscs are put on the links while no
 * QP of the point exists (flt_arm), and the fault is switched on and off by
 * changing them in place. Adding or deleting a root qdisc on a live link swaps
 * in noop_qdisc for a moment (net/sched/sch_api.c qdisc_graft, dev_deactivate),
 * whose enqueue drops with NET_XMIT_CN; rxe (7.2 as measured) fails the QP of any
 * request whose ip_local_out did not return 0 (rxe_requester: rxe_xmit_packet,
 * IB_WC_LOC_QP_OP_ERR). Its queue cap is beyond reach (fault.c FLT_NETEM_LIMIT).
 *
 *   kill-client[:N]        SIGKILL the first N client agents (default 1)
 *   kill-server            SIGKILL every server agent
 *   stop-server:MS         SIGSTOP every server agent, SIGCONT after MS
 *   link-down[:MS][:server] the client namespace 1's veth (or the server's link)
 *                          down, up again after MS (default: at the point's end)
 *   loss:PCT               netem on every veth of the topology, both directions
 *   delay:MS[:JITTER]      netem delay (jitter <= delay)
 *   reorder:PCT            netem: PCT% of packets sent at once, the others 10 ms late
 *
 * Everything it changes lives in the run's rdc namespaces, so `rdmacap down`
 * removes what a crashed run left (qdiscs and links go with their namespace; a
 * stopped agent dies with rdmacap through its PDEATHSIG).
 *
 * Uses: netns/netns.h (the topology's names, nn_enter), common/opt.h, libc.
 * ip and tc run as children inside the namespace, waited for by pid.
 */
#ifndef RDC_HARNESS_FAULT_H
#define RDC_HARNESS_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "netns/netns.h"

enum flt_kind {
	FLT_NONE, FLT_KILL_CLIENT, FLT_KILL_SERVER, FLT_STOP_SERVER, FLT_LINK_DOWN,
	FLT_LOSS, FLT_DELAY, FLT_REORDER, FLT_NKINDS
};

struct flt_spec {
	enum flt_kind kind;
	long n;          /* kill-client: agents */
	long ms;         /* stop-server, link-down: how long (0: to the end); delay */
	long jitter_ms;  /* delay */
	long pct;        /* loss, reorder */
	bool server;     /* link-down: the server's link */
	char text[48];   /* the spec as given */
};

/* reorder: the delay of the packets netem does not send at once */
#define FLT_REORDER_DELAY_MS 10
#define FLT_MAX_TARGETS (2 * NN_MAX_CLIENTS + 2)

/* The spec's grammar, for --help and errors. */
extern const char flt_grammar[];

/* Parses s strictly (no blanks, no junk, numbers in range). 0, or -1 with err. */
int flt_parse(const char *s, struct flt_spec *f, char *err, size_t len);

/* netem kinds (loss, delay, reorder) */
bool flt_netem(const struct flt_spec *f);
/* kinds that act on the topology's links: they need namespaces (pair, star) */
bool flt_on_links(const struct flt_spec *f);
/* kinds whose lost connections are the finding (kill, stop, link-down) */
bool flt_destructive(const struct flt_spec *f);

/* NULL, or why this host cannot apply f (tc missing, no sch_netem), into buf. */
const char *flt_unavailable(const struct flt_spec *f, char *buf, size_t len);

/* What a point's fault did (figures, fig.c). */
struct flt_result {
	bool asked, applied, undone;
	double at_ms;        /* applied, after "run" */
	double undo_ms;      /* the timed undo, after applying; 0 none */
	double detect_ms;    /* first failure an agent reported after it; -1 none */
	double recover_ms;   /* longest round trip minus the outage; 0 when none */
	double bound_ms;     /* a dead peer must be noticed within this (deadline.h) */
	bool late;           /* the first failure came after bound_ms */
	long at_deadline;    /* failures that were the phase deadline: never noticed */
	long survived, failed, named; /* connected clients; failed with a named record */
	long tcp_retrans;    /* tcp: segments retransmitted in the topology, -1 unknown */
	char did[256];       /* what was done */
	char err[256];       /* why applying or undoing failed */
};

/* One point's fault while it runs. */
struct flt_run {
	const struct flt_spec *spec;
	const struct nn_topo *topo;
	struct flt_result *res;
	double t_applied, t_due; /* clock_s; t_due: the timed undo, 0 none */
	pid_t stopped[FLT_MAX_TARGETS];
	int nstopped;
	struct { char ns[NN_NAME_MAX]; char dev[16]; } q[FLT_MAX_TARGETS], link;
	int nq;         /* netem qdiscs armed */
	bool netem_on;  /* ... with the fault's parameters */
	bool link_down;
};

void flt_init(struct flt_run *f, const struct flt_spec *spec, const struct nn_topo *topo,
	      struct flt_result *res);

/*
 * netem kinds: a pass-through netem on every link of the topology, before the
 * point's agents start. 0 (nothing to do for other kinds), or -1 with res->err.
 */
int flt_arm(struct flt_run *f);

/*
 * Applies the fault: srv[] are the server agents' pids, cli[] the client
 * agents' with conns[] their connections. 0, or -1 with res->err set (what
 * was done is still undone by flt_undo).
 */
int flt_apply(struct flt_run *f, const pid_t *srv, int nsrv, const pid_t *cli,
	      const long *conns, int ncli, double now);

/* The timed undo, when due (call it often). */
void flt_tick(struct flt_run *f, double now);

/*
 * Undoes whatever is still applied (netem: back to pass-through); safe to call
 * twice. 0, or -1 with res->err.
 */
int flt_undo(struct flt_run *f, double now);

/* Removes what flt_arm put on the links, once the point's agents are gone. */
int flt_disarm(struct flt_run *f);

#endif
