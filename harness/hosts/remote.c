// SPDX-License-Identifier: MIT
/*
 * Remote hosts over OpenSSH: run one command, copy one file, and the ssh
 * command line of an agent whose life ends with its channel (see remote.h).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "harness/point/agent.h"
#include "harness/hosts/remote.h"

/*
 * ssh ConnectTimeout: the TCP connect and the server's banner. A host that does
 * not exist fails at once (no route, no ARP answer); this bounds a silent one.
 * An sshd under emulation sends its banner up to ~5 s after it accepted: the
 * bound is 3 times that.
 */
#define RM_CONNECT_S 15
#define RM_CMD_S 30      /* one remote command or copy */
#define RM_LOGIN_S 120   /* one ssh login (key exchange and the user's shell), see remote.h */
#define RM_ALIVE_S 2     /* ServerAliveInterval: a dead peer is noticed in ~6 s */
#define RM_PERSIST_S 30  /* a shared connection outlives its last use by this */
#define RM_WATCHDOG_KILL_S 5

/*
 * Options of every ssh and scp: no prompt, fail fast, notice a dead peer;
 * with ctl, through the host's shared connection (rm_masters) when it is up,
 * or as that connection (master).
 */
static int rm_opts(char **v, int n, const char *ctl, bool master, char *cp, size_t cplen)
{
	static char *const o[] = { "-o", "BatchMode=yes", "-o", "ConnectTimeout=15",
				   "-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3" };
	const char *cfg = getenv("RDMACAP_SSH_CONFIG");

	_Static_assert(RM_CONNECT_S == 15 && RM_ALIVE_S == 2, "the options above");
	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++)
		v[n++] = o[i];
	if (cfg && *cfg) {
		v[n++] = "-F";
		v[n++] = (char *)cfg;
	}
	if (ctl && *ctl) {
		snprintf(cp, cplen, "ControlPath=%s/%%C", ctl);
		v[n++] = "-o";
		v[n++] = cp;
		v[n++] = "-o";
		v[n++] = master ? "ControlMaster=yes" : "ControlMaster=no";
	}
	return n;
}

struct rm_proc {
	pid_t pid;
	int fd;          /* its stdout and stderr */
	double t0;
};

/* argv started with stdin 'in' (NULL: /dev/null), output into a pipe; 0 or -1. */
static int rm_start(char *const argv[], const char *in, struct rm_proc *p)
{
	int fd[2];

	p->t0 = clock_s();
	if (pipe2(fd, O_CLOEXEC))
		return -1;
	p->pid = fork();
	if (p->pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (!p->pid) {
		int nul = open(in ? in : "/dev/null", O_RDONLY);
		sigset_t none;

		/* ssh gets a plain signal state, not our signalfd's blocked set */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(fd[1], 1) < 0 || dup2(fd[1], 2) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	p->fd = fd[0];
	return 0;
}

/* Its output into out until EOF or 'end'; the exit status, or -1 (out says why). */
static int rm_wait(struct rm_proc *p, const char *what, char *out, size_t outlen, double end)
{
	size_t used = 0;
	bool late = false;
	int st = -1;

	*out = '\0';
	while (1) {
		struct pollfd pf = { .fd = p->fd, .events = POLLIN };
		int ms = (int)((end - clock_s()) * 1000);
		ssize_t n;

		if (ms <= 0) {
			kill(p->pid, SIGKILL);
			snprintf(out, outlen, "%s: no answer within %.0f s", what, end - p->t0);
			late = true;
			break;
		}
		if (poll(&pf, 1, ms) < 0 && errno != EINTR)
			break;
		if (!pf.revents)
			continue;
		if (used + 1 >= outlen) {
			char sink[512];

			n = read(p->fd, sink, sizeof(sink));
		} else {
			n = read(p->fd, out + used, outlen - used - 1);
			if (n > 0)
				out[used += (size_t)n] = '\0';
		}
		if (n <= 0)
			break;
	}
	close(p->fd);
	while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (late || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* argv with stdin /dev/null and its output into out; status, or -1. */
static int rm_exec(char *const argv[], char *out, size_t outlen, int timeout_s)
{
	struct rm_proc p;

	if (rm_start(argv, NULL, &p)) {
		snprintf(out, outlen, "%s: %s", argv[0], strerror(errno));
		return -1;
	}
	return rm_wait(&p, argv[0], out, outlen, p.t0 + timeout_s);
}

struct rm_sshv {
	char *v[32];
	char port[8];
	char cp[RM_DIR_MAX + 32];
};

/* "ssh OPTIONS [-p PORT] -T DEST --": the words before the command. */
static int rm_ssh_argv(const struct hosts_host *h, const char *ctl, bool master,
		       struct rm_sshv *a)
{
	int n = 0;

	a->v[n++] = "ssh";
	n = rm_opts(a->v, n, ctl, master, a->cp, sizeof(a->cp));
	if (h->port) {
		snprintf(a->port, sizeof(a->port), "%u", h->port);
		a->v[n++] = "-p";
		a->v[n++] = a->port;
	}
	a->v[n++] = "-T";
	a->v[n++] = (char *)h->dest;
	a->v[n++] = "--";
	return n;
}

/*
 * "srun ... -w NODE -- sh -c" (a job step of one task on that node, beside the
 * others: --overlap) or "mpirun -np 1 --host NODE sh -c" (an MPI job of one
 * process, whose ssh follows RDMACAP_SSH_CONFIG too): the words before the
 * command string, which sh runs there as sshd's login shell would.
 */
static int rm_job_argv(int launcher, const struct hosts_host *h, struct rm_sshv *a)
{
	static char *const srun[] = { "srun", "--nodes=1", "--ntasks=1", "--overlap", "--quiet",
				      "--job-name=rdmacap" };
	const char *cfg = getenv("RDMACAP_SSH_CONFIG");
	int n = 0;

	if (launcher == HOSTS_SRUN) {
		for (size_t i = 0; i < sizeof(srun) / sizeof(srun[0]); i++)
			a->v[n++] = srun[i];
		a->v[n++] = "-w";
		a->v[n++] = (char *)h->name;
		a->v[n++] = "--";
	} else {
		a->v[n++] = "mpirun";
		if (cfg && *cfg) {
			snprintf(a->cp, sizeof(a->cp), "-F %s", cfg);
			a->v[n++] = "--mca";
			a->v[n++] = "plm_rsh_args";
			a->v[n++] = a->cp;
		}
		a->v[n++] = "-np";
		a->v[n++] = "1";
		a->v[n++] = "--host";
		a->v[n++] = (char *)h->name;
	}
	a->v[n++] = "sh";
	a->v[n++] = "-c";
	return n;
}

/* The words before host k's command string, by the run's launcher. */
static int rm_cmd_argv(const struct rm_ctx *r, int k, bool share, struct rm_sshv *a)
{
	if (r->launcher != HOSTS_SSH)
		return rm_job_argv(r->launcher, &r->list.h[k], a);
	return rm_ssh_argv(&r->list.h[k], share ? r->ctl : NULL, false, a);
}

int rm_cmd(const struct rm_ctx *r, int k, const char *cmd, char *out, size_t outlen,
	   int timeout_s)
{
	struct rm_sshv a;
	int n = rm_cmd_argv(r, k, true, &a);

	a.v[n++] = (char *)cmd;
	a.v[n] = NULL;
	return rm_exec(a.v, out, outlen, timeout_s);
}

/* The local file into path 'remote' on host k, through the launcher's stdin. */
static int rm_copy_in(const struct rm_ctx *r, int k, const char *local, const char *remote,
		      char *out, size_t outlen)
{
	char cmd[RM_PATH_MAX + 16];
	struct rm_sshv a;
	struct rm_proc p;
	int n = rm_cmd_argv(r, k, true, &a);

	snprintf(cmd, sizeof(cmd), "cat >'%s'", remote);
	a.v[n++] = cmd;
	a.v[n] = NULL;
	if (rm_start(a.v, local, &p)) {
		snprintf(out, outlen, "%s: %s", a.v[0], strerror(errno));
		return -1;
	}
	return rm_wait(&p, a.v[0], out, outlen, p.t0 + RM_CMD_S);
}

/* scp -pq LOCAL... HOST:REMOTE, through the shared connection */
static int rm_copy(const struct rm_ctx *r, int k, char *const local[], const char *remote,
		   char *out, size_t outlen)
{
	const struct hosts_host *h = &r->list.h[k];
	char *v[40], port[8], cp[RM_DIR_MAX + 32], dst[HOSTS_NAME_MAX + 64 + RM_PATH_MAX];
	int n = 0;

	v[n++] = "scp";
	n = rm_opts(v, n, r->ctl, false, cp, sizeof(cp));
	if (h->port) {
		snprintf(port, sizeof(port), "%u", h->port);
		v[n++] = "-P";
		v[n++] = port;
	}
	snprintf(dst, sizeof(dst), "%s:%s", h->scp, remote);
	v[n++] = "-pq";
	for (int i = 0; local[i] && n < 36; i++)
		v[n++] = local[i];
	v[n++] = dst;
	v[n] = NULL;
	return rm_exec(v, out, outlen, RM_CMD_S);
}

/* The last line ssh or the command said, for a one-line cause. */
static const char *rm_last(char *out)
{
	char *e = out + strlen(out), *s;

	while (e > out && (e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	s = strrchr(out, '\n');
	return s ? s + 1 : out;
}

/* A path that may go into a remote shell command inside single quotes. */
static bool rm_safe(const char *s)
{
	return *s == '/' && !strpbrk(s, "'\n\\") && strlen(s) < RM_PATH_MAX;
}

static int rm_push(struct rm_ctx *r, int k, char *why, size_t len)
{
	const struct hosts_host *h = &r->list.h[k];
	char out[1024], cmd[RM_PATH_MAX + 64], *local[] = { (char *)agt_binary(), NULL };
	int st;

	st = rm_copy(r, k, local, r->agent[k], out, sizeof(out));
	if (st) {
		snprintf(why, len, "%s: scp %s to %s: %s", h->dest, agt_binary(), r->agent[k],
			 st < 0 ? out : rm_last(out));
		return -1;
	}
	/* every library the agent needs, there: ldd names what is missing */
	snprintf(cmd, sizeof(cmd), "ldd '%s' | grep 'not found'", r->agent[k]);
	st = rm_cmd(r, k, cmd, out, sizeof(out), RM_CMD_S);
	if (st == 0) {
		for (char *p = out; (p = strstr(p, " => not found")); p++)
			memcpy(p, ",           ", 13);
		snprintf(why, len, "%s: the agent's libraries are missing there: %s", h->dest,
			 rm_last(out));
		return -1;
	}
	return 0;
}

/* The TLS files of the run into the host's run directory, in one copy. */
static int rm_tls(struct rm_ctx *r, int k, const char *tls_dir, char *why, size_t len)
{
	static const char *const f[] = { "ca.pem", "server.pem", "server.key", "client.pem",
					 "client.key" };
	enum { NF = sizeof(f) / sizeof(f[0]) };
	char local[NF][128], *v[NF + 1], remote[RM_PATH_MAX], out[512];

	for (size_t i = 0; i < NF; i++) {
		snprintf(local[i], sizeof(local[i]), "%s/%s", tls_dir, f[i]);
		v[i] = local[i];
	}
	v[NF] = NULL;
	/* srun and mpirun copy nothing: one file at a time through the task's stdin */
	for (size_t i = 0; r->launcher != HOSTS_SSH && i < NF; i++) {
		snprintf(remote, sizeof(remote), "%s/%s", r->dir[k], f[i]);
		if (rm_copy_in(r, k, local[i], remote, out, sizeof(out))) {
			snprintf(why, len, "%s: %s %s: %s", r->list.h[k].dest,
				 hosts_launcher(r->launcher), remote, rm_last(out));
			return -1;
		}
	}
	if (r->launcher != HOSTS_SSH)
		return 0;
	snprintf(remote, sizeof(remote), "%s/", r->dir[k]);
	if (rm_copy(r, k, v, remote, out, sizeof(out))) {
		snprintf(why, len, "%s: scp the TLS files: %s", r->list.h[k].dest, rm_last(out));
		return -1;
	}
	return 0;
}

/*
 * One shared ssh connection per host, logged in on every host at once:
 * `ssh -M -f -N`, which returns once authenticated. A host that cannot be
 * reached fails here, named, within the ConnectTimeout.
 */
static int rm_masters(struct rm_ctx *r, char *why, size_t len)
{
	struct rm_proc p[HOSTS_MAX];
	int rc = 0, k;

	for (k = 0; k < r->list.n; k++) {
		const struct hosts_host *h = &r->list.h[k];
		struct rm_sshv a;
		char persist[40];
		int n;

		if (r->launcher == HOSTS_SSH) {
			/* "-T DEST --" becomes "-o ControlPersist=N -f -N DEST" */
			n = rm_ssh_argv(h, r->ctl, true, &a) - 3;
			snprintf(persist, sizeof(persist), "ControlPersist=%d", RM_PERSIST_S);
			a.v[n++] = "-o";
			a.v[n++] = persist;
			a.v[n++] = "-f";
			a.v[n++] = "-N";
			a.v[n++] = (char *)h->dest;
		} else {
			/* no login to share: how long one step or job takes to start there */
			n = rm_job_argv(r->launcher, h, &a);
			a.v[n++] = "true";
		}
		a.v[n] = NULL;
		if (rm_start(a.v, NULL, &p[k])) {
			snprintf(why, len, "%s: ssh: %s", h->dest, strerror(errno));
			rc = -1;
			break;
		}
	}
	for (int i = 0; i < k; i++) {
		char out[1024];
		const char *l = hosts_launcher(r->launcher);
		int st = rm_wait(&p[i], l, out, sizeof(out), p[i].t0 + RM_LOGIN_S);

		r->login_s = fmax(r->login_s, clock_s() - p[i].t0);
		if (st && !rc) {
			snprintf(why, len, "%s: unreachable over %s: %s", r->list.h[i].dest, l,
				 rm_last(out));
			rc = -1;
		}
	}
	return rc;
}

/* Run directory made, agent there (or pushed), TLS files copied. */
static int rm_host(struct rm_ctx *r, int k, bool push, const char *tls_dir, char *why,
		   size_t len)
{
	const struct hosts_host *h = &r->list.h[k];
	char dir[RM_DIR_MAX], cmd[2 * RM_PATH_MAX], out[1024];
	double t0 = clock_s();
	int st;

	snprintf(dir, sizeof(dir), "/tmp/rdmacap-%s-h%d", r->run, k);
	snprintf(cmd, sizeof(cmd), "mkdir -m 700 '%s' && { test -x '%s' || %s; }", dir,
		 r->agent[k], push ? "true" : "echo no-agent");
	st = rm_cmd(r, k, cmd, out, sizeof(out), RM_CONNECT_S + RM_CMD_S);
	r->cmd_s = fmax(r->cmd_s, clock_s() - t0);
	if ((st == 255 && r->launcher == HOSTS_SSH) || st < 0) {
		snprintf(why, len, "%s: unreachable over %s: %s", h->dest,
			 hosts_launcher(r->launcher), rm_last(out));
		return -1;
	}
	if (st) {
		snprintf(why, len, "%s: mkdir %s: %s", h->dest, dir, rm_last(out));
		return -1;
	}
	snprintf(r->dir[k], sizeof(r->dir[k]), "%s", dir);
	if (strstr(out, "no-agent")) {
		snprintf(why, len, "%s: no agent at %s (--agent-path names it, --push copies it)",
			 h->dest, r->agent[k]);
		return -1;
	}
	if (push && rm_push(r, k, why, len))
		return -1;
	return tls_dir ? rm_tls(r, k, tls_dir, why, len) : 0;
}

int rm_open(struct rm_ctx *r, const char *hosts, int launcher, const char *run,
	    const char *agent_path, bool push, const char *tls_dir, char *why, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->launcher = launcher;
	snprintf(r->run, sizeof(r->run), "%s", run);
	snprintf(r->tls_dir, sizeof(r->tls_dir), "%s", tls_dir ? tls_dir : "");
	if (hosts_parse(hosts, &r->list, why, len))
		return -1;
	snprintf(r->ctl, sizeof(r->ctl), "/tmp/rdmacap-ssh.XXXXXX");
	if (launcher != HOSTS_SSH)
		r->ctl[0] = '\0';
	else if (!mkdtemp(r->ctl)) {
		snprintf(why, len, "mkdtemp %s: %s", r->ctl, strerror(errno));
		r->ctl[0] = '\0';
		return -1;
	}
	for (int k = 0; k < r->list.n; k++) {
		char *a = r->agent[k];

		if (agent_path)
			snprintf(a, RM_PATH_MAX, "%s", agent_path);
		else if (push)
			snprintf(a, RM_PATH_MAX, "/tmp/rdmacap-%s-h%d/rdmacap-agent", run, k);
		else
			snprintf(a, RM_PATH_MAX, "%s", agt_binary());
		if (!rm_safe(a)) {
			snprintf(why, len, "agent path %s: not an absolute path without quotes", a);
			rm_close(r);
			return -1;
		}
	}
	fprintf(stderr, "rdmacap: reaching %d hosts with %s\n", r->list.n, hosts_launcher(launcher));
	if (rm_masters(r, why, len)) {
		rm_close(r);
		return -1;
	}
	for (int k = 0; k < r->list.n; k++) {
		fprintf(stderr, "rdmacap: %s: preparing (agent %s)\n", r->list.h[k].dest,
			r->agent[k]);
		if (rm_host(r, k, push, tls_dir, why, len)) {
			rm_close(r);
			return -1;
		}
	}
	fprintf(stderr, "rdmacap: hosts ready: %s %s %.1f s, one command %.1f s (slowest)\n",
		hosts_launcher(launcher), launcher == HOSTS_SSH ? "login" : "start", r->login_s,
		r->cmd_s);
	return 0;
}

int rm_slurm_nodes(char *list, size_t len, char *why, size_t wlen)
{
	char *nodes = getenv("SLURM_JOB_NODELIST");
	char *v[] = { "scontrol", "show", "hostnames", nodes, NULL };
	int st;

	if (!nodes || !*nodes) {
		snprintf(why, wlen, "not inside a Slurm allocation (no SLURM_JOB_NODELIST)");
		return -1;
	}
	st = rm_exec(v, list, len, RM_CMD_S);
	if (st) {
		snprintf(why, wlen, "scontrol show hostnames %s: %s", nodes,
			 st < 0 ? list : rm_last(list));
		return -1;
	}
	rm_last(list); /* the trailing newline off */
	for (char *p = list; (p = strchr(p, '\n'));)
		*p = ',';
	if (strlen(list) + 1 >= len) {
		snprintf(why, wlen, "%s: more nodes than --hosts takes", nodes);
		return -1;
	}
	return 0;
}

int rm_deathsig(const struct rm_ctx *r)
{
	return r->launcher == HOSTS_SSH ? SIGKILL : SIGTERM;
}

double rm_start_s(const struct rm_ctx *r)
{
	return 2 * (r->login_s + r->cmd_s);
}

/* The shared connections closed ("ssh -O exit"), their control directory removed. */
static void rm_unshare(struct rm_ctx *r)
{
	char out[256], cp[RM_DIR_MAX + 32];
	DIR *d;

	if (!r->ctl[0])
		return;
	for (int k = 0; k < r->list.n; k++) {
		struct rm_sshv a;
		int n = rm_ssh_argv(&r->list.h[k], r->ctl, false, &a) - 3;

		a.v[n++] = "-O";
		a.v[n++] = "exit";
		a.v[n++] = (char *)r->list.h[k].dest;
		a.v[n] = NULL;
		rm_exec(a.v, out, sizeof(out), RM_CMD_S);
	}
	d = opendir(r->ctl);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(cp, sizeof(cp), "%s/%s", r->ctl, e->d_name);
		unlink(cp);
	}
	if (d)
		closedir(d);
	if (rmdir(r->ctl))
		fprintf(stderr, "rdmacap: rmdir %s: %s\n", r->ctl, strerror(errno));
	r->ctl[0] = '\0';
}

void rm_close(struct rm_ctx *r)
{
	char cmd[RM_DIR_MAX + 32], out[512];

	for (int k = 0; k < r->list.n; k++) {
		if (!r->dir[k][0])
			continue;
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->dir[k]);
		if (rm_cmd(r, k, cmd, out, sizeof(out), RM_CONNECT_S + RM_CMD_S))
			fprintf(stderr, "rdmacap: %s: %s not removed: %s (rdmacap down --hosts)\n",
				r->list.h[k].dest, r->dir[k], rm_last(out));
		r->dir[k][0] = '\0';
	}
	rm_unshare(r);
}

/* one argument of the remote command line, in single quotes; TLS files moved */
static int rm_arg(const struct rm_ctx *r, int k, const char *a, FILE *f)
{
	size_t tl = strlen(r->tls_dir);
	const char *eq = strchr(a, '=');

	if (strchr(a, '\'') || strchr(a, '\n'))
		return -1;
	if (tl && eq && !strncmp(a, "--tls-", 6) && !strncmp(eq + 1, r->tls_dir, tl))
		return fprintf(f, " '%.*s%s%s'", (int)(eq + 1 - a), a, r->dir[k], eq + 1 + tl) < 0;
	return fprintf(f, " '%s'", a) < 0;
}

int rm_argv(const struct rm_ctx *r, int k, bool share, char *const argv[], long nofile,
	    long watchdog_s, char *buf, size_t buflen, char **out, int max)
{
	char *cmd = NULL;
	size_t clen = 0;
	struct rm_sshv a;
	FILE *f = open_memstream(&cmd, &clen);
	int n, rc = 0;

	if (!f)
		return -1;
	/* the pid file names the watchdog, which takes the agent with it (rm_down) */
	fprintf(f, "echo $$ >'%s/agent.'$$; ulimit -n %ld 2>/dev/null || ulimit -n \"$(ulimit -Hn)\"; "
		"exec timeout -k %d %ld '%s'", r->dir[k], nofile, RM_WATCHDOG_KILL_S, watchdog_s,
		r->agent[k]);
	for (int i = 1; argv[i] && !rc; i++)
		rc = rm_arg(r, k, argv[i], f);
	if (fclose(f) || rc || clen + 1 + sizeof(a.port) + sizeof(a.cp) > buflen || max < 32) {
		free(cmd);
		return -1;
	}
	memcpy(buf, cmd, clen + 1);
	free(cmd);
	/* the port and ControlPath words live in buf too, after the command */
	n = rm_cmd_argv(r, k, share, &a);
	memcpy(buf + clen + 1, a.port, sizeof(a.port));
	memcpy(buf + clen + 1 + sizeof(a.port), a.cp, sizeof(a.cp));
	for (int i = 0; i < n; i++)
		out[i] = a.v[i] == a.port ? buf + clen + 1 :
			 a.v[i] == a.cp ? buf + clen + 1 + sizeof(a.port) : a.v[i];
	out[n++] = buf;
	out[n] = NULL;
	return 0;
}

/* ends the agents of every run directory's pid files, then removes the directories */
static const char rm_down_sh[] =
	"n=0; d=0; for f in /tmp/rdmacap-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-h*/agent.*; do "
	"[ -e \"$f\" ] || continue; p=$(cat \"$f\"); "
	"tr '\\0' ' ' </proc/\"$p\"/cmdline 2>/dev/null | grep -q -- '--role=' && "
	"kill -TERM \"$p\" 2>/dev/null && n=$((n+1)); done; "
	"[ $n = 0 ] || sleep 1; for f in /tmp/rdmacap-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-h*/agent.*; do "
	"[ -e \"$f\" ] || continue; p=$(cat \"$f\"); "
	"tr '\\0' ' ' </proc/\"$p\"/cmdline 2>/dev/null | grep -q -- '--role=' && "
	"kill -KILL \"$p\" 2>/dev/null; done; "
	"for x in /tmp/rdmacap-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-h*; do [ -d \"$x\" ] || continue; "
	"rm -rf \"$x\" && d=$((d+1)); done; echo \"agents=$n dirs=$d\"";

int rm_down(const char *hosts, int launcher, FILE *log, int *removed)
{
	struct rm_ctx *r = calloc(1, sizeof(*r));
	struct hosts_list *l = r ? &r->list : NULL;
	char out[1024], why[256];
	int rc = 0;

	*removed = 0;
	if (!l || hosts_parse(hosts, l, why, sizeof(why))) {
		fprintf(stderr, "rdmacap: --hosts: %s\n", l ? why : strerror(errno));
		free(r);
		return -1;
	}
	r->launcher = launcher; /* no shared connection: ctl "" */
	for (int k = 0; k < l->n; k++) {
		int st = rm_cmd(r, k, rm_down_sh, out, sizeof(out), RM_CONNECT_S + RM_CMD_S);
		int a = 0, d = 0;
		const char *last = rm_last(out);

		if (st || sscanf(last, "agents=%d dirs=%d", &a, &d) != 2) {
			fprintf(stderr, "rdmacap: %s: down: %s\n", l->h[k].dest, last);
			rc = -1;
			continue;
		}
		if (log)
			fprintf(log, "rdmacap: %s: %d agents ended, %d run directories removed\n",
				l->h[k].dest, a, d);
		*removed += a + d;
	}
	free(r);
	return rc;
}
