// SPDX-License-Identifier: MIT
/*
 * Remote hosts through a launcher (launch.h builds its words): run one
 * command, copy one file, and the command line of an agent whose life ends
 * with its channel, step or job (see remote.h).
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
#include "harness/hosts/launch.h"
#include "harness/hosts/remote.h"

#define RM_CMD_S 30      /* one remote command or copy */
#define RM_LOGIN_S 120   /* one ssh login (key exchange and the user's shell), see remote.h */
#define RM_PERSIST_S 30  /* a shared connection outlives its last use by this */
#define RM_WATCHDOG_KILL_S 5

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

/* The words before host k's command string, by the run's launcher (launch.h). */
static int rm_cmd_argv(const struct rm_ctx *r, int k, bool share, struct launch_argv *a)
{
	const struct hosts_host *h = &r->list.h[k];

	if (r->launcher == HOSTS_SRUN)
		return lsrun_argv(h, a);
	if (r->launcher == HOSTS_MPIRUN)
		return lmpi_argv(h, share ? r->ctl : NULL, a);
	return lssh_argv(h, share ? r->ctl : NULL, false, a);
}

int rm_cmd(const struct rm_ctx *r, int k, const char *cmd, char *out, size_t outlen,
	   int timeout_s)
{
	struct launch_argv a;
	int n = rm_cmd_argv(r, k, true, &a);

	a.v[n++] = (char *)cmd;
	a.v[n] = NULL;
	return rm_exec(a.v, out, outlen, timeout_s);
}

/*
 * The nf (<= RM_IN_MAX) local files (the directory ldir, names f[]) into the
 * directory rdir on host k, through the launcher's stdin in one task: a tar
 * archive made here, unpacked there. Under srun and mpirun every task is a job
 * step or an MPI job of its own, seconds each under emulation: one for all,
 * not one per file.
 */
#define RM_IN_MAX 8
static int rm_copy_in(const struct rm_ctx *r, int k, const char *ldir, const char *const f[],
		      int nf, const char *rdir, char *out, size_t outlen)
{
	char bundle[] = "/tmp/rdmacap-in.XXXXXX", cmd[RM_PATH_MAX + 32];
	char *tv[RM_IN_MAX + 6] = { "tar", "-C", (char *)ldir, "-cf", bundle };
	int fd = mkstemp(bundle), st = -1, n;
	struct launch_argv a;
	struct rm_proc p;

	if (fd < 0 || nf > RM_IN_MAX) {
		snprintf(out, outlen, "%s: %s", bundle, fd < 0 ? strerror(errno) : "too many files");
		goto out;
	}
	for (int i = 0; i < nf; i++)
		tv[5 + i] = (char *)f[i];
	if (rm_exec(tv, out, outlen, RM_CMD_S)) {
		st = -1;
		goto out;
	}
	n = rm_cmd_argv(r, k, true, &a);
	snprintf(cmd, sizeof(cmd), "tar -C '%s' -xf -", rdir);
	a.v[n++] = cmd;
	a.v[n] = NULL;
	if (rm_start(a.v, bundle, &p)) {
		snprintf(out, outlen, "%s: %s", a.v[0], strerror(errno));
		goto out;
	}
	st = rm_wait(&p, a.v[0], out, outlen, p.t0 + RM_CMD_S);
out:
	if (fd >= 0) {
		close(fd);
		unlink(bundle);
	}
	return st;
}

/* scp -pq LOCAL... HOST:REMOTE, through the shared connection */
static int rm_copy(const struct rm_ctx *r, int k, char *const local[], const char *remote,
		   char *out, size_t outlen)
{
	char dst[HOSTS_NAME_MAX + 64 + RM_PATH_MAX];
	struct launch_argv a;

	lssh_scp(&r->list.h[k], r->ctl, local, remote, dst, sizeof(dst), &a);
	return rm_exec(a.v, out, outlen, RM_CMD_S);
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
	char out[1024], cmd[RM_PATH_MAX + 64], *local[] = { (char *)r->local_agent, NULL };
	int st;

	st = rm_copy(r, k, local, r->agent[k], out, sizeof(out));
	if (st) {
		snprintf(why, len, "%s: scp %s to %s: %s", h->dest, r->local_agent, r->agent[k],
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
	/* srun and mpirun copy nothing: the files through the task's stdin */
	if (r->launcher != HOSTS_SSH) {
		if (!rm_copy_in(r, k, tls_dir, f, NF, r->dir[k], out, sizeof(out)))
			return 0;
		snprintf(why, len, "%s: %s the TLS files into %s: %s", r->list.h[k].dest,
			 hosts_launcher(r->launcher), r->dir[k], rm_last(out));
		return -1;
	}
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
		struct launch_argv a;
		int n;

		/* mpirun's daemons start over ssh: through this login too */
		if (r->launcher != HOSTS_SRUN) {
			lssh_master(h, r->ctl, RM_PERSIST_S, &a);
		} else {
			/* no login to share: how long one step or job takes to start there */
			n = rm_cmd_argv(r, k, false, &a);
			a.v[n++] = "true";
			a.v[n] = NULL;
		}
		if (rm_start(a.v, NULL, &p[k])) {
			snprintf(why, len, "%s: ssh: %s", h->dest, strerror(errno));
			rc = -1;
			break;
		}
	}
	for (int i = 0; i < k; i++) {
		char out[1024];
		const char *l = r->launcher == HOSTS_SRUN ? "srun" : "ssh";
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
	st = rm_cmd(r, k, cmd, out, sizeof(out), LSSH_CONNECT_S + RM_CMD_S);
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

int rm_open(struct rm_ctx *r, const char *hosts, const char *server_host, int launcher,
	    const char *run, const char *local_agent, const char *agent_path, bool push,
	    const char *tls_dir, char *why, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->launcher = launcher;
	r->local_agent = local_agent;
	snprintf(r->run, sizeof(r->run), "%s", run);
	snprintf(r->tls_dir, sizeof(r->tls_dir), "%s", tls_dir ? tls_dir : "");
	if (hosts_parse(hosts, &r->list, why, len) ||
	    (server_host && hosts_server_first(&r->list, server_host, why, len)))
		return -1;
	snprintf(r->ctl, sizeof(r->ctl), "/tmp/rdmacap-ssh.XXXXXX");
	if (launcher == HOSTS_SRUN)
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
			snprintf(a, RM_PATH_MAX, "%s", local_agent);
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
	fprintf(stderr, "rdmacap: hosts ready: %s %.1f s, one command (%s) %.1f s (slowest)\n",
		launcher == HOSTS_SRUN ? "srun start" : "ssh login", r->login_s,
		hosts_launcher(launcher), r->cmd_s);
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
		struct launch_argv a;

		lssh_exit(&r->list.h[k], r->ctl, &a);
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
		if (r->lost[k]) {
			/* it did not answer once: no launcher's timeout is spent on it again */
			fprintf(stderr, "rdmacap: %s: lost during the run: %s stays there (rdmacap "
				"down --hosts)\n", r->list.h[k].dest, r->dir[k]);
			r->dir[k][0] = '\0';
			continue;
		}
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->dir[k]);
		if (rm_cmd(r, k, cmd, out, sizeof(out), LSSH_CONNECT_S + RM_CMD_S))
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
	struct launch_argv a;
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
		int st = rm_cmd(r, k, rm_down_sh, out, sizeof(out), LSSH_CONNECT_S + RM_CMD_S);
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
