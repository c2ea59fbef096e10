/* SPDX-License-Identifier: MIT */
/*
 * hosts: the --hosts list, "[user@]host[:port][/device]" entries (host: a DNS
 * name, an IPv4 address, or an IPv6 address in brackets as OpenSSH users
 * write it, "[fd7a::2]", "user@[fd7a::2]:2222/mlx5_0"; device: the
 * host's RDMA device, default --device or the one holding the address), the server host first
 * and then the client hosts, given inline (comma separated) or as a file (one
 * or more per line, '#' starts a comment; an Open MPI hostfile reads the same:
 * its slots= and max_slots= words are skipped).
 *
 * Offers hosts_parse(); the ssh side is harness/hosts/remote.h. Every word is checked
 * here, before it reaches an ssh command line: a host may not start with '-'
 * (it would be an ssh option), names are [A-Za-z0-9._-], an IPv6 literal is
 * what inet_pton takes (no scope: a link-local address is refused), ports
 * 1..65535; a bracket-less word with two colons is refused, named as an IPv6
 * address without its brackets.
 *
 * Uses: libc only. Never prints.
 */
#ifndef RDC_HARNESS_HOSTS_H
#define RDC_HARNESS_HOSTS_H

#include <stddef.h>

#define HOSTS_MAX 65      /* a server host and NN_MAX_CLIENTS client hosts */
#define HOSTS_NAME_MAX 254

/*
 * --launcher, in the order of its words in the option table
 * (harness/cli/cli.c): what starts the agents on the hosts. Under srun a
 * host is a Slurm node name and --hosts HOSTS_SLURM names the nodes of the
 * allocation rdmacap runs in; user@ and :port are ssh's and refused there.
 */
enum hosts_launcher { HOSTS_SSH, HOSTS_SRUN, HOSTS_MPIRUN, HOSTS_NLAUNCHERS };
#define HOSTS_LAUNCHERS "ssh|srun|mpirun" /* each is the program it runs */
#define HOSTS_SLURM "slurm"

struct hosts_host {
	char user[33];           /* "" = ssh's default (the user's config) */
	char name[HOSTS_NAME_MAX]; /* DNS name, IPv4 or IPv6 address (no brackets) */
	unsigned port;           /* ssh port, 0 = ssh's default */
	char device[64];         /* RDMA device there, "" = --device or the address's */
	char dest[HOSTS_NAME_MAX + 34]; /* "user@name" or "name": ssh's destination */
	char scp[HOSTS_NAME_MAX + 36];  /* dest, an IPv6 name in brackets: scp's HOST of HOST:PATH */
};

struct hosts_list {
	int n;                   /* h[0] the server host, h[1..n-1] the client hosts */
	struct hosts_host h[HOSTS_MAX];
};

/*
 * Parses spec: a readable file's content, or else the spec itself. At least
 * two hosts. l may be NULL (check only). 0, or -1 with the reason in err.
 */
int hosts_parse(const char *spec, struct hosts_list *l, char *err, size_t len);

/*
 * --server-host NAME: the host of l named NAME (its name, without user@,
 * :port or /device) becomes h[0], the others keep their order. 0, or -1
 * with err (no such host).
 */
int hosts_server_first(struct hosts_list *l, const char *name, char *err, size_t len);

/*
 * --hosts slurm[:NODE/DEVICE,...]: whether spec names the allocation's nodes;
 * hosts_slurm_check: the words after "slurm:" are NODE/DEVICE each (no user@
 * or :port), 0 or -1 with err; hosts_slurm: the node list 'nodes' ("n0,n1",
 * scontrol's order) with the devices spec names, into out. 0, or -1 with err
 * (a node not in the allocation, out too small).
 */
int hosts_is_slurm(const char *spec);
int hosts_slurm_check(const char *spec, char *err, size_t len);
int hosts_slurm(const char *spec, const char *nodes, char *out, size_t olen, char *err,
		size_t len);

/* Launcher l's word of HOSTS_LAUNCHERS, which is also its program's name. */
const char *hosts_launcher(int l);

#endif
