/* SPDX-License-Identifier: MIT */
/*
 * proto: the agent <-> orchestrator contract, the one place it is written down.
 * Offers the record and command types, their writers (agents) and strict parsers
 * (orchestrator, tests, fuzzers), the latency histogram codec and the constants both
 * programs share. May use libc only.
 *
 * The orchestrator starts every agent with a pipe on its stdin and one on its
 * stdout. The agent writes one record per line on stdout, each with one write(2):
 *
 *     <head> key=value key=value ...\n
 *
 * The head is one or two words ("bye", "conn ok", "hello role=server"). Keys and
 * values are non-empty words of [A-Za-z0-9_.:,/+-], so a record can be re-emitted
 * as a TAP diagnostic or a JSON string unchanged (writers replace any other byte
 * with '_'). Keys may come in any order after the head. Anything human goes to
 * stderr, which the orchestrator passes through.
 *
 * Records (fields in [] are optional, every other one is required):
 *
 * Server agent (--role server):
 *   hello role=server pid=P ports=K port=FIRST [max_backlog=N]
 *                       listening sockets are up; max_backlog when rc rdmacm can
 *                       read the kernel's limit
 *   drop peer=ADDR reason=WORD        a peer was dropped (hostile or dead)
 *   result role=server accepted=A peak=C echoed=M bytes=B dropped=D
 *                      [rejected=R cq_events=Q] [ah=H ah_made=N] [loops=L]
 *                      [cq_arms=Y cq_spins=Z]    after "stop";
 *                       M is the echoes, or with rc --op atomic the sum of the
 *                       connections' counters (the adds they took); rc adds R
 *                       connection requests it rejected, Q CQ events, Y CQs
 *                       armed again after a completion and Z polls that found
 *                       a spinning CQ empty (struct proto_cq); ud
 *                       adds R and Q too, H the most address handles it held
 *                       at once and N the ibv_create_ah* calls it made;
 *                       L, from a server of several event loops
 *                       (--server-threads), each loop's connections accepted
 *                       and the CPU time of its thread while it served, in
 *                       ms: "A:MS,A:MS,..." in loop order (proto_loops_decode)
 *   bye                               after the result, just before exit 0
 *
 * Client agent (--role client):
 *   hello role=client pid=P first=I clients=N    ids I .. I+N-1 are this agent's
 *   conn ok id=I us=U   connection I is up, U us after its first call
 *   conn fail id=I call=C errno=E err=NAME [at=server] [status=S]
 *                       C the failing call (connect, SSL_connect, ibv_create_qp,
 *                       ...), E its errno or 0 when the cause is not an errno
 *                       (err=timeout); at=server when the server's call failed and
 *                       it told the client (rc); S an rdma_cm reject's status
 *   connected ok=C fail=F us=U        every connection of this agent is settled;
 *                                     all C stay open from here on
 *   msg fail id=I call=C errno=E err=NAME    a connection broke during traffic
 *   verify fail id=I seq=S            an echo came back different from what was sent
 *   result role=client ok=C msgs=M verified=V bad=B errors=E us=U hist=H
 *                      [retried=R late=L] [qps=Q] [cq_events=CE cq_arms=CA
 *                      cq_spins=CS] [step_NAME=H ...]
 *                       M round trips, V of them byte-checked, B mismatches, E
 *                       connections lost in traffic, U us of traffic, H latencies;
 *                       ud and uc add R sends repeated after a timeout and L
 *                       echoes that came after their round trip was done, or
 *                       of an earlier send (dropped);
 *                       rc and uc add Q, the QPs the round trips rode (fewer
 *                       than ok with --qp-share) and their poller's counters
 *                       as the server's (struct proto_cq);
 *                       step_NAME the time of each connection's setup step NAME
 *                       (enum proto_step, e.g. step_resolve_route), one per step
 *                       the connection manager has, as histograms too
 *   bye
 *
 * Either role, any time:
 *   error call=C errno=E err=NAME     fatal setup error; the agent exits non-zero
 *
 * Numbers are decimal without leading zeros; errno, pid, status and max_backlog
 * may carry a '-'. Optional numbers read back as PROTO_NONE / PROTO_NONE_I when
 * absent (so those values themselves cannot be sent).
 *
 * Commands, orchestrator -> agent stdin, one word per line, nothing else on it:
 *   go     (clients) start connecting; all agents are released together
 *   run    (clients) start the ping-pongs
 *   stop   close everything, then "result" and "bye"; EOF on stdin means stop too
 *          (the rc server writes "result" before it closes: its teardown may
 *          outlast the harness's wait, common/deadline.h)
 *   kill   SIGKILL yourself at once, nothing closed or said: --fault
 *          kill-server on another host, where rdmacap holds only the
 *          launcher's pid and the agent's stdin is the one channel every
 *          launcher keeps open to it
 *
 * Histogram H: comma-separated "bucket:count" pairs for non-empty buckets in
 * increasing bucket order, or "-" when empty. Buckets are log-linear over
 * round-trip time in ns with PROTO_HIST_SUB buckets per power of two (about 6%);
 * proto_hist_bucket() and proto_hist_value() are the only definition of the mapping.
 *
 * A parser rejects (returns a negative enum proto_err): an unknown head, an
 * unknown, duplicate or missing required key, a bad word, a bad or out-of-range
 * number, a malformed histogram, and a line that with its newline would not be
 * shorter than PROTO_LINE_MAX.
 */
#ifndef RDC_COMMON_PROTO_H
#define RDC_COMMON_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every record, newline included, is shorter than this; either side rejects longer. */
#define PROTO_LINE_MAX 16384
/* CN and DNS SAN of the server certificate the harness issues and clients verify. */
#define PROTO_TLS_SERVER_NAME "rdmacap-server"

#define PROTO_NONE UINT64_MAX  /* an absent optional unsigned field */
#define PROTO_NONE_I INT64_MIN /* an absent optional signed field */

enum proto_type {
	PROTO_HELLO_SERVER,
	PROTO_HELLO_CLIENT,
	PROTO_DROP,
	PROTO_RESULT_SERVER,
	PROTO_RESULT_CLIENT,
	PROTO_CONN_OK,
	PROTO_CONN_FAIL,
	PROTO_CONNECTED,
	PROTO_MSG_FAIL,
	PROTO_VERIFY_FAIL,
	PROTO_ERROR,
	PROTO_BYE,
	PROTO_NTYPES
};

/*
 * The setup steps of a client connection, timed one after the other from its
 * first call: rdmacm resolves the address, creates the QP, resolves the route
 * and connects until ESTABLISHED; oob-tls creates the QP (RESET -> INIT), waits
 * for its TLS session (the handshake, or 0 when the session is up already),
 * exchanges REQ/REP and moves the QP INIT -> RTR -> RTS.
 */
enum proto_step {
	PROTO_STEP_ADDR, PROTO_STEP_ROUTE, PROTO_STEP_QP, PROTO_STEP_CONN,
	PROTO_STEP_TLS, PROTO_STEP_XCHG, PROTO_STEP_RTS, PROTO_NSTEPS
};
/*
 * What a completion poller did (agents/verbs/poll.h): CQ events read, CQs
 * armed again after a completion, and polls that found a spinning CQ empty.
 * --poll event arms on every event and never spins, busy spins and never
 * arms, adaptive does both.
 */
struct proto_cq {
	uint64_t events, arms, spins;
};

/* Words point into the parsed line (or the writer's caller): no copies. */
struct proto_rec {
	enum proto_type type;
	union {
		struct proto_hello_server {
			int64_t pid;
			uint64_t ports, port;
			int64_t max_backlog;     /* optional */
		} hello_server;
		struct proto_hello_client {
			int64_t pid;
			uint64_t first, clients;
		} hello_client;
		struct proto_drop {
			const char *peer, *reason;
		} drop;
		struct proto_result_server {
			uint64_t accepted, peak, echoed, bytes, dropped;
			uint64_t rejected, cq_events, ah, ah_made; /* optional */
			const char *loops;       /* optional, checked: proto_loops_decode */
			uint64_t cq_arms, cq_spins;                /* optional: rc */
		} result_server;
		struct proto_result_client {
			uint64_t ok, msgs, verified, bad, errors, us;
			const char *hist;        /* checked; decode with proto_hist_decode */
			uint64_t retried, late;  /* optional: ud, uc */
			uint64_t qps;            /* optional: rc, the QPs that carried them */
			struct proto_cq cq;      /* optional: rc */
			const char *steps[PROTO_NSTEPS]; /* optional, like hist */
		} result_client;
		struct proto_conn_ok {
			uint64_t id, us;
		} conn_ok;
		/* conn fail, msg fail and error: error has no id */
		struct proto_fail {
			uint64_t id;
			const char *call;
			int64_t err;             /* errno= */
			const char *errname;     /* err= */
			bool at_server;          /* conn fail only, optional */
			int64_t status;          /* conn fail only, optional */
		} fail;
		struct proto_connected {
			uint64_t ok, fail, us;
		} connected;
		struct proto_verify_fail {
			uint64_t id, seq;
		} verify_fail;
	};
};

enum proto_err {
	PROTO_OK = 0,
	PROTO_E_LONG = -1,     /* not shorter than PROTO_LINE_MAX with its newline */
	PROTO_E_TYPE = -2,     /* unknown head */
	PROTO_E_KEY = -3,      /* unknown key, or a token without '=' */
	PROTO_E_DUP = -4,      /* a key twice */
	PROTO_E_MISSING = -5,  /* a required key absent */
	PROTO_E_WORD = -6,     /* empty value or a byte outside the word set */
	PROTO_E_NUMBER = -7,   /* not a canonical decimal, or out of range */
	PROTO_E_HIST = -8,     /* malformed histogram */
	PROTO_E_LOOPS = -9,    /* malformed loops= list */
};

/* "resolve_addr": the step's word, and its key in the record after "step_" */
const char *proto_step_name(enum proto_step s);

/* Record head ("conn fail") of a type. */
const char *proto_type_name(enum proto_type t);
const char *proto_strerror(int err);

/*
 * Parses one record (line without its newline; modified in place: words end up
 * NUL-terminated inside it) into r. 0, or a negative enum proto_err.
 */
int proto_parse(char *line, struct proto_rec *r);
/*
 * Formats r with its newline into buf like snprintf: returns the full length
 * (newline included); buf holds all of it when the result is < len.
 */
int proto_format(const struct proto_rec *r, char *buf, size_t len);

/* --- writers: format one record and write it to the record fd --- */

/* Records go to fd (stdout by default; unit tests use a pipe). */
void proto_set_fd(int fd);
/* True once a write failed (EPIPE: the orchestrator died); later records are dropped. */
bool proto_dead(void);
/* Any record; 0, or -1 when it was not written (a warning went to stderr). */
int proto_send(const struct proto_rec *r);
/* Symbolic errno ("ECONNREFUSED"); "0" for 0 and "EUNKNOWN" for the unknown. */
const char *proto_errname(int err);

struct proto_hist;
int proto_hello_server(uint32_t ports, uint32_t port, long max_backlog /* <0: none */);
int proto_hello_client(uint32_t first, uint32_t clients);
int proto_drop(const char *peer, const char *reason);
int proto_result_server(const struct proto_result_server *s);
/* steps: PROTO_NSTEPS histograms (empty ones are left out), or NULL */
int proto_result_client(const struct proto_result_client *c, const struct proto_hist *h,
			const struct proto_hist *steps);
int proto_conn_ok(uint32_t id, uint64_t us);
/* errname NULL: proto_errname(err); status < 0 or PROTO_NONE_I: none */
int proto_conn_fail(uint32_t id, const char *call, int err, const char *errname,
		    bool at_server, int64_t status);
int proto_connected(uint32_t ok, uint32_t fail, uint64_t us);
int proto_msg_fail(uint32_t id, const char *call, int err, const char *errname);
int proto_verify_fail(uint32_t id, uint32_t seq);
int proto_error(const char *call, int err);
int proto_bye(void);

/* --- commands --- */

enum proto_cmd { PROTO_CMD_GO, PROTO_CMD_RUN, PROTO_CMD_STOP, PROTO_CMD_KILL, PROTO_NCMDS };

const char *proto_cmd_word(enum proto_cmd c);
/* The command of one line (len bytes, no newline), or -1 for anything else. */
int proto_cmd_parse(const char *line, size_t len);

/* --- a server's event loops (result role=server loops=) --- */

/* more loops than this are not listed (--server-threads stops at 64) */
#define PROTO_LOOPS_MAX 64
struct proto_loop {
	uint64_t accepted, cpu_ms;
};
/* "A:MS,..." of n loops into buf (NUL-terminated): its length, or -1 if too small */
int proto_loops_encode(const struct proto_loop *l, unsigned n, char *buf, size_t len);
/*
 * Strict inverse: up to max loops of s into l (l NULL: only checks s). The
 * count, 1..PROTO_LOOPS_MAX, or -1 on any malformed input or more than max.
 */
int proto_loops_decode(const char *s, struct proto_loop *l, unsigned max);

/* --- latency histogram --- */

#define PROTO_HIST_SUB_BITS 4
#define PROTO_HIST_SUB (1u << PROTO_HIST_SUB_BITS)
/* 64-bit values: (64 - SUB_BITS + 1) octaves of SUB buckets */
#define PROTO_HIST_BUCKETS ((64 - PROTO_HIST_SUB_BITS + 1) * PROTO_HIST_SUB)
/* Longest encoding: every bucket "NNN:20digits," */
#define PROTO_HIST_STR_MAX (PROTO_HIST_BUCKETS * 26 + 2)

struct proto_hist {
	uint64_t n[PROTO_HIST_BUCKETS];
	uint64_t total;
};

static inline unsigned proto_hist_bucket(uint64_t v)
{
	unsigned e;

	if (v < PROTO_HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v) - PROTO_HIST_SUB_BITS; /* shift */
	return (e + 1) * PROTO_HIST_SUB + (unsigned)((v >> e) - PROTO_HIST_SUB);
}

/* Lower bound of a bucket: every value v in it has proto_hist_value(b) <= v. */
static inline uint64_t proto_hist_value(unsigned b)
{
	unsigned e;

	if (b < PROTO_HIST_SUB)
		return b;
	e = b / PROTO_HIST_SUB - 1;
	return ((uint64_t)(b % PROTO_HIST_SUB) + PROTO_HIST_SUB) << e;
}

void proto_hist_add(struct proto_hist *h, uint64_t ns);
/* Returns the length written (NUL-terminated), or -1 if buf is too small. */
int proto_hist_encode(const struct proto_hist *h, char *buf, size_t len);
/*
 * Strict inverse of proto_hist_encode: adds the counts of s into h (h NULL: only
 * checks s). 0, or -1 on any malformed input or a total that would overflow;
 * h is unchanged then.
 */
int proto_hist_decode(const char *s, struct proto_hist *h);

#endif
