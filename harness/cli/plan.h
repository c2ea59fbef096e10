/* SPDX-License-Identifier: MIT */
/*
 * plan: what the user asked for, parsed from the command line.
 *
 * One struct for every subcommand; each command reads the fields it needs.
 * hp_parse() never creates anything: a bad command line is rejected before any
 * namespace, process or file exists (checking that --json's folder takes a new
 * file creates and removes one there). --tls-* files are loaded and verified as
 * the agents will use them (harness/certs/certs.h). The options the agent also takes are
 * checked with the agent's own table and rules (common/opt.h), so no value
 * passed on to an agent can make it exit with a usage error.
 */
#ifndef RDC_HARNESS_PLAN_H
#define RDC_HARNESS_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "common/ipaddr.h"
#include "common/opt.h"
#include "harness/fault/fault.h"
#include "netns/netns.h"

enum hp_cmd { HP_ENV, HP_UP, HP_DOWN, HP_RUN, HP_RAMP, HP_LIMIT, HP_STORM, HP_REPORT, HP_NCMD };

#define HP_MAX_POINTS 64
#define HP_MAX_FILES 64 /* report: bench/loss writes 2 transports x 2 rates x 5 runs */
#define HP_MAX_REPEAT 100       /* --repeat: runs of one point */

struct hp_plan {
	enum hp_cmd cmd;
	const char *cmd_name;

	/* load */
	enum opt_transport transport;   /* words, limits, defaults: common/opt.h */
	enum opt_cm cm;
	enum opt_cm_order cm_order;
	enum opt_model server_model;
	enum opt_cq cq;
	enum opt_mr mr;
	bool srq;
	long rx_depth;          /* 0: the agents' own */
	enum opt_op op;
	enum opt_oob_session oob_session;
	enum opt_poll poll;
	enum opt_ah ah;
	long ah_max;            /* --ah lru: AHs held at most, 0: the device's max_ah less a few */
	long clients[HP_MAX_POINTS];
	int npoints;
	long agents;            /* 0 = automatic */
	long msgs, size, think_ms, stagger_ms, workers, timeout_s;
	long qp_share;		/* rc: QPs per client agent its clients share; 0: off */
	long nvme_io_queues, nvme_queue_size;	/* nvmf: each controller's */
	bool msgs_set, timeout_set;
	long mem_floor_mib;     /* --mem-floor: 0 off, -1 automatic (harness/point/memfloor.h) */
	long server_threads;
	long repeat;            /* --repeat: each point this many times (run, ramp, storm) */
	long ports;             /* 0 = automatic */
	char topo_spec[24];
	bool topo_set;          /* --topology given (not the default) */
	struct nn_topo topo;
	/* --topology host: the host's own device and address (harness/load/hosttopo.h) */
	struct opt_dev device;  /* name "" = the device holding the address */
	int gid_index;          /* -1 = the RoCEv2 GID of the address */
	int sl, tclass;         /* --sl, --tclass: the agents' address vectors */
	char server_addr[IPA_STRLEN];   /* "" = the device's address, or 127.0.0.1 for tcp */
	bool tune;              /* set the sysctls that would help, restore at the end */
	/* --hosts: agents on other machines over OpenSSH (harness/hosts/hosts.h) */
	const char *hosts;
	const char *server_host; /* --server-host: the server host's name, NULL = the first */
	const char *agent_path; /* the agent's path on every remote host */
	bool push;              /* scp the agent there first, check its libraries */
	int launcher;           /* --launcher: enum hosts_launcher (harness/hosts/hosts.h) */
	const char *json;       /* --json FILE */
	const char *tls_ca, *tls_cert, *tls_key;
	/* fi-msg, fi-rdm: the provider, given or opt_fi_default's (clicheck.c) */
	char fi_provider[OPT_FI_NAME_MAX];
	struct flt_spec fault;  /* --fault (harness/fault/fault.h); kind FLT_NONE: none */
	long fault_at_ms;       /* --fault-at: after "run"; see hp_fault_at() */
	bool fault_at_set;

	/* limit */
	long max, start;
	long steps;             /* limit: at most this many load points */
	long budget_s;          /* limit: wall-time budget */
	double thresholds[2];   /* 100 and 95 by default */

	/* up / down */
	bool rxe;
	bool deep;              /* env: really create a probe rxe link */
	bool figures;           /* report: print the table of figures instead */
	char run[8];

	/* report */
	const char *files[HP_MAX_FILES];
	int nfiles;
	const char *baseline;   /* --baseline FILE: an earlier run for side by side */
	const char *out_md, *out_svg;

	bool verbose;
};

/*
 * Parses argv (argv[0] is the program, argv[1] the subcommand). Returns 0, 1 when
 * --help was printed (exit 0), or -1 after printing "rdmacap: ..." and the usage
 * line of the subcommand to stderr (exit 2).
 */
int hp_parse(struct hp_plan *p, int argc, char **argv, FILE *err);

/*
 * When the fault is applied, in ms after "run": --fault-at, else a third of the
 * think time the traffic is planned to take (--msgs x --think-ms), 0 without one.
 */
long hp_fault_at(const struct hp_plan *p);

/* "10,50,100" -> clients[]; rejects empty items, zero, garbage and overflows. */
int hp_parse_list(const char *s, long *out, int max, int *n);

#endif
