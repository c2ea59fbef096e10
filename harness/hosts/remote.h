/* SPDX-License-Identifier: MIT */
/*
 * remote: agents on other hosts through a launcher that is there already
 * (--launcher, enum hosts_launcher). No daemon of ours: every remote action is
 * one `ssh -o BatchMode=yes HOST CMD` (the user's keys, agent and
 * ~/.ssh/config; RDMACAP_SSH_CONFIG names another config file, passed as -F to
 * ssh and scp, and to mpirun's ssh), so no password is ever asked for; or one
 * job step of the Slurm allocation rdmacap runs in (`srun --nodes=1 --ntasks=1
 * --overlap -w NODE -- sh -c CMD`); or one Open MPI job of one process
 * (`mpirun -np 1 --host NODE sh -c CMD`). The three give the same pipe pair:
 * the command's stdin, and its stdout and stderr forwarded to ours, so every
 * caller below reads a remote command as it reads a local one. Under srun and
 * mpirun files reach a host through the task's stdin, all of them in one
 * step or job (`dd` takes each by its size): no scp, no --push.
 *
 * What a run leaves on a host while it runs, and removes at its end: one
 * directory /tmp/rdmacap-<run>-h<K> holding the TLS files of the run (oob-tls),
 * the pushed agent (--push without --agent-path) and one pid file per agent.
 *
 * An agent's life is tied to its ssh channel, job step or MPI job: its stdin
 * is forwarded by the launcher, and the agent stops at EOF of its control
 * input, which comes when the orchestrator closes the pipe, exits or is
 * SIGKILLed (the launcher dies with it: PR_SET_PDEATHSIG, rm_deathsig()). A watchdog (coreutils timeout, -k 5) ends it
 * anyway once the point's deadlines have all passed. rm_down() removes what a
 * crashed run left: the agents its pid files name, then the directories.
 *
 * One login per host: rm_open logs in to every host at once and keeps the
 * connection (OpenSSH ControlMaster, sockets in a private local directory,
 * closed by rm_close, or 30 s after its last use when we were killed); every
 * later command, copy and agent is a channel of it, under mpirun through the
 * ssh that starts Open MPI's daemon of each job (launch_mpirun.c). A login costs the key
 * exchange and the user's shell startup on that host, seconds under
 * emulation: rm_open measures both and rm_start_s() derives from them how
 * long an agent may take to start there.
 *
 * Uses: harness/hosts/hosts.h, harness/hosts/launch.h (each launcher's
 * words), libc. Logs to stderr ("rdmacap: HOST: ...").
 */
#ifndef RDC_HARNESS_REMOTE_H
#define RDC_HARNESS_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "harness/hosts/hosts.h"

#define RM_DIR_MAX 48
#define RM_PATH_MAX 256

struct rm_ctx {
	struct hosts_list list;          /* h[0] the server host, then the client hosts */
	int launcher;                    /* enum hosts_launcher */
	char run[8];
	char dir[HOSTS_MAX][RM_DIR_MAX]; /* each host's run directory, "" = not made */
	char agent[HOSTS_MAX][RM_PATH_MAX]; /* the agent's path on each host */
	const char *local_agent;       /* this host's agent binary, rm_open's caller's */
	char tls_dir[64];              /* the local TLS files copied to each dir, "" = none */
	char ctl[RM_DIR_MAX];          /* local: the shared connections' sockets, "" = none */
	double login_s;                /* the slowest host's measured ssh login */
	double cmd_s;                  /* the slowest measured command over a shared connection */
	bool lost[HOSTS_MAX];          /* lost mid-run (harness/point/lost.c): not reached again */
};

/*
 * Prepares every host for run 'run' started by 'launcher', server_host (NULL:
 * the first) first in r->list: reachable (ssh
 * within ConnectTimeout, a step or job started within RM_LOGIN_S), its run
 * directory made, the agent local_agent (this host's binary, kept by pointer:
 * it must outlive r) pushed (push: to agent_path, or into the run directory)
 * and its libraries checked (ldd), or found executable at agent_path (NULL:
 * local_agent's path), the TLS files of tls_dir (NULL: none) copied into the
 * run directory. 0, or -1 with the host and the cause in why, everything made
 * so far removed.
 */
int rm_open(struct rm_ctx *r, const char *hosts, const char *server_host, int launcher,
	    const char *run, const char *local_agent, const char *agent_path, bool push,
	    const char *tls_dir, char *why, size_t len);

/*
 * --hosts slurm: the nodes of the allocation rdmacap runs in, comma separated
 * into list (SLURM_JOB_NODELIST expanded by `scontrol show hostnames`; the
 * first node is the server host). 0, or -1 with why.
 */
int rm_slurm_nodes(char *list, size_t len, char *why, size_t wlen);

/*
 * How long, past the local deadline, a remote agent may take to say hello:
 * twice the slowest measured login plus command (the agent's own ssh channel
 * costs at most that).
 */
double rm_start_s(const struct rm_ctx *r);

/*
 * The signal a launcher of agents gets when rdmacap dies: SIGKILL for ssh
 * (the channel closes, the agent reads EOF); SIGTERM for srun and mpirun,
 * which they forward to the task before they end, ending the step or job
 * (a SIGKILLed srun forwards nothing and its step runs on).
 */
int rm_deathsig(const struct rm_ctx *r);

/*
 * Removes every host's run directory (a lost host's stays, said on stderr:
 * `rdmacap down --hosts` removes it once the host answers) and closes the
 * shared connections.
 */
void rm_close(struct rm_ctx *r);

/*
 * An sshd opens at most MaxSessions (OpenSSH's default 10) channels on one
 * connection: this many agents of a host share it, the others log in on
 * their own, leaving channels for the sampler and the commands.
 */
#define RM_SHARED_AGENTS 8

/*
 * The ssh command line that runs agent argv (argv[0] is replaced by the remote
 * agent) on host k with RLIMIT_NOFILE 'nofile' (as far as the hard limit goes)
 * under a watchdog of 'watchdog_s' seconds, through the host's shared
 * connection when 'share' (see RM_SHARED_AGENTS). Strings live in buf; out
 * holds at most max pointers, NULL-terminated. 0, or -1 (too long).
 */
int rm_argv(const struct rm_ctx *r, int k, bool share, char *const argv[], long nofile,
	    long watchdog_s, char *buf, size_t buflen, char **out, int max);

/*
 * Runs sh command cmd on host k through the run's launcher (ssh: through the
 * host's shared connection when it is up), stdin /dev/null, output (stdout
 * and stderr) into out, within timeout_s. The exit status (255: ssh itself
 * failed), or -1 (could not run the launcher, or timed out: out says which).
 */
int rm_cmd(const struct rm_ctx *r, int k, const char *cmd, char *out, size_t outlen,
	   int timeout_s);

/*
 * `rdmacap down --hosts`: on every host, reached with 'launcher', ends the
 * agents the pid files of any rdmacap run directory name (only processes
 * whose command line names rdmacap-agent), then removes those directories
 * (under srun and mpirun, what a SIGKILLed run left: the job step or MPI job
 * ended its agents). 'removed' counts what went. 0, or -1 when a host could
 * not be reached or something stayed.
 */
int rm_down(const char *hosts, int launcher, FILE *log, int *removed);

#endif
