/* SPDX-License-Identifier: MIT */
/*
 * agent: start rdmacap-agent processes inside their namespaces and talk to them
 * over their stdin/stdout pipes (the line protocol of common/proto.h).
 */
#ifndef RDC_HARNESS_AGENT_H
#define RDC_HARNESS_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/proto.h"

struct agt_agent {
	int idx;              /* 0 = server, 1.. = client agents */
	bool server;
	pid_t pid;
	long host_pid;        /* its pid on its host (hello), 0: no hello yet */
	int in_fd;            /* their stdin (we write), -1 once closed */
	int out_fd;           /* their stdout (we read), -1 at EOF */
	long first, n;        /* client ids [first, first + n) */
	char *buf;            /* partial line */
	size_t len;
	bool hello, connected, result, bye, exited;
	bool fatal;           /* it sent its fatal-error record */
	bool killed;          /* told to SIGKILL itself by a kill fault (--hosts) */
	int status;           /* wait status once exited */
	long ok, fail;        /* connections reported by this agent */
	int deathsig;         /* what it gets when rdmacap dies (PR_SET_PDEATHSIG), 0: SIGKILL */
	double cpu_s;         /* its utime + stime when the traffic began (measure.c), -1: unread */
	double go_cpu_s;      /* its utime + stime at "go" (measure.c), -1: unread */
	double setup_cpu_s;   /* CPU from "go" to its "connected" (client) or to the end of
				 the connect phase (server), -1: unread */
	double setup_s;       /* the same span's wall time */
};

/*
 * Locates the agent binary: $RDMACAP_AGENT, else rdmacap-agent beside our own
 * executable, else "rdmacap-agent" on PATH.
 */
const char *agt_binary(void);

/*
 * Forks and execs 'argv' (argv[0] is the binary) inside namespace 'ns' with
 * RLIMIT_NOFILE raised to 'nofile' (hard and soft). The child dies with us
 * (PR_SET_PDEATHSIG: a->deathsig). Returns 0, or -1 with the reason in err.
 */
int agt_spawn(struct agt_agent *a, const char *ns, char *const argv[], long nofile, char *err,
	     size_t errlen);

/* Writes one command line; -1 if the agent is gone. */
int agt_send(struct agt_agent *a, enum proto_cmd cmd);

/* Closes the agent's stdin: EOF tells every agent to wind down. */
void agt_close_in(struct agt_agent *a);

/*
 * Reads what is available and calls cb for each complete line (without the
 * newline). Returns 0, 1 at EOF, -1 on a read error or an over-long line.
 */
int agt_read(struct agt_agent *a, int (*cb)(void *ctx, struct agt_agent *a, char *line), void *ctx);

/* Signal to the agent's process (only if it has not been reaped). */
void agt_kill(struct agt_agent *a, int sig);

/* Frees buffers and closes pipes. */
void agt_free(struct agt_agent *a);

/* "exit 3" / "signal 9 (Killed)" for a wait status. */
const char *agt_status_str(int status, char *buf, size_t len);

#endif
