/* SPDX-License-Identifier: MIT */
/*
 * nvmfname: the names of what an nvmf point makes in the kernel, the one place
 * both programs read them: the nvmf server agent makes them (agents/nvmf/),
 * `rdmacap down` finds a killed run's by them (harness/ulp/). Everything is
 * named after the run ("rdc" and its 4 hex digits, as netns/ names its
 * objects), so no other nvmet configuration of the host is ever touched.
 *
 *   target subsystem  NVMF_NQN_PREFIX <run>      nqn.2014-08.org.rdmacap:rdc1a2b
 *   null_blk device   NVMF_BLK_PREFIX <run>      /sys/kernel/config/nullb/rdc1a2b
 *                                                (its disk: /dev/rdc1a2b)
 *   nvmet port        NVMF_PORT_ID(run)          /sys/kernel/config/nvmet/ports/61440+
 *   host NQN          <subsystem NQN>:host:<id>  one per client (controller)
 *
 * nvmet port directories are numbers, not names: a port rdmacap made is one
 * whose id is in [NVMF_PORT_BASE, NVMF_PORT_BASE + 4096) and whose
 * subsystems are rdmacap's only. Uses libc only.
 */
#ifndef RDC_COMMON_NVMFNAME_H
#define RDC_COMMON_NVMFNAME_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NVMF_NQN_PREFIX "nqn.2014-08.org.rdmacap:rdc"
#define NVMF_BLK_PREFIX "rdc"
/* NVMe/RDMA's IANA port: the one an initiator tries when none is given */
#define NVMF_TRSVCID 4420
#define NVMF_PORT_BASE 0xf000u
#define NVMF_CONFIGFS "/sys/kernel/config"
#define NVMF_NVMET NVMF_CONFIGFS "/nvmet"
#define NVMF_NULLB NVMF_CONFIGFS "/nullb"
/* nvme-fabrics' NVMF_NQN_SIZE less its NUL */
#define NVMF_NQN_MAX 222

/* The nvmet port id of run (4 hex digits): 0, or the id. */
static inline unsigned nvmfn_port_id(const char *run)
{
	char *end;
	unsigned long v = strtoul(run, &end, 16);

	return *run && !*end && v <= 0xffff ? NVMF_PORT_BASE + (unsigned)(v & 0xfff) : 0;
}

/* An NQN of rdmacap's: the prefix, then the run's [0-9a-f] and nothing else. */
static inline bool nvmfn_nqn_ours(const char *nqn)
{
	size_t n = strlen(NVMF_NQN_PREFIX), l = strlen(nqn);

	return l > n && l - n <= 8 && !strncmp(nqn, NVMF_NQN_PREFIX, n) &&
	       strspn(nqn + n, "0123456789abcdef") == l - n;
}

/* The run id of one of our NQNs (nvmfn_nqn_ours): the text after the prefix. */
static inline const char *nvmfn_nqn_run(const char *nqn)
{
	return nqn + strlen(NVMF_NQN_PREFIX);
}

#endif
