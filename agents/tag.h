/* SPDX-License-Identifier: MIT */
/*
 * tag: the one layout of epoll data.u64 in every loop of the agent, client or
 * server: type (8 bits) << 56 | generation (16 bits) << 32 | value (32 bits).
 * Each loop numbers its own types from 1; the generation lets a slot that was
 * closed and reused ignore the events still queued for its last tenant.
 * May use: ag.h.
 */
#ifndef RDC_AGENTS_TAG_H
#define RDC_AGENTS_TAG_H

#include <stdint.h>

#define TAG(t, gen, v) (((uint64_t)(uint8_t)(t) << 56) | \
			((uint64_t)(uint16_t)(gen) << 32) | (uint32_t)(v))
#define TAG_TYPE(tag) ((uint32_t)((tag) >> 56))
#define TAG_GEN(tag) ((uint16_t)((tag) >> 32))
#define TAG_VAL(tag) ((uint32_t)(tag))

/* epoll_ctl ADD of fd to ep; a fatal "error" record naming what on failure */
int tag_watch(int ep, int fd, uint32_t events, uint64_t tag, const char *what);
/* epoll_ctl MOD; a warning naming what on failure (the loop goes on) */
void tag_mod(int ep, int fd, uint32_t events, uint64_t tag, const char *what);

#endif
