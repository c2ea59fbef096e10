/* SPDX-License-Identifier: MIT */
/*
 * netns: rdmacap's topologies, built with iproute2, and the capability probes.
 *
 * Every object rdmacap creates on a host carries the prefix "rdc" and the run id:
 *   namespaces  rdc<run>-srv, rdc<run>-c<k>
 *   veth ends   rdc<run>s<k> (server side), rdc<run>c<k> (client side)
 *   bridge      rdc<run>br (star, in the server namespace)
 *   rxe links   rdc<run>rs (server), rdc<run>r<k> (client k)
 * so nn_clean() can find the leftovers of any run, also a SIGKILLed one.
 *
 * Topologies:
 *   loop    everything in the caller's namespace; TCP over 127.0.0.1, rxe (if asked)
 *           on one veth pair in init_net talking to itself
 *   pair    server namespace + one client namespace joined by a veth pair
 *   star:K  server namespace with a bridge + K client namespaces, each with its own
 *           address on a veth into the bridge
 * Addresses come from 10.222.0.0/16 and exist only inside rdmacap's namespaces.
 */
#ifndef RDC_NETNS_H
#define RDC_NETNS_H

#include <stdbool.h>
#include <stdio.h>

#define NN_PREFIX "rdc"
#define NN_MAX_CLIENTS 64
#define NN_NAME_MAX 32 /* namespace names; interface names fit IFNAMSIZ (16) */

enum nn_kind { NN_LOOP, NN_PAIR, NN_STAR };

struct nn_host {
	char ns[NN_NAME_MAX];  /* "" = the caller's namespace (loop) */
	char ifname[16];       /* the interface that carries the address */
	char addr[16];         /* dotted IPv4 */
	char rxe[16];          /* rxe link name, "" when none */
};

struct nn_topo {
	enum nn_kind kind;
	int nclients;          /* client hosts: 1 for loop and pair, K for star */
	char run[8];           /* run id: 4 lowercase hex digits */
	bool rxe;              /* rxe links were asked for */
	bool up;               /* nn_up() succeeded and nn_down() has not run */
	struct nn_host srv;
	struct nn_host cli[NN_MAX_CLIENTS];
};

/*
 * "loop", "pair" or "star:K" (1 <= K <= NN_MAX_CLIENTS). Fills kind and nclients.
 * Returns 0, or -1 with a message in err (errlen bytes) naming the bad part.
 */
int nn_parse(const char *spec, struct nn_topo *t, char *err, size_t errlen);

/* A fresh random run id (4 hex digits) not used by any existing rdc object. */
int nn_new_run(char run[8]);

/*
 * Creates the topology for run id 'run' (rxe links on every host when 'rxe'), fills
 * the host names and addresses. On failure it removes what it made and returns -1
 * after logging "netns: <step>: <reason>" to stderr. Commands run are logged to
 * 'log' when non-NULL.
 */
int nn_up(struct nn_topo *t, const char *run, bool rxe, FILE *log);

/* Tears one topology down: rxe links first, then veths/bridge, then namespaces. */
int nn_down(struct nn_topo *t, FILE *log);

/*
 * Removes every rdc* object on the host: kills the processes left in rdc*
 * namespaces, deletes rdc* rxe links, links and namespaces (in that order).
 * 'removed' counts the objects deleted. Safe to call when there is nothing.
 */
int nn_clean(FILE *log, int *removed);

/* In a child after fork(): join namespace 'ns' ("" = stay). 0 or -1 with errno. */
int nn_enter(const char *ns);

/* Writes a sysctl (dotted key) inside namespace 'ns' ("" = the caller's). */
int nn_sysctl_set(const char *ns, const char *key, const char *val);
/* Reads one; returns 0 and the trimmed value in buf. */
int nn_sysctl_get(const char *ns, const char *key, char *buf, size_t len);

/* Capability probes for `rdmacap env`. Each fills 'why' with the reason when false. */
struct nn_caps {
	char kernel[64];       /* uname -r */
	int kmajor, kminor;
	bool root;             /* CAP_NET_ADMIN and CAP_SYS_ADMIN in effect */
	bool ip_tool;          /* `ip` found */
	bool rdma_tool;        /* `rdma` found */
	bool netns;            /* namespaces can be created */
	bool rxe_module;       /* rdma_rxe loaded or loadable */
	bool rxe_netns;        /* rxe works inside a namespace (UDP 4791 listens there) */
	char why_netns[128], why_rxe[128], why_rxe_netns[128];
};
/* 'deep' also tries to load rdma_rxe and create a throwaway rxe link in a namespace. */
int nn_probe(struct nn_caps *c, bool deep, FILE *log);

#endif
