// SPDX-License-Identifier: MIT
/*
 * Running ip and rdma: fork, join the namespace, exec with an argv array (never a
 * shell). Commands given together run at the same time and are waited for together,
 * because a topology is many small independent steps and process start is the cost
 * that dominates inside a TCG VM (~15 ms each).
 *
 * Children are waited for by pid (pidfd), never with waitpid(-1), so a caller's
 * SIGCHLD handling is not disturbed as long as it does not reap foreign pids while
 * a netns call runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "netns/nn.h"

/* Where a failing child got to, sent back over a close-on-exec pipe. */
struct nn_fail {
	int stage; /* 1 setns, 2 exec */
	int err;
};

long long nn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void nn_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

const char *nn_ns_label(const char *ns)
{
	return ns && *ns ? ns : "caller's namespace";
}

/* PATH first, then the sbin directories a sudo-less PATH often lacks. */
int nn_which(const char *tool, char *path, size_t len)
{
	static const char *extra = "/usr/sbin:/sbin:/usr/bin:/bin";
	const char *env = getenv("PATH");
	const char *lists[2] = {env ? env : "", extra};
	int i;

	for (i = 0; i < 2; i++) {
		const char *p = lists[i];

		while (*p) {
			size_t n = strcspn(p, ":");

			if (n && (size_t)snprintf(path, len, "%.*s/%s", (int)n, p, tool) < len &&
			    access(path, X_OK) == 0)
				return 0;
			p += n;
			if (*p)
				p++;
		}
	}
	errno = ENOENT;
	return -1;
}

static void nn_log_cmd(FILE *log, const struct nn_cmd *c)
{
	const char *s, *e;
	int i;

	if (!log)
		return;
	fprintf(log, "netns: +");
	for (i = 0; c->argv[i]; i++)
		fprintf(log, " %s", c->argv[i]);
	if (c->ns && *c->ns)
		fprintf(log, "   (in %s)", c->ns);
	fputc('\n', log);
	for (s = c->input; s && *s; s = *e ? e + 1 : e) {
		e = strchrnul(s, '\n');
		fprintf(log, "netns: |   %.*s\n", (int)(e - s), s);
	}
	fflush(log);
}

static int nn_stdin_fd(const char *input)
{
	size_t len, off = 0;
	ssize_t w;
	int fd;

	if (!input)
		return open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* A memfd, unlike a pipe, takes any script size without a writer thread. */
	fd = memfd_create("nn-batch", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	len = strlen(input);
	while (off < len) {
		w = write(fd, input + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto err;
		}
		off += w;
	}
	if (lseek(fd, 0, SEEK_SET) < 0)
		goto err;
	return fd;
err:
	close(fd);
	return -1;
}

/* dup2(), except that an fd already in place must lose close-on-exec instead. */
static int nn_dup_to(int fd, int to)
{
	if (fd == to)
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, to);
}

/* Only async-signal-safe calls between fork and exec. */
static void __attribute__((noreturn))
nn_child(const char *path, const char *const *argv, int nsfd, int infd, int outfd, int failfd)
{
	struct nn_fail f = {0, 0};
	sigset_t all;

	/* The harness blocks signals for its signalfd; tools must not inherit that. */
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET) < 0) {
		f.stage = 1;
		goto fail;
	}
	if (nn_dup_to(infd, 0) < 0 || nn_dup_to(outfd, 1) < 0)
		goto fail;
	execv(path, (char *const *)argv);
	f.stage = 2;
fail:
	f.err = errno;
	if (write(failfd, &f, sizeof(f)) < 0)
		_exit(126);
	_exit(127);
}

static int nn_spawn(struct nn_cmd *c, int *failfd, FILE *log)
{
	char path[PATH_MAX], nspath[PATH_MAX];
	int nsfd = -1, infd = -1, fp[2] = {-1, -1}, op[2] = {-1, -1};
	int ret = -1;

	c->pid = -1;
	c->pidfd = -1;
	c->outfd = -1;
	*failfd = -1;
	if (nn_which(c->argv[0], path, sizeof(path)) < 0) {
		fprintf(stderr, "netns: %s: not found on PATH or in /usr/sbin\n", c->argv[0]);
		return -1;
	}
	if (c->ns && *c->ns) {
		snprintf(nspath, sizeof(nspath), NN_NS_DIR "/%s", c->ns);
		nsfd = open(nspath, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0) {
			fprintf(stderr, "netns: open %s: %s\n", nspath, strerror(errno));
			return -1;
		}
	}
	infd = nn_stdin_fd(c->input);
	if (infd < 0) {
		fprintf(stderr, "netns: stdin for %s: %s\n", c->argv[0], strerror(errno));
		goto out;
	}
	if (pipe2(fp, O_CLOEXEC) < 0 || (c->capture && pipe2(op, O_CLOEXEC) < 0) ||
	    (c->capture && fcntl(op[0], F_SETFL, O_NONBLOCK) < 0)) {
		fprintf(stderr, "netns: pipe2: %s\n", strerror(errno));
		goto out;
	}
	nn_log_cmd(log, c);
	c->pid = fork();
	if (c->pid < 0) {
		fprintf(stderr, "netns: fork for %s: %s\n", c->argv[0], strerror(errno));
		goto out;
	}
	/* Without capture, stdout goes to stderr: stdout belongs to TAP. */
	if (c->pid == 0)
		nn_child(path, c->argv, nsfd, infd, c->capture ? op[1] : 2, fp[1]);
	c->pidfd = syscall(SYS_pidfd_open, c->pid, 0);
	*failfd = fp[0];
	fp[0] = -1;
	if (c->capture) {
		c->outfd = op[0];
		op[0] = -1;
	}
	ret = 0;
out:
	if (op[0] >= 0)
		close(op[0]);
	if (op[1] >= 0)
		close(op[1]);
	if (fp[0] >= 0)
		close(fp[0]);
	if (fp[1] >= 0)
		close(fp[1]);
	if (infd >= 0)
		close(infd);
	if (nsfd >= 0)
		close(nsfd);
	return ret;
}

/* Appends all that is readable now (outfd is non-blocking); closes it at EOF. */
static int nn_drain(struct nn_cmd *c, size_t *len)
{
	char buf[4096], *p;
	ssize_t r;

	while (c->outfd >= 0) {
		r = read(c->outfd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 0;
		if (r <= 0) {
			close(c->outfd);
			c->outfd = -1;
			return r < 0 ? -1 : 0;
		}
		p = realloc(c->output, *len + r + 1);
		if (!p)
			return -1;
		memcpy(p + *len, buf, r);
		*len += r;
		p[*len] = '\0';
		c->output = p;
	}
	return 0;
}

static int nn_reap(struct nn_cmd *c, int flags)
{
	pid_t r;

	do
		r = waitpid(c->pid, &c->status, flags);
	while (r < 0 && errno == EINTR);
	if (r == c->pid) {
		c->done = true;
		if (c->pidfd >= 0)
			close(c->pidfd);
		c->pidfd = -1;
	}
	return r;
}

static void nn_report(const struct nn_cmd *c, int failfd)
{
	struct nn_fail f;
	char what[256];
	int i, off = 0;

	for (i = 0; c->argv[i] && off < (int)sizeof(what) - 1; i++)
		off += snprintf(what + off, sizeof(what) - off, "%s%s", i ? " " : "", c->argv[i]);
	if (read(failfd, &f, sizeof(f)) == sizeof(f))
		fprintf(stderr, "netns: %s (in %s): %s: %s\n", what, nn_ns_label(c->ns),
			f.stage == 1 ? "setns" : "exec", strerror(f.err));
	else if (WIFSIGNALED(c->status))
		fprintf(stderr, "netns: %s (in %s): killed by signal %d\n", what,
			nn_ns_label(c->ns), WTERMSIG(c->status));
	else if (WEXITSTATUS(c->status))
		fprintf(stderr, "netns: %s (in %s): exit status %d\n", what, nn_ns_label(c->ns),
			WEXITSTATUS(c->status));
}

int nn_cmd_run(struct nn_cmd *cmds, int n, FILE *log)
{
	struct pollfd *pfd = NULL;
	int *failfd = NULL;
	size_t *olen = NULL;
	long long deadline;
	int i, left = 0, ret = 0;

	pfd = calloc(2 * n + 1, sizeof(*pfd));
	failfd = calloc(n + 1, sizeof(*failfd));
	olen = calloc(n + 1, sizeof(*olen));
	if (!pfd || !failfd || !olen) {
		fprintf(stderr, "netns: calloc: %s\n", strerror(errno));
		ret = -1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		cmds[i].done = false;
		cmds[i].output = NULL;
		cmds[i].status = 0;
		if (nn_spawn(&cmds[i], &failfd[i], log) < 0) {
			cmds[i].done = true;
			ret = -1;
			continue;
		}
		left++;
	}

	deadline = nn_now_ms() + NN_CMD_TIMEOUT_MS;
	while (left) {
		long long now = nn_now_ms();
		bool blind = false; /* a child without pidfd: poll on a short timer */
		int np = 0, r;

		if (now >= deadline)
			break;
		for (i = 0; i < n; i++) {
			if (cmds[i].outfd >= 0)
				pfd[np++] = (struct pollfd){cmds[i].outfd, POLLIN, 0};
			if (cmds[i].done)
				continue;
			if (cmds[i].pidfd >= 0)
				pfd[np++] = (struct pollfd){cmds[i].pidfd, POLLIN, 0};
			else
				blind = true;
		}
		r = poll(pfd, np, blind ? 10 : (int)(deadline - now));
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "netns: poll: %s\n", strerror(errno));
			break;
		}
		for (i = 0; i < n; i++) {
			if (nn_drain(&cmds[i], &olen[i]) < 0) {
				fprintf(stderr, "netns: output of %s: %s\n", cmds[i].argv[0],
					strerror(errno));
				ret = -1;
			}
			if (!cmds[i].done && nn_reap(&cmds[i], WNOHANG) == cmds[i].pid)
				left--;
		}
	}

	for (i = 0; i < n; i++) {
		if (!cmds[i].done) {
			fprintf(stderr, "netns: %s (in %s): no exit after %d s, killing it\n",
				cmds[i].argv[0], nn_ns_label(cmds[i].ns), NN_CMD_TIMEOUT_MS / 1000);
			kill(cmds[i].pid, SIGKILL);
			nn_reap(&cmds[i], 0);
			ret = -1;
		}
		/* Whatever a dead child left in the pipe, then stop reading. */
		if (nn_drain(&cmds[i], &olen[i]) < 0)
			ret = -1;
		if (cmds[i].outfd >= 0) {
			close(cmds[i].outfd);
			cmds[i].outfd = -1;
		}
		if (cmds[i].pid > 0 && failfd[i] >= 0) {
			if (!WIFEXITED(cmds[i].status) || WEXITSTATUS(cmds[i].status)) {
				nn_report(&cmds[i], failfd[i]);
				ret = -1;
			}
		}
		if (failfd[i] >= 0)
			close(failfd[i]);
		if (cmds[i].capture && !cmds[i].output)
			cmds[i].output = strdup("");
	}
out:
	free(olen);
	free(failfd);
	free(pfd);
	return ret;
}

void nn_cmd_free(struct nn_cmd *cmds, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(cmds[i].output);
		cmds[i].output = NULL;
	}
}

int nn_batch(const char *ns, const char *tool, const char *script, bool force, FILE *log)
{
	struct nn_cmd c = {.ns = ns, .input = script};
	int a = 0;

	/* ip matches "-force"/"-batch" ("-f" is -family); rdma has getopt: -f, -b. */
	bool ip = !strcmp(tool, "ip");

	c.argv[a++] = tool;
	if (force)
		c.argv[a++] = ip ? "-force" : "-f";
	c.argv[a++] = ip ? "-batch" : "-b";
	c.argv[a++] = "-";
	c.argv[a] = NULL;
	return nn_cmd_run(&c, 1, log);
}
