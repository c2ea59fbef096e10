/* SPDX-License-Identifier: MIT */
/*
 * netns: rdmacap's topologies, built with iproute2, and the capability probes.
 *
 * Every object rdmacap creates on a host carries the prefix "rdc" and the run id:
 *   namespaces  rdc<run>-srv, rdc<run>-c<k>
 *   veth ends   rdc<run>s<k> (server side), rdc<run>c<k> (client side)
 *   bridge      rdc<run>br (star, in the server namespace)
 *   rxe links   rdc<run>rs (server), rdc<run>r<k> (client k)
 * so nn_clean() can find the leftovers of any run, also a SIGKILLed one. A run's
 * links are also in link group 0x7264<run> (`ip link del group` removes them in one
 * go).
 *
 * Topologies:
 *   loop    everything in the caller's namespace; TCP over 127.0.0.1, rxe (if asked)
 *           on one veth pair in init_net talking to itself
 *   pair    server namespace + one client namespace joined by a veth pair
 *   star:K  server namespace with a bridge + K client namespaces, each with its own
 *           address on a veth into the bridge
 * Addresses come from 10.222.0.0/16: the server is 10.222.0.1, client k (1-based) is
 * host number k + 1 (10.222.0.2 .. 10.222.0.65), all /16 inside rdmacap's namespaces.
 * loop without rxe creates nothing (127.0.0.1 for both ends); loop with rxe makes
 * veth rdc<run>s0/rdc<run>c0 in the caller's namespace with 10.222.0.1/32 and
 * 10.222.0.2/32 and one rxe on s0 that srv and cli[0] share (it talks to itself).
 * Only one loop+rxe run fits on a host at a time; nn_up refuses a second.
 * With family AF_INET6 the same hosts get fd7a:222::1 (server) and
 * fd7a:222::<k + 1, hex> (client k), /64 (loop: /128; without rxe ::1), added
 * with nodad: no 1-2 s of duplicate address detection before they can be
 * bound, and an rxe link on them gets a RoCE v2 GID for each.
 *
 * Every call that works inside another namespace forks a child that joins it (or
 * execs ip/rdma there) and waits for that child by pid; the caller's thread never
 * changes namespace. rxe needs the default shared RDMA netns mode.
 */
#ifndef RDC_NETNS_H
#define RDC_NETNS_H

#include <stdbool.h>
#include <stdio.h>

#define NN_PREFIX "rdc"
#define NN_MAX_CLIENTS 64
#define NN_NAME_MAX 32 /* namespace names; interface names fit IFNAMSIZ (16) */

/* NN_HOST: the host's own devices and addresses; nn_up/nn_down never see it */
enum nn_kind { NN_LOOP, NN_PAIR, NN_STAR, NN_HOST };

struct nn_host {
	char ns[NN_NAME_MAX]; /* "" = the caller's namespace (loop) */
	char ifname[16];      /* the interface that carries the address */
	char addr[46];	      /* IPv4 or IPv6 text (INET6_ADDRSTRLEN) */
	char rxe[16];	      /* rxe link name, "" when none */
};

struct nn_topo {
	enum nn_kind kind;
	int nclients; /* client hosts: 1 for loop and pair, K for star */
	char run[8];  /* run id: 4 lowercase hex digits */
	bool rxe;     /* rxe links were asked for */
	bool up;      /* nn_up() succeeded and nn_down() has not run */
	int family;   /* AF_INET6: the IPv6 addresses below; else IPv4 */
	struct nn_host srv;
	struct nn_host cli[NN_MAX_CLIENTS];
};

/*
 * "loop", "pair", "star:K" (1 <= K <= NN_MAX_CLIENTS) or "host". Fills kind and nclients.
 * Returns 0, or -1 with a message in err (errlen bytes) naming the bad part.
 */
int nn_parse(const char *spec, struct nn_topo *t, char *err, size_t errlen);

/* A fresh random run id (4 hex digits) not used by any existing rdc object. */
int nn_new_run(char run[8]);

/*
 * Fills run, rxe and every host's names and addresses of an nn_parse()d topology
 * without creating anything: what nn_up() will make. 0, or -1 (EINVAL) for a bad
 * run id or topology. Needs no privileges.
 */
int nn_plan(struct nn_topo *t, const char *run, bool rxe);

/*
 * Creates the topology for run id 'run' (rxe links on every host when 'rxe', each
 * port ACTIVE before it returns), fills the host names and addresses (nn_plan).
 * Only topology: capacity sysctls are the caller's (nn_sysctl_set). On failure it
 * removes what it made and returns -1 after logging "netns: <step>: <reason>" to
 * stderr. Commands run (and their -batch scripts) are logged to 'log' when non-NULL.
 */
int nn_up(struct nn_topo *t, const char *run, bool rxe, FILE *log);

/*
 * Tears one topology down: processes left in its namespaces (killed: they would
 * pin rxe contexts), rxe links (waiting until the devices are gone), then
 * veths/bridge, then namespaces. Finds the objects by the run's name prefix, so it
 * also finishes a half-made or half-removed topology.
 */
int nn_down(struct nn_topo *t, FILE *log);

/*
 * Removes every rdc* object on the host: kills the processes left in rdc*
 * namespaces, deletes rdc* rxe links, links and namespaces (in that order).
 * 'removed' (may be NULL) counts the objects deleted: namespaces, rxe links and
 * links (a veth end that went with its peer from another namespace is not counted
 * again). Safe to call when there is nothing; 0, or -1 when something stayed.
 */
int nn_clean(FILE *log, int *removed);

/* In a child after fork(): join namespace 'ns' ("" = stay). 0 or -1 with errno. */
int nn_enter(const char *ns);

/*
 * Writes a sysctl (dotted key, or a /-separated one when a part contains dots)
 * inside namespace 'ns' ("" = the caller's). 0, or -1 with errno and a message.
 * E.g. net.core.somaxconn 65535 in the server namespace, net.ipv4.ip_local_port_range
 * "1024 65535" in client namespaces.
 */
int nn_sysctl_set(const char *ns, const char *key, const char *val);
/* Reads one; returns 0 and the value without trailing whitespace in buf. */
int nn_sysctl_get(const char *ns, const char *key, char *buf, size_t len);

/*
 * Opens the namespace's own view of /proc/net files: paths[i] relative to
 * /proc/thread-self/net ("snmp", "netstat", "dev"), opened read-only from a
 * short-lived thread that joined 'ns' ("" = the caller's), so the caller's
 * thread never changes namespace. A /proc/net file keeps the namespace it was
 * opened in: pread(fds[i], ..., 0) reads that namespace's figures for as long
 * as the fd is open, also after every process in it is gone. 0, or -1 with
 * errno (no fd left open).
 */
int nn_open_net(const char *ns, const char *const *paths, int n, int *fds);

/* Capability probes for `rdmacap env`. Each fills 'why' with the reason when false. */
struct nn_caps {
	char kernel[64]; /* uname -r */
	int kmajor, kminor;
	bool root;	 /* CAP_NET_ADMIN and CAP_SYS_ADMIN in effect */
	bool ip_tool;	 /* `ip` found */
	bool rdma_tool;	 /* `rdma` found */
	bool netns;	 /* namespaces can be created */
	bool rxe_module; /* rdma_rxe loaded or loadable */
	bool rxe_netns;	 /* rxe works inside a namespace (UDP 4791 listens there) */
	char why_netns[128], why_rxe[128], why_rxe_netns[128];
};
/*
 * 'deep' also creates and deletes a namespace, loads rdma_rxe (left loaded) and
 * puts a throwaway rxe link into a namespace (rdc<run>-probe) to see UDP 4791 open
 * there. Shallow, rxe_netns follows the kernel version (>= 7.1) and why_rxe_netns
 * says it was not tried. Returns 0 (the facts are in c), -1 only if uname fails.
 */
int nn_probe(struct nn_caps *c, bool deep, FILE *log);

#endif
