/* SPDX-License-Identifier: MIT */
/*
 * netns internals shared by the files of this module; not part of its contract
 * (only tests/test_netns.c looks in here, to check the naming rules).
 */
#ifndef RDC_NETNS_NN_H
#define RDC_NETNS_NN_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "netns/netns.h"

#define NN_IFNAMSIZ 16
#define NN_NS_DIR "/run/netns"
#define NN_IB_DIR "/sys/class/infiniband"
/* A safety net against a wedged ip/rdma; real steps take well under a second. */
#define NN_CMD_TIMEOUT_MS 120000
/* rxe unregisters asynchronously and is slow under TCG: be generous. */
#define NN_RXE_TIMEOUT_MS 30000
/*
 * A veth's or bridge's carrier comes up after `link set up` returns (the kernel's
 * linkwatch runs at most once a second); 10 s leaves TCG its slack.
 */
#define NN_OPER_TIMEOUT_MS 10000

/* A growable list of names (namespaces, links, rxe devices). */
struct nn_list {
	char (*v)[NN_NAME_MAX];
	int n, cap;
};
int nn_list_add(struct nn_list *l, const char *name);
bool nn_list_has(const struct nn_list *l, const char *name);
void nn_list_free(struct nn_list *l);

/* One external command; argv[0] is a tool name ("ip", "rdma") looked up on PATH. */
struct nn_cmd {
	const char *ns;	      /* run inside this namespace; NULL or "" = the caller's */
	const char *argv[12]; /* NULL-terminated */
	const char *input;    /* stdin, e.g. a -batch script; NULL = /dev/null */
	bool capture;	      /* collect stdout into 'output' (else it goes to stderr) */
	char *output;	      /* malloc'd, NUL-terminated; nn_cmd_free() releases it */
	pid_t pid;
	int pidfd, outfd;
	int status; /* wait status */
	bool done;
};

/* names.c */
bool nn_run_ok(const char *run);
void nn_name_ns(char *buf, size_t len, const char *run, int k); /* k = 0: server */
void nn_name_veth(char *buf, size_t len, const char *run, char side, int k);
void nn_name_rxe(char *buf, size_t len, const char *run, int k); /* k = 0: server */
void nn_name_bridge(char *buf, size_t len, const char *run);
/* the address of host k (0: the server) of family AF_INET or AF_INET6 */
void nn_client_addr(char *buf, size_t len, int family, int k);
#define NN_GROUP_BASE 0x72640000UL
unsigned long nn_group(const char *run); /* link group of a run's links */
/* ifindex of both ends of veth k (1..NN_MAX_CLIENTS) of a namespaced run */
unsigned long nn_ifindex(const char *run, int k);

/* exec.c: runs all cmds at once, waits for all; 0 when every one exited 0. */
int nn_which(const char *tool, char *path, size_t len);
int nn_cmd_run(struct nn_cmd *cmds, int n, FILE *log);
void nn_cmd_free(struct nn_cmd *cmds, int n);
int nn_batch(const char *ns, const char *tool, const char *script, bool force, FILE *log);
const char *nn_ns_label(const char *ns);

/* enter.c */
/*
 * Runs fn(arg, wfd) in a child that joined 'ns'; fn writes its answer to wfd and
 * returns 0 or an errno. The answer is read into *out (malloc'd) when out != NULL.
 * Returns 0, or -1 with errno from the child.
 */
int nn_in_ns(const char *ns, int (*fn)(void *, int), void *arg, char **out);
int nn_ns_list(const char *prefix, struct nn_list *out);
bool nn_ns_real(const char *ns);
int nn_ns_links(const char *ns, const char *prefix, struct nn_list *out);
int nn_ns_kill(const struct nn_list *nss, FILE *log, int *killed);
int nn_ns_udp_bound(const char *ns, unsigned int port); /* 1, 0 or -1 */

/* oper.c */
/*
 * Waits until every named link in 'ns' is operationally up or end_ms (nn_now_ms)
 * passes; *late (malloc'd) lists those still down, "" when none. -1 if the
 * namespace or a link cannot be looked at.
 */
int nn_ns_wait_oper(const char *ns, const char *const *names, int n, long long end_ms,
		    char **late);

/* rxe.c */
bool nn_rdma_present(void);
bool nn_rdma_shared(void);
int nn_rxe_add(const char (*name)[NN_IFNAMSIZ], const char (*netdev)[NN_IFNAMSIZ],
	       const char (*ns)[NN_NAME_MAX], int n, FILE *log);
int nn_rxe_wait_active(const char (*name)[NN_IFNAMSIZ], int n, int timeout_ms);
int nn_rxe_find(const char *prefix, const struct nn_list *nss, struct nn_list *names,
		struct nn_list *owners);
int nn_rxe_del(const struct nn_list *names, const struct nn_list *owners, FILE *log);

/* teardown.c: everything whose name starts with 'prefix', in the safe order. */
int nn_teardown(const char *prefix, FILE *log, int *removed);

long long nn_now_ms(void);
void nn_sleep_ms(int ms);

#endif
