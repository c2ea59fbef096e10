/* SPDX-License-Identifier: MIT */
/* env: the facts every SKIP and every cause refers to. */
#ifndef RDC_HARNESS_ENV_H
#define RDC_HARNESS_ENV_H

#include <jansson.h>
#include <stdbool.h>

#include "tap/tap.h"

/* One TAP result per fact at the current level (no plan); facts also go into o. */
int env_collect(struct tap *t, json_t *o, bool deep);

#endif
