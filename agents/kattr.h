/* SPDX-License-Identifier: MIT */
/*
 * kattr: the kernel's configfs and sysfs, as the kernel-service transports
 * (nvmf/, srp/) write them: an attribute written in one write(2) and read
 * back whole, and the steps that make a target, each failure named by its
 * step word (configfs_mkdir, configfs_write, configfs_symlink), errno and
 * path, for the server's fatal record. Uses libc only.
 */
#ifndef RDC_AGENTS_KATTR_H
#define RDC_AGENTS_KATTR_H

#include <stddef.h>

/* the failed step of a target: its call word, its object, errno */
struct kattr_fail {
	const char *call;
	char obj[160];
	int err;
};

/* Writes s to the attribute path in one write(2). 0, or -1 with errno. */
int kattr_put(const char *path, const char *s);
/* The attribute path's first line, without its newline, into buf. 0, or -1 with errno. */
int kattr_get(const char *path, char *buf, size_t len);

/* Records the failure of call on obj with errno into f. Returns -1. */
int kattr_fail(struct kattr_fail *f, const char *call, const char *obj);
/* mkdir path (a configfs group). 0, or -1 through kattr_fail. */
int kattr_mkdir(struct kattr_fail *f, const char *path);
/* The attribute name of folder dir := val. 0, or -1 through kattr_fail. */
int kattr_set(struct kattr_fail *f, const char *dir, const char *name, const char *val);
/* symlink target at link (a configfs link). 0, or -1 through kattr_fail. */
int kattr_link(struct kattr_fail *f, const char *target, const char *link);

/*
 * An undo step: r is its call's return; a failure is warned about on stderr
 * naming what and path. 0, or -1.
 */
int kattr_undo(const char *what, const char *path, int r);

#endif
