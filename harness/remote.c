// SPDX-License-Identifier: MIT
/*
 * Remote hosts over OpenSSH: run one command, copy one file, and the ssh
 * command line of an agent whose life ends with its channel (see remote.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "harness/agent.h"
#include "harness/remote.h"

#define RM_CONNECT_S 5   /* ssh ConnectTimeout: an unreachable host fails at once */
#define RM_CMD_S 30      /* one remote command or copy */
#define RM_ALIVE_S 2     /* ServerAliveInterval: a dead peer is noticed in ~6 s */
#define RM_WATCHDOG_KILL_S 5

/* Options of every ssh and scp: no prompt, fail fast, notice a dead peer. */
static int rm_opts(char **v, int n)
{
	static char *const o[] = { "-o", "BatchMode=yes", "-o", "ConnectTimeout=5",
				   "-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3" };
	const char *cfg = getenv("RDMACAP_SSH_CONFIG");

	_Static_assert(RM_CONNECT_S == 5 && RM_ALIVE_S == 2, "the options above");
	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++)
		v[n++] = o[i];
	if (cfg && *cfg) {
		v[n++] = "-F";
		v[n++] = (char *)cfg;
	}
	return n;
}

/* argv with stdin /dev/null and its output into out; status, or -1. */
static int rm_exec(char *const argv[], char *out, size_t outlen, int timeout_s)
{
	double end = clock_s() + timeout_s;
	size_t used = 0;
	int p[2], st = -1;
	pid_t pid;

	*out = '\0';
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		int nul = open("/dev/null", O_RDONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (1) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		int ms = (int)((end - clock_s()) * 1000);
		ssize_t n;

		if (ms <= 0) {
			kill(pid, SIGKILL);
			snprintf(out, outlen, "%s: no answer within %d s", argv[0], timeout_s);
			used = outlen;
			break;
		}
		if (poll(&pf, 1, ms) < 0 && errno != EINTR)
			break;
		if (!pf.revents)
			continue;
		if (used + 1 >= outlen) {
			char sink[512];

			n = read(p[0], sink, sizeof(sink));
		} else {
			n = read(p[0], out + used, outlen - used - 1);
			if (n > 0)
				out[used += (size_t)n] = '\0';
		}
		if (n <= 0)
			break;
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (used == outlen)
		return -1;
	if (!WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int rm_ssh_argv(const struct hst_host *h, char **v, char *port, size_t plen)
{
	int n = 0;

	v[n++] = "ssh";
	n = rm_opts(v, n);
	if (h->port) {
		snprintf(port, plen, "%u", h->port);
		v[n++] = "-p";
		v[n++] = port;
	}
	v[n++] = "-T";
	v[n++] = (char *)h->dest;
	v[n++] = "--";
	return n;
}

int rm_ssh(const struct hst_host *h, const char *cmd, char *out, size_t outlen, int timeout_s)
{
	char *v[24], port[8];
	int n = rm_ssh_argv(h, v, port, sizeof(port));

	v[n++] = (char *)cmd;
	v[n] = NULL;
	return rm_exec(v, out, outlen, timeout_s);
}

/* scp -p LOCAL HOST:REMOTE */
static int rm_copy(const struct hst_host *h, const char *local, const char *remote, char *out,
		   size_t outlen)
{
	char *v[24], port[8], dst[HST_NAME_MAX + 64 + RM_PATH_MAX];
	int n = 0;

	v[n++] = "scp";
	n = rm_opts(v, n);
	if (h->port) {
		snprintf(port, sizeof(port), "%u", h->port);
		v[n++] = "-P";
		v[n++] = port;
	}
	snprintf(dst, sizeof(dst), "%s:%s", h->dest, remote);
	v[n++] = "-pq";
	v[n++] = (char *)local;
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

void rm_file(const struct rm_ctx *r, int k, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", r->dir[k], name);
}

/* A path that may go into a remote shell command inside single quotes. */
static bool rm_safe(const char *s)
{
	return *s == '/' && !strpbrk(s, "'\n\\") && strlen(s) < RM_PATH_MAX;
}

static int rm_push(struct rm_ctx *r, int k, char *why, size_t len)
{
	const struct hst_host *h = &r->list.h[k];
	char out[1024], cmd[RM_PATH_MAX + 64];
	int st;

	st = rm_copy(h, ha_binary(), r->agent[k], out, sizeof(out));
	if (st) {
		snprintf(why, len, "%s: scp %s to %s: %s", h->dest, ha_binary(), r->agent[k],
			 st < 0 ? out : rm_last(out));
		return -1;
	}
	/* every library the agent needs, there: ldd names what is missing */
	snprintf(cmd, sizeof(cmd), "ldd '%s' | grep 'not found'", r->agent[k]);
	st = rm_ssh(h, cmd, out, sizeof(out), RM_CMD_S);
	if (st == 0) {
		for (char *p = out; (p = strstr(p, " => not found")); p++)
			memcpy(p, ",           ", 13);
		snprintf(why, len, "%s: the agent's libraries are missing there: %s", h->dest,
			 rm_last(out));
		return -1;
	}
	return 0;
}

static int rm_tls(struct rm_ctx *r, int k, const char *tls_dir, char *why, size_t len)
{
	static const char *const f[] = { "ca.pem", "server.pem", "server.key", "client.pem",
					 "client.key" };
	char local[128], remote[RM_PATH_MAX], out[512];

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		snprintf(local, sizeof(local), "%s/%s", tls_dir, f[i]);
		rm_file(r, k, f[i], remote, sizeof(remote));
		if (rm_copy(&r->list.h[k], local, remote, out, sizeof(out))) {
			snprintf(why, len, "%s: scp %s: %s", r->list.h[k].dest, f[i], rm_last(out));
			return -1;
		}
	}
	return 0;
}

/* Reachable, run directory made, agent there (or pushed), TLS files copied. */
static int rm_host(struct rm_ctx *r, int k, bool push, const char *tls_dir, char *why,
		   size_t len)
{
	const struct hst_host *h = &r->list.h[k];
	char dir[RM_DIR_MAX], cmd[2 * RM_PATH_MAX], out[1024];
	int st;

	snprintf(dir, sizeof(dir), "/tmp/rdmacap-%s-h%d", r->run, k);
	snprintf(cmd, sizeof(cmd), "mkdir -m 700 '%s' && { test -x '%s' || %s; }", dir,
		 r->agent[k], push ? "true" : "echo no-agent");
	st = rm_ssh(h, cmd, out, sizeof(out), RM_CONNECT_S + RM_CMD_S);
	if (st == 255 || st < 0) {
		snprintf(why, len, "%s: unreachable over ssh: %s", h->dest, rm_last(out));
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

int rm_open(struct rm_ctx *r, const char *hosts, const char *run, const char *agent_path,
	    bool push, const char *tls_dir, char *why, size_t len)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->run, sizeof(r->run), "%s", run);
	snprintf(r->tls_dir, sizeof(r->tls_dir), "%s", tls_dir ? tls_dir : "");
	if (hst_parse(hosts, &r->list, why, len))
		return -1;
	for (int k = 0; k < r->list.n; k++) {
		char *a = r->agent[k];

		if (agent_path)
			snprintf(a, RM_PATH_MAX, "%s", agent_path);
		else if (push)
			snprintf(a, RM_PATH_MAX, "/tmp/rdmacap-%s-h%d/rdmacap-agent", run, k);
		else
			snprintf(a, RM_PATH_MAX, "%s", ha_binary());
		if (!rm_safe(a)) {
			snprintf(why, len, "agent path %s: not an absolute path without quotes", a);
			rm_close(r);
			return -1;
		}
		fprintf(stderr, "rdmacap: %s: preparing (agent %s)\n", r->list.h[k].dest, a);
		if (rm_host(r, k, push, tls_dir, why, len)) {
			rm_close(r);
			return -1;
		}
	}
	return 0;
}

void rm_close(struct rm_ctx *r)
{
	char cmd[RM_DIR_MAX + 32], out[512];

	for (int k = 0; k < r->list.n; k++) {
		if (!r->dir[k][0])
			continue;
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->dir[k]);
		if (rm_ssh(&r->list.h[k], cmd, out, sizeof(out), RM_CONNECT_S + RM_CMD_S))
			fprintf(stderr, "rdmacap: %s: %s not removed: %s (rdmacap down --hosts)\n",
				r->list.h[k].dest, r->dir[k], rm_last(out));
		r->dir[k][0] = '\0';
	}
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

int rm_argv(const struct rm_ctx *r, int k, char *const argv[], long nofile, long watchdog_s,
	    char *buf, size_t buflen, char **out, int max)
{
	char *cmd = NULL, port[8];
	size_t clen = 0;
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
	if (fclose(f) || rc || clen + 1 + sizeof(port) > buflen || max < 24) {
		free(cmd);
		return -1;
	}
	memcpy(buf, cmd, clen + 1);
	free(cmd);
	/* the port string lives in buf too, after the command */
	n = rm_ssh_argv(&r->list.h[k], out, buf + clen + 1, sizeof(port));
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

int rm_down(const char *hosts, FILE *log, int *removed)
{
	struct hst_list *l = malloc(sizeof(*l));
	char out[1024], why[256];
	int rc = 0;

	*removed = 0;
	if (!l || hst_parse(hosts, l, why, sizeof(why))) {
		fprintf(stderr, "rdmacap: --hosts: %s\n", l ? why : strerror(errno));
		free(l);
		return -1;
	}
	for (int k = 0; k < l->n; k++) {
		int st = rm_ssh(&l->h[k], rm_down_sh, out, sizeof(out), RM_CONNECT_S + RM_CMD_S);
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
	free(l);
	return rc;
}
