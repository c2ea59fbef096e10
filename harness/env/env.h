/* SPDX-License-Identifier: MIT */
/* env: the facts every SKIP and every cause refers to. */
#ifndef RDC_HARNESS_ENV_H
#define RDC_HARNESS_ENV_H

#include <jansson.h>
#include <stdbool.h>

#include "tap/tap.h"

/* One TAP result per fact at the current level (no plan); facts also go into o. */
int env_collect(struct tap *t, json_t *o, bool deep);

/*
 * What a measured speed depends on beyond the plan (a TCG guest runs on its
 * host's spare CPU): o.loadavg_<when> = /proc/loadavg's three averages, and,
 * when RDMACAP_HOST_LOADAVG names a file in that format (vm/run passes the
 * host's), o.host_loadavg_<when> from it. null when unreadable.
 */
void env_load(json_t *o, const char *when);

/*
 * The hypervisor under this kernel, from CPUID: "none" (hardware), "qemu-tcg",
 * "kvm", "hyperv", "vmware", "xen", "virtualbox", "hypervisor SIG" for another
 * signature, "unknown" off x86. A static string.
 */
const char *env_virt(void);

#endif
