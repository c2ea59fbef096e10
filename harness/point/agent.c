// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/proto.h"
#include "harness/point/agent.h"
#include "harness/point/memfloor.h"
#include "netns/netns.h"

const char *agt_binary(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("RDMACAP_AGENT");
	ssize_t n;
	char *slash;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n > 0) {
		path[n] = '\0';
		slash = strrchr(path, '/');
		if (slash) {
			strcpy(slash + 1, "rdmacap-agent");
			if (!access(path, X_OK))
				return path;
		}
	}
	return "rdmacap-agent";
}

/*
 * Sets RLIMIT_NOFILE to *rl in the child. A hard limit above fs.nr_open (the
 * sysctl lowered after the limit was given) makes the kernel refuse every
 * setrlimit that keeps it: then the hard limit comes down to the soft one,
 * which is ours to lower. Exits 126 saying why when even that is refused.
 */
static void agt_nofile(struct rlimit *rl)
{
	if (!setrlimit(RLIMIT_NOFILE, rl))
		return;
	if (errno == EPERM && rl->rlim_max > rl->rlim_cur) {
		rl->rlim_max = rl->rlim_cur;
		if (!setrlimit(RLIMIT_NOFILE, rl))
			return;
	}
	fprintf(stderr, "rdmacap: setrlimit RLIMIT_NOFILE %llu: %s (fs.nr_open?)\n",
		(unsigned long long)rl->rlim_cur, strerror(errno));
	_exit(126);
}

static void agt_child(const char *ns, char *const argv[], long nofile, int in, int out,
		     pid_t parent, int deathsig)
{
	struct rlimit rl = { .rlim_cur = (rlim_t)nofile, .rlim_max = (rlim_t)nofile };
	struct rlimit cur;

	if (prctl(PR_SET_PDEATHSIG, deathsig ? deathsig : SIGKILL) || getppid() != parent)
		_exit(126);
	if (nn_enter(ns)) {
		fprintf(stderr, "rdmacap: setns %s: %s\n", ns, strerror(errno));
		_exit(126);
	}
	/* never lower a limit the user gave us: only raise */
	if (!getrlimit(RLIMIT_NOFILE, &cur) && cur.rlim_max < rl.rlim_max &&
	    setrlimit(RLIMIT_NOFILE, &rl)) {
		/* not privileged: take what the hard limit allows, the agent reports EMFILE */
		cur.rlim_cur = cur.rlim_max;
		agt_nofile(&cur);
	} else if (!getrlimit(RLIMIT_NOFILE, &cur) && cur.rlim_cur < rl.rlim_cur) {
		cur.rlim_cur = rl.rlim_cur <= cur.rlim_max ? rl.rlim_cur : cur.rlim_max;
		agt_nofile(&cur);
	}
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
		_exit(126);
	/* rdmacap is the OOM killer's last choice; its agents are not */
	mf_oom_child();
	execvp(argv[0], argv);
	fprintf(stderr, "rdmacap: exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int agt_spawn(struct agt_agent *a, const char *ns, char *const argv[], long nofile, char *err,
	     size_t errlen)
{
	int in[2], out[2];
	pid_t parent = getpid();

	*err = '\0';
	a->in_fd = a->out_fd = -1;
	a->buf = malloc(PROTO_LINE_MAX);
	if (!a->buf) {
		snprintf(err, errlen, "malloc: %s", strerror(errno));
		return -1;
	}
	a->len = 0;
	if (pipe2(in, O_CLOEXEC))
		goto err_buf;
	if (pipe2(out, O_CLOEXEC))
		goto err_in;
	a->pid = fork();
	if (a->pid < 0)
		goto err_out;
	if (a->pid == 0)
		agt_child(ns, argv, nofile, in[0], out[1], parent, a->deathsig);
	close(in[0]);
	close(out[1]);
	a->in_fd = in[1];
	a->out_fd = out[0];
	/* read from the event loop; main() ignores SIGPIPE so writes to a dead agent fail */
	if (fcntl(a->out_fd, F_SETFL, O_NONBLOCK))
		return -1;
	return 0;

err_out:
	snprintf(err, errlen, "%s: %s", a->pid < 0 ? "fork" : "pipe", strerror(errno));
	close(out[0]);
	close(out[1]);
err_in:
	if (!*err)
		snprintf(err, errlen, "pipe: %s", strerror(errno));
	close(in[0]);
	close(in[1]);
err_buf:
	if (!*err)
		snprintf(err, errlen, "pipe: %s", strerror(errno));
	free(a->buf);
	a->buf = NULL;
	return -1;
}

int agt_send(struct agt_agent *a, enum proto_cmd cmd)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%s\n", proto_cmd_word(cmd));

	if (a->in_fd < 0)
		return -1;
	/* commands are tiny: one write into an empty pipe never blocks or splits */
	if (write(a->in_fd, line, (size_t)n) != n)
		return -1;
	return 0;
}

void agt_close_in(struct agt_agent *a)
{
	if (a->in_fd >= 0) {
		close(a->in_fd);
		a->in_fd = -1;
	}
}

int agt_read(struct agt_agent *a, int (*cb)(void *ctx, struct agt_agent *a, char *line), void *ctx)
{
	while (a->out_fd >= 0) {
		ssize_t n = read(a->out_fd, a->buf + a->len, PROTO_LINE_MAX - 1 - a->len);
		char *p, *nl;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -1;
		}
		if (n == 0) {
			close(a->out_fd);
			a->out_fd = -1;
			return 1;
		}
		a->len += (size_t)n;
		a->buf[a->len] = '\0';
		p = a->buf;
		while ((nl = memchr(p, '\n', a->len - (size_t)(p - a->buf)))) {
			*nl = '\0';
			if (cb(ctx, a, p))
				return -1;
			p = nl + 1;
		}
		a->len -= (size_t)(p - a->buf);
		memmove(a->buf, p, a->len);
		if (a->len == PROTO_LINE_MAX - 1)
			return -1;
	}
	return 1;
}

void agt_kill(struct agt_agent *a, int sig)
{
	if (a->pid > 0 && !a->exited)
		kill(a->pid, sig);
}

void agt_free(struct agt_agent *a)
{
	agt_close_in(a);
	if (a->out_fd >= 0)
		close(a->out_fd);
	a->out_fd = -1;
	free(a->buf);
	a->buf = NULL;
}

const char *agt_status_str(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "signal_%d_%s", WTERMSIG(status), sigabbrev_np(WTERMSIG(status)) ?
			 sigabbrev_np(WTERMSIG(status)) : "?");
	else
		snprintf(buf, len, "exit_%d", WEXITSTATUS(status));
	return buf;
}
