/* SPDX-License-Identifier: MIT */
/*
 * clicheck: what a parsed command line (harness/cli/cli.c) must meet before any
 * namespace, process or file exists: the topology, --hosts and the options
 * only a host topology takes, the agent's own cross-option rules
 * (common/opt.h), the user's PKI (harness/certs/certs.h), --fault, the files report
 * reads and the folder --json writes, clients per agent, and what the device
 * named with --topology host must offer the load (rdma/cap.h: an iWARP
 * device refuses --cm oob-tls, ud, uc and atomics here, before anything is
 * made). It fills in what follows from them (--hosts: the host topology;
 * storm: one message).
 *
 * Uses: harness/cli/cli.h and usage.h, harness/certs/certs.h, harness/hosts/hosts.h,
 * harness/fault/fault.h, netns/, common/opt.h, rdma/cap.h.
 * Prints only the one message of a rejected line, on err (harness/cli/usage.h).
 */
#ifndef RDC_HARNESS_CLICHECK_H
#define RDC_HARNESS_CLICHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "common/opt.h"
#include "harness/cli/plan.h"

/*
 * p parsed, seen[] the agent's options given. 0, or -1 after printing why and
 * the command's usage line on err.
 */
int clicheck_plan(struct hp_plan *p, const bool seen[OPT_N], FILE *err);

/* What p's load needs of the server's device: rdma/cap.h's RCAP_ bits, 0 for tcp. */
unsigned clicheck_cap_need(const struct hp_plan *p);

#endif
